"""Faults at the journal, through the judging card's server side (`audit_app.judging`):
a full disk (a real 64 KiB tmpfs when the machine allows mounting one), an I/O error
injected at the file-write boundary, and a PostgreSQL restart while annotators work.
Each time: the card says NOT saved, the journal holds nothing of the refused line, and
the same outbox succeeds once the fault is gone, with nothing lost or doubled.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from audit_app.judging import CardSession, apply_outbox
from audit_app.session import AnnotatorSession
from campaign import journal, journal_pg
from campaign.registry import authenticate
from services.annotators import add_annotator
from tests.app_fixture import Fixture, build

LONG = "a comment long enough to need a second page of the file system " * 60  # ~3.8 KB


class Outbox:
    """What one browser page's card sends: every unconfirmed action, ids growing."""

    def __init__(self, nonce: str) -> None:
        self.nonce, self.next = nonce, 1
        self.actions: list[dict[str, Any]] = []

    def add(self, **action: Any) -> dict[str, Any]:
        action["id"] = self.next
        self.next += 1
        self.actions.append(action)
        return self.box()

    def box(self) -> dict[str, Any]:
        return {"nonce": self.nonce, "actions": list(self.actions)}

    def confirm(self, card: CardSession) -> list[dict[str, Any]]:
        done = card.applied.get(self.nonce, 0)
        confirmed = [a for a in self.actions if a["id"] <= done]
        self.actions = [a for a in self.actions if a["id"] > done]
        return confirmed


def open_session(fx: Fixture, name: str = "alice") -> AnnotatorSession:
    return AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", name)


def read(s: AnnotatorSession) -> journal.StreamRead:
    return journal.read_stream(s.journal_path, s.packet.sha256, s.packet.item_ids, s.annotator)


@pytest.fixture
def small_disk(tmp_path: Path):
    """A project whose packet journals live on a 64 KiB tmpfs (skipped where mount is
    not allowed: not root, or a container without the capability)."""
    fx = build(tmp_path / "p", items=2)
    folder = fx.project.journals_dir / "initial"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield fx, folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Fill the file system to the last byte (4 KiB blocks, then single bytes)."""
    filler = folder / "filler.bin"
    with filler.open("wb", buffering=0) as fh:
        for chunk in (4096, 1):
            while True:
                try:
                    if fh.write(b"x" * chunk) != chunk:
                        break
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
                    break
    return filler


def test_a_full_disk_shows_not_saved_corrupts_nothing_and_saves_when_space_returns(
    small_disk,
) -> None:
    fx, folder = small_disk
    _, token = add_annotator(fx.project, "alice", ["initial"])
    s = open_session(fx)
    card, box = CardSession(), Outbox("tab1")
    allowed = lambda: authenticate(fx.project, token) is not None  # noqa: E731
    assert apply_outbox(s, card, box.add(op="answer", item="J001", cond="C1", value="no"), allowed)
    box.confirm(card)
    before = s.journal_path.read_bytes()
    filler = fill(folder)
    # The line needs more than the room left in the file's last page: the kernel first
    # writes the part that fits (a short write) and refuses the rest.
    assert apply_outbox(s, card, box.add(op="comment", item="J001", text=LONG), allowed) == []
    status = card.status()
    assert status == {
        "kind": "error",
        "text": "NOT saved (No space left on device); your change is still on screen.",
    }
    assert box.confirm(card) == []  # still in the outbox
    assert s.journal_path.read_bytes() == before  # nothing of the refused line
    assert read(s).unparsable_lines == 0 and len(read(s).lines) == 1
    # Still full: a re-send (the card's timer) is refused again, still nothing written.
    assert apply_outbox(s, card, box.box(), allowed) == []
    assert s.journal_path.read_bytes() == before
    filler.unlink()  # space returns
    written = apply_outbox(s, card, box.box(), allowed)
    assert [ln["comment"] for ln in written] == [LONG]
    assert card.status()["kind"] == "saved" and len(box.confirm(card)) == 1
    got = read(s)
    assert [ln["seq"] for ln in got.lines] == [1, 2] and got.unparsable_lines == 0
    assert got.latest["J001"]["comment"] == LONG
    assert got.latest["J001"]["conditions"]["C1"]["answer"] == "no"


@pytest.mark.parametrize("where", ["fsync", "write"])
def test_an_io_error_shows_not_saved_and_leaves_the_journal_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    fx = build(tmp_path / "p", items=2)
    s = open_session(fx)
    card, box = CardSession(), Outbox("tab1")
    yes = lambda: True  # noqa: E731
    apply_outbox(s, card, box.add(op="answer", item="J001", cond="C1", value="no"), yes)
    box.confirm(card)
    before = s.journal_path.read_bytes()
    real_write, real_fsync = os.write, os.fsync
    failures = {"left": 1}

    def failing_fsync(fd: int) -> None:
        if failures["left"] and os.fstat(fd).st_ino == s.journal_path.stat().st_ino:
            failures["left"] -= 1
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_fsync(fd)

    def failing_write(fd: int, data: Any) -> int:
        if failures["left"] and os.fstat(fd).st_ino == s.journal_path.stat().st_ino:
            failures["left"] -= 1
            real_write(fd, bytes(data)[: len(data) // 2])  # half of the line reached the file
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_write(fd, data)

    if where == "fsync":
        monkeypatch.setattr(journal.os, "fsync", failing_fsync)
    else:
        monkeypatch.setattr(journal.os, "write", failing_write)
    assert (
        apply_outbox(s, card, box.add(op="answer", item="J001", cond="C2", value="no"), yes) == []
    )
    assert card.status()["text"] == (
        "NOT saved (Input/output error); your change is still on screen."
    )
    assert s.journal_path.read_bytes() == before  # the unsaved line is not left behind
    written = apply_outbox(s, card, box.box(), yes)  # the error is gone: the re-send saves
    assert len(written) == 1 and written[0]["seq"] == 2
    got = read(s)
    assert [ln["seq"] for ln in got.lines] == [1, 2] and got.unparsable_lines == 0
    assert got.latest["J001"]["conditions"]["C2"]["answer"] == "no"


def test_a_postgresql_restart_while_annotators_work_loses_nothing(
    tmp_path: Path, pg_server, pg_url: str
) -> None:
    fx = build(tmp_path / "p", items=4)
    journal_pg.set_backend(fx.project.root, journal_pg.new_config(pg_url))
    people = [f"p{i}" for i in range(4)]
    tokens = {n: add_annotator(fx.project, n, ["initial"])[1] for n in people}
    stop = threading.Event()
    confirmed: dict[str, list[str]] = {n: [] for n in people}
    refused: Counter[str] = Counter()
    errors: list[BaseException] = []

    def annotator(name: str) -> None:
        try:
            s = open_session(fx, name)
            card, box = CardSession(), Outbox(f"{name}-tab")
            allowed = lambda: authenticate(fx.project, tokens[name]) is not None  # noqa: E731
            n = 0
            while not stop.is_set() or box.actions:
                if not stop.is_set():
                    n += 1
                    item = s.packet.item_ids[n % len(s.packet.item_ids)]
                    box.add(op="comment", item=item, text=f"{name} save {n}")
                apply_outbox(s, card, box.box(), allowed)
                done = box.confirm(card)
                confirmed[name] += [a["text"] for a in done]
                if box.actions:
                    refused[name] += 1
                    time.sleep(0.2)  # the card's re-send timer
                else:
                    time.sleep(0.05)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=annotator, args=(n,)) for n in people]
    for t in threads:
        t.start()
    try:
        time.sleep(1.5)
        pg_server.stop("fast")  # the database goes away while they answer ...
        time.sleep(1.5)
    finally:
        pg_server.start()  # ... and comes back
    time.sleep(1.5)
    stop.set()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert sum(refused.values()) > 0  # the restart was hit: saves were refused, re-sent
    for name in people:
        lines = journal.read_journal(fx.project.journals_dir / "initial" / f"{name}.jsonl").lines
        counts = Counter(ln.get("comment") for ln in lines)
        assert confirmed[name], name
        assert all(counts[text] == 1 for text in confirmed[name]), name  # none lost or doubled
        assert set(counts) == set(confirmed[name])  # nothing saved that was not confirmed
        assert [ln["seq"] for ln in lines] == list(range(1, len(lines) + 1))


def test_a_database_stream_is_read_on_from_where_the_last_read_stopped(
    tmp_path: Path, pg_url: str
) -> None:
    """After each save the session reads only the rows past its last read (not the whole
    stream again), and the result equals a full read."""
    fx = build(tmp_path / "p", items=3)
    journal_pg.set_backend(fx.project.root, journal_pg.new_config(pg_url))
    s = open_session(fx)
    card, box = CardSession(), Outbox("tab")
    for n in range(5):
        apply_outbox(s, card, box.add(op="comment", item="J001", text=f"first {n}"), lambda: True)
    first = read(s)
    assert first.cursor == (journal.DB_CURSOR, journal.DB_CURSOR, 5)
    apply_outbox(s, card, box.add(op="comment", item="J002", text="later"), lambda: True)
    journal.append(s.journal_path, {"item_id": "J003", "packet_sha256": "another version"})
    journal.append(s.journal_path, {"item_id": "J999", "packet_sha256": s.packet.sha256})
    calls: list[int] = []
    real = journal_pg.read_lines

    def counted(cfg, packet, annotator, after_seq=0):  # type: ignore[no-untyped-def]
        calls.append(after_seq)
        return real(cfg, packet, annotator, after_seq)

    journal_pg.read_lines = counted  # type: ignore[assignment]
    try:
        more = journal.read_stream(
            s.journal_path, s.packet.sha256, s.packet.item_ids, "alice", since=first
        )
    finally:
        journal_pg.read_lines = real  # type: ignore[assignment]
    assert calls == [5]  # only the rows past seq 5 were asked for
    full = read(s)
    assert (more.latest, more.lines, more.problems()) == (full.latest, full.lines, full.problems())
    assert more.other_packet_lines == 1 and more.unknown_items == 1
    assert more.cursor == full.cursor == (journal.DB_CURSOR, journal.DB_CURSOR, 8)
