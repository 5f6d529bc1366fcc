"""The PostgreSQL journal backend against a real server (tests/pg_fixture.py): the same
lines and the same reading rule as the file journal, unique seq under concurrent writers,
append-only, the registry and overrides in the database, connection loss."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import psycopg
import pytest

from audit_app.session import AnnotatorSession, ItemState
from campaign import journal, journal_pg
from campaign.overrides import append_override, read_override_lines
from campaign.registry import authenticate
from services.annotators import add_annotator, revoke_annotator
from tests.app_fixture import Fixture, build
from tests.conftest import run_cli
from tests.pg_fixture import PgServer
from vocabulary.errors import InputError
from vocabulary.gates import ConditionAnswer


def pg_project(root: Path, url: str) -> Fixture:
    fx = build(root)
    journal_pg.set_backend(fx.project.root, journal_pg.new_config(url))
    return fx


def _session(fx: Fixture, who: str = "ann") -> AnnotatorSession:
    return AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", who)


def test_same_lines_and_rule_as_the_file_journal(tmp_path: Path, pg_url: str) -> None:
    fx_db, fx_file = pg_project(tmp_path / "db", pg_url), build(tmp_path / "file")
    for fx in (fx_db, fx_file):
        s = _session(fx)
        assert s.states() == {}
        s.save("J001", ItemState({"C1": ConditionAnswer("no")}))
        s.save("J002", ItemState({"C1": ConditionAnswer("no")}, True, "which year?"))
        s.save("J001", ItemState({"C1": ConditionAnswer("no")}, True, "changed"))
        journal.append(s.journal_path, {"annotator": "ann", "item_id": "J003"})  # no hash
    assert not list(fx_db.project.journal_dir("initial").glob("*.jsonl"))  # nothing on disk
    reads = {}
    for fx in (fx_db, fx_file):
        s = _session(fx)
        got = journal.read_streams(
            fx.project.journal_dir("initial"), s.packet.sha256, s.packet.item_ids
        )
        reads[fx is fx_db] = got["ann"]
    db, fl = reads[True], reads[False]
    strip = lambda lines: [{k: v for k, v in ln.items() if k != "ts"} for ln in lines]  # noqa: E731
    assert strip(db.lines) == strip(fl.lines) and len(db.lines) == 3
    assert db.latest["J001"]["comment"] == "changed" and db.latest["J001"]["seq"] == 3
    assert db.other_packet_lines == fl.other_packet_lines == 1
    assert _session(fx_db).states()["J002"].comment == "which year?"


def test_another_writer_is_seen_by_a_cached_session(tmp_path: Path, pg_url: str) -> None:
    fx = pg_project(tmp_path / "db", pg_url)
    a, b = _session(fx), _session(fx)
    assert a.states() == {}
    b.save("J002", ItemState({"C1": ConditionAnswer("no")}))  # another server, same person
    assert set(a.states()) == {"J002"}


def test_seq_unique_under_concurrent_writers(tmp_path: Path, pg_url: str) -> None:
    fx = pg_project(tmp_path / "db", pg_url)
    path = journal.journal_path(fx.project.journal_dir("initial"), "ann")
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        try:
            for i in range(25):
                journal.append(path, {"annotator": "ann", "item_id": f"w{w}-{i}"})
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    lines = journal.read_journal(path).lines
    assert sorted(ln["seq"] for ln in lines) == list(range(1, 201))
    assert len({ln["item_id"] for ln in lines}) == 200


def test_nothing_is_updated_or_deleted(tmp_path: Path, pg_url: str) -> None:
    fx = pg_project(tmp_path / "db", pg_url)
    _session(fx).save("J001", ItemState({"C1": ConditionAnswer("no")}))
    append_override(fx.project, {"item_id": "J001"})
    for sql in (
        "UPDATE evaudit_journal SET seq = 9",
        "DELETE FROM evaudit_journal",
        "TRUNCATE evaudit_journal",
        "UPDATE evaudit_overrides SET record = '{}'",
        "DELETE FROM evaudit_overrides",
    ):
        with (
            psycopg.connect(pg_url) as conn,
            pytest.raises(psycopg.errors.RaiseException, match="append-only"),
        ):
            conn.execute(sql)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM evaudit_journal").fetchone() == (1,)


def test_registry_and_overrides_live_in_the_database(tmp_path: Path, pg_url: str) -> None:
    fx = pg_project(tmp_path / "db", pg_url)
    other_server = build(tmp_path / "copy")  # a second folder on the same campaign
    other_server.project.meta_path.write_text(fx.project.meta_path.read_text())
    _, token = add_annotator(fx.project, "alice", ["initial"])
    assert json.loads(fx.project.annotators_path.read_text()) == {"annotators": {}}
    assert authenticate(other_server.project, token) is not None
    with pytest.raises(InputError, match="already exists"):  # rolled back, connection kept
        add_annotator(other_server.project, "alice", ["initial"])
    revoke_annotator(fx.project, "alice")
    assert authenticate(other_server.project, token) is None  # refused at once
    append_override(fx.project, {"item_id": "J001", "n": 1})
    append_override(other_server.project, {"item_id": "J002", "n": 2})
    assert read_override_lines(fx.project) == [
        (1, {"item_id": "J001", "n": 1}),
        (2, {"item_id": "J002", "n": 2}),
    ]


def test_connection_loss_is_an_oserror_then_reconnects(
    tmp_path: Path, pg_url: str, pg_server: PgServer
) -> None:
    fx = pg_project(tmp_path / "db", pg_url)
    s = _session(fx)
    s.save("J001", ItemState({"C1": ConditionAnswer("no")}))
    pg_server.stop()
    try:
        with pytest.raises(OSError) as err:
            s.save("J002", ItemState({"C1": ConditionAnswer("no")}))
        assert isinstance(err.value, journal_pg.JournalUnavailable)
        assert "journal database" in (err.value.strerror or "")
    finally:
        pg_server.start()
    s.save("J002", ItemState({"C1": ConditionAnswer("no")}))  # a new connection, by itself
    assert [ln["seq"] for ln in journal.read_journal(s.journal_path).lines] == [1, 2]


def test_init_journal_option(tmp_path: Path, pg_url: str) -> None:
    with_pw = pg_url.replace("evaudit@", "evaudit:secret-pw@")
    run_cli("init", tmp_path / "p", "--admin-password", "pw-for-tests-1", "--journal", with_pw)
    meta = json.loads((tmp_path / "p" / "project.json").read_text())
    assert meta["journal"]["backend"] == "postgresql"
    assert meta["journal"]["url"] == pg_url and "secret-pw" not in json.dumps(meta)
    bad = run_cli(
        "init", tmp_path / "q", "--journal", "postgresql://evaudit@127.0.0.1:1/x", expect=None
    )
    assert bad.exit_code != 0 and "cannot reach the journal database" in bad.output
    assert not (tmp_path / "q").exists()


def test_env_url_overrides_and_serve_refuses_an_unreachable_database(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fx = pg_project(tmp_path / "db", pg_url)
    meta = json.loads(fx.project.meta_path.read_text())
    meta["journal"]["url"] = "postgresql://evaudit@127.0.0.1:1/nowhere"
    fx.project.meta_path.write_text(json.dumps(meta))
    res = run_cli("serve", fx.project.root, expect=None)
    assert res.exit_code == 2 and "cannot reach the journal database" in res.output
    assert "127.0.0.1:1/nowhere" in res.output
    monkeypatch.setenv(journal_pg.URL_ENV, pg_url)  # the URL (with password) from the env
    fx.project.meta_path.write_text(json.dumps(meta, indent=1))  # a new mtime: re-read
    _session(fx).save("J001", ItemState({"C1": ConditionAnswer("no")}))
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM evaudit_journal").fetchone() == (1,)
