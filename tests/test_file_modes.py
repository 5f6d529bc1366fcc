"""Project files are private: folders 0700; store, registry, packets, keys, journals,
exports, overrides and finalize outputs 0600.

Real files made by the real code paths (init, annotator add, the journal append, the
atomic JSON writer, packet build and export, override, finalize), under a permissive
umask so the modes come from the code.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit_chain.overrides_io import record_override
from campaign import journal
from campaign.project import write_json_atomic
from services.annotators import add_annotator
from tests.app_fixture import build
from tests.conftest import cli_json, run_cli
from tests.test_finalize_decisions import _campaign
from tests.test_packet_fixtures import make_project


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    old = os.umask(0o022)  # the common default: files 0644, folders 0755 unless narrowed
    try:
        yield
    finally:
        os.umask(old)


def test_init_makes_a_private_project(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    run_cli("init", root, "--admin-password", "pw-for-tests")
    assert mode(root) == 0o700
    for sub in ("packets", "keys", "journals", "decisions"):
        assert mode(root / sub) == 0o700, sub
    for name in ("audit.duckdb", "project.json", "annotators.json"):
        assert mode(root / name) == 0o600, name
    assert not list(root.glob(".*.tmp"))


def test_an_empty_folder_given_to_init_is_narrowed(tmp_path: Path) -> None:
    root = tmp_path / "made-by-user"
    root.mkdir(mode=0o755)
    run_cli("init", root, "--admin-password", "pw-for-tests")
    assert mode(root) == 0o700


def test_keys_registry_and_journals_are_0600(tmp_path: Path) -> None:
    fx = build(tmp_path / "proj", items=2)
    assert mode(fx.project.key_path("initial")) == 0o600
    assert mode(fx.project.packet_path("initial")) == 0o600
    add_annotator(fx.project, "alice", ["initial"])
    assert mode(fx.project.annotators_path) == 0o600
    assert mode(fx.project.root / ".annotators.lock") == 0o600
    path = journal.journal_path(fx.project.journal_dir("initial"), "alice")
    journal.append(path, {"item_id": "J001", "packet_sha256": "x"})
    assert mode(path.parent) == 0o700
    assert mode(path) == 0o600
    # A journal made before this change keeps working (append never widens or fails).
    os.chmod(path, 0o644)
    journal.append(path, {"item_id": "J002", "packet_sha256": "x"})
    assert len(journal.read_journal(path).lines) == 2


def test_atomic_writer_narrows_what_it_creates_only(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    write_json_atomic(shared / "new" / "deeper" / "out.json", {"a": 1})
    assert mode(shared) == 0o755  # an existing folder (say /tmp) is not touched
    assert mode(shared / "new") == 0o700 and mode(shared / "new" / "deeper") == 0o700
    assert mode(shared / "new" / "deeper" / "out.json") == 0o600
    # A stale temp file with a wide mode does not leak its mode into the result.
    stale = shared / f".x.json.{os.getpid()}.tmp"
    stale.write_text("old")
    os.chmod(stale, 0o666)
    write_json_atomic(shared / "x.json", {"b": 2})
    assert mode(shared / "x.json") == 0o600 and not stale.exists()


def test_built_packet_key_and_export_are_0600(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    cli_json("packet", "build", root, "--name", "init", "--seed", "11", "--per-stratum", "1")
    assert mode(root / "packets" / "init.json") == 0o600
    assert mode(root / "keys" / "init.key.json") == 0o600
    shared = tmp_path / "outbox"
    shared.mkdir(mode=0o755)
    cli_json("packet", "export", root, "init", "--out", shared / "new" / "init.json")
    assert mode(shared / "new" / "init.json") == 0o600
    assert mode(shared / "new") == 0o700 and mode(shared) == 0o755
    assert not list((root / "packets").glob(".*.tmp"))


def test_override_log_is_0600(tmp_path: Path) -> None:
    fx = build(tmp_path / "proj", items=2)
    page = "J001-C1-A"
    decisions = fx.project.decisions_dir
    decisions.rmdir()  # made again by the append, privately
    record_override(
        fx.project.root,
        "initial",
        "J001",
        "C1",
        "yes",
        "seen on the page",
        [page],
        [fx.quotes[page]],
    )
    assert mode(decisions) == 0o700
    assert mode(decisions / "overrides.jsonl") == 0o600


def test_finalize_outputs_are_0600(tmp_path: Path) -> None:
    root, _ = _campaign(tmp_path)
    out = tmp_path / "fin" / "revised"
    cli_json("finalize", root, "--out", out)
    assert mode(out) == 0o700 and mode(out.parent) == 0o700
    names = sorted(p.name for p in out.iterdir())
    assert {"manifest.json", "qrels.txt", "report.json"} <= set(names)
    for name in names:
        assert mode(out / name) == 0o600, name
