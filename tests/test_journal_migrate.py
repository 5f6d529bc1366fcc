"""`evaudit journal migrate|verify` against a real PostgreSQL: file -> database -> file
gives byte-identical journals (and so latest states), reruns copy nothing, a target
holding other lines is refused, verify says when the copies differ."""

from __future__ import annotations

import json
from pathlib import Path

from audit_app.session import AnnotatorSession, ItemState
from campaign import journal, journal_pg
from campaign.overrides import append_override, read_override_lines
from campaign.registry import authenticate
from services.annotators import add_annotator
from tests.app_fixture import Fixture, build
from tests.conftest import run_cli
from vocabulary.gates import ConditionAnswer


def _session(fx: Fixture, who: str) -> AnnotatorSession:
    return AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", who)


def _journal_bytes(fx: Fixture) -> dict[str, bytes]:
    jdir = fx.project.journal_dir("initial")
    return {p.name: p.read_bytes() for p in sorted(jdir.glob("*.jsonl"))}


def test_file_to_database_to_file_is_byte_identical(tmp_path: Path, pg_url: str) -> None:
    fx = build(tmp_path / "p")
    _, token = add_annotator(fx.project, "ann", ["initial"])
    for who in ("ann", "bob"):
        s = _session(fx, who)
        s.save("J001", ItemState({"C1": ConditionAnswer("no")}, True, "ünïcode ✓"))
        s.save("J002", ItemState({"C1": ConditionAnswer("no")}))
        s.save("J001", ItemState({"C1": ConditionAnswer("no")}))
    path = journal.journal_path(fx.project.journal_dir("initial"), "bob")
    with path.open("ab") as fh:
        fh.write(b'{"partial')  # a crash's partial last line: skipped by every reader
    append_override(fx.project, {"item_id": "J001", "decision": "keep"})
    before = _journal_bytes(fx)
    states = {w: _session(fx, w).restore() for w in ("ann", "bob")}

    out = json.loads(
        run_cli("journal", "migrate", fx.project.root, "--to", pg_url, "--json").stdout
    )
    assert out["copied_lines"] == {"initial/ann": 3, "initial/bob": 3}
    assert out["comparison"]["same"] and out["comparison"]["unparsable_file_lines"] == 1
    assert journal_pg.config_for(fx.project.root) is not None
    assert {w: _session(fx, w).restore() for w in ("ann", "bob")} == states  # from the db
    assert authenticate(fx.project, token) is not None
    again = json.loads(
        run_cli("journal", "migrate", fx.project.root, "--to", pg_url, "--json").stdout
    )
    assert again["copied_lines"] == {}  # idempotent
    run_cli("journal", "verify", fx.project.root)

    _session(fx, "ann").save("J003", ItemState({"C1": ConditionAnswer("no")}))  # db ahead
    bad = run_cli("journal", "verify", fx.project.root, "--json", expect=1)
    rows = {r["annotator"]: r for r in json.loads(bad.stdout)["streams"]}
    assert rows["ann"]["db_lines"] == 4 and rows["ann"]["file_lines"] == 3
    assert not rows["ann"]["same"] and rows["bob"]["same"]

    for p in fx.project.journal_dir("initial").glob("*.jsonl"):
        p.unlink()  # every line now comes from the database
    out = json.loads(
        run_cli("journal", "migrate", fx.project.root, "--to", "file", "--json").stdout
    )
    assert out["copied_lines"] == {"initial/ann": 4, "initial/bob": 3}
    assert journal_pg.config_for(fx.project.root) is None
    after = _journal_bytes(fx)
    assert after["bob.jsonl"] + b'{"partial' == before["bob.jsonl"]  # byte-identical
    assert after["ann.jsonl"].startswith(before["ann.jsonl"])
    db_line = after["ann.jsonl"][len(before["ann.jsonl"]) :]
    assert json.loads(db_line)["item_id"] == "J003" and db_line.endswith(b"\n")
    assert _session(fx, "bob").restore() == states["bob"]
    assert read_override_lines(fx.project) == [(1, {"item_id": "J001", "decision": "keep"})]


def test_a_target_with_other_lines_is_refused(tmp_path: Path, pg_url: str) -> None:
    fx = build(tmp_path / "p")
    _session(fx, "ann").save("J001", ItemState({"C1": ConditionAnswer("no")}))
    run_cli("journal", "migrate", fx.project.root, "--to", pg_url)
    _session(fx, "ann").save("J002", ItemState({"C1": ConditionAnswer("no")}))
    path = journal.journal_path(fx.project.journal_dir("initial"), "ann")
    stale = path.read_bytes()
    path.write_bytes(stale.replace(b'"J001"', b'"J003"'))  # the file no longer a prefix
    res = run_cli("journal", "migrate", fx.project.root, "--to", "file", expect=None)
    assert res.exit_code == 2 and "other lines for initial/ann" in res.output
    assert path.read_bytes() == stale.replace(b'"J001"', b'"J003"')  # nothing overwritten
    assert journal_pg.config_for(fx.project.root) is not None  # backend not switched
