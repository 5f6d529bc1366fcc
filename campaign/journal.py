"""The append-only response journal: one JSON line per saved decision, fsync'ed.

A save is durable when `append` returns; when it raises (a full disk, an I/O error),
nothing of that line stays in the file, and the caller keeps the change to send again.
Concurrent writers (several browser
sessions of one annotator) are serialised with an exclusive file lock so
sequence numbers stay unique and lines never interleave. A crash can leave at
most one partial final line; readers skip it and the next append starts on a
fresh line. The latest line (highest seq) per item wins; nothing is rewritten.

Which lines count (`read_stream`, the one rule every reader of responses uses: agreement,
integrity, pool building, the admin page, the annotator's own session and exports):

1. A line that is not a JSON object with an integer `seq` (a crash's partial last line,
   a hand-edited line) is skipped and counted (`unparsable_lines`).
2. Only lines saved on the current version of the packet count: `packet_sha256` equal to
   the packet file's hash. A line without a hash is not of the current version (the app
   always writes one), so it is ignored like a line of an older version; both are counted
   (`other_packet_lines`), as are lines that name another annotator than the file's.
3. Among the counted lines, the highest `seq` per item wins. Filtering comes first, so a
   later line of another version never hides the latest line of this one.
4. Items the packet does not have are left out and counted (`unknown_items`).

Backends: a project's journals are files (the default, above) or rows of PostgreSQL
(`campaign.journal_pg`, chosen in project.json). Every function here takes the same paths
(`journals/PACKET/ANNOTATOR.jsonl`) and picks the backend from the project they lie in
(`backend_for`), so readers and the one rule are the same for both. A caller that holds
an open project passes its backend down instead (`backend_of(project, packet)`, resolved
once per handle), so a save or a page run does not look at project.json again.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from campaign import journal_pg
from campaign.project import Project, now_iso, open_private
from vocabulary.jsonread import json_loads

_TAIL_BYTES = 1 << 16
DB_CURSOR = -1  # a cursor (DB_CURSOR, DB_CURSOR, seq): database rows read up to that seq


@dataclass(frozen=True)
class JournalRead:
    lines: list[dict[str, Any]]
    skipped: int  # unparsable (partial) lines
    # Where this read stopped: in a file journal (device, inode, byte offset after the last
    # line read); in the database (DB_CURSOR, DB_CURSOR, highest seq read). None when the
    # read cannot be continued (a partial last line).
    cursor: tuple[int, int, int] | None = None


def _last_seq(fd: int, size: int, path: Path) -> int:
    """The seq of the last complete line, reading only the file's tail."""
    start = max(0, size - _TAIL_BYTES)
    os.lseek(fd, start, os.SEEK_SET)
    tail = os.read(fd, size - start)
    for raw in reversed(tail.split(b"\n")):
        if not raw.strip():
            continue
        try:
            return int(json_loads(raw)["seq"])
        except (ValueError, KeyError, TypeError):
            continue
    if start > 0:  # a very long partial tail: fall back to a full scan
        return max((int(x.get("seq", 0)) for x in _read_all(path).lines), default=0)
    return 0


def append(path: Path, record: dict[str, Any]) -> dict[str, Any]:
    """Append one decision line (adds `seq` and `ts`), durably, and return the line as written."""
    return backend_for(path.parent).append(path.stem, record)


def _append_file(path: Path, record: dict[str, Any]) -> dict[str, Any]:
    """The file backend's append: under an exclusive lock, fsync'ed."""
    # 0600 in a 0700 folder: a journal holds one person's answers, for the admin only.
    fd = open_private(path, os.O_RDWR | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        prefix = b""
        if size:
            os.lseek(fd, size - 1, os.SEEK_SET)
            if os.read(fd, 1) != b"\n":
                prefix = b"\n"  # a crash left a partial line; keep it isolated
        line = {"seq": _last_seq(fd, size, path) + 1, "ts": now_iso(), **record}
        data = prefix + json.dumps(line, ensure_ascii=False, sort_keys=True).encode() + b"\n"
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError:
            _undo_append(fd, size)
            raise
    finally:
        os.close(fd)  # closing releases the lock
    if size == 0:
        _fsync_dir(path.parent)
    return line


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte or raise: a full disk first answers with a short write (the
    part that fit), and only the next write fails with ENOSPC."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def _undo_append(fd: int, size: int) -> None:
    """After a failed write or fsync (ENOSPC, EIO), cut the file back to the `size` it had
    under this lock, so no part of the unsaved line stays to be read. Best effort: if
    the disk refuses that too, the partial line is isolated by the next append and
    skipped by readers, as after a crash."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_journal(path: Path) -> JournalRead:
    """Every line of one annotator's journal (the rule is applied by `read_stream`)."""
    return backend_for(path.parent).read(path.stem)


def _read_all(path: Path) -> JournalRead:
    read = _read_file(path)
    assert read is not None  # a read without a cursor always reads
    return read


def _read_file(path: Path, cursor: tuple[int, int, int] | None = None) -> JournalRead | None:
    """Every line, or with `cursor` only the lines appended since that read (None when the
    file is not the one the cursor points into any more: the caller reads it whole)."""
    lines: list[dict[str, Any]] = []
    skipped = 0
    if not path.is_file():  # no journal yet (or something else in its place): no lines
        return JournalRead(lines, 0) if cursor is None else None
    try:
        fh = path.open("rb")
    except FileNotFoundError:  # removed just now
        return JournalRead(lines, 0) if cursor is None else None
    with fh:
        st = os.fstat(fh.fileno())
        start = 0
        if cursor is not None:
            if (st.st_dev, st.st_ino) != cursor[:2] or st.st_size < cursor[2]:
                return None
            start = cursor[2]
            fh.seek(start)
        offset, partial = start, False
        for raw in fh:
            offset += len(raw)
            partial = not raw.endswith(b"\n")
            if not raw.strip():
                continue
            try:
                obj = json_loads(raw)
            except json.JSONDecodeError:
                skipped += 1
                continue
            if isinstance(obj, dict) and isinstance(obj.get("seq"), int):
                lines.append(obj)
            else:
                skipped += 1
    # Appends write whole lines, so only a crash leaves a line without its newline; a read
    # that ends in one is not continued (the next append isolates it and a full read counts it).
    end = None if partial else (st.st_dev, st.st_ino, offset)
    return JournalRead(lines, skipped, end)


def latest_by_item(lines: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """item_id -> the line with the highest seq for that item."""
    out: dict[str, dict[str, Any]] = {}
    for line in lines:
        item = line.get("item_id")
        if not isinstance(item, str):
            continue
        if item not in out or line["seq"] > out[item]["seq"]:
            out[item] = line
    return out


@dataclass(frozen=True)
class StreamRead:
    """One annotator's journal read for one packet version, by the rule above."""

    annotator: str
    path: Path
    latest: dict[str, dict[str, Any]]  # item_id -> its latest counted line
    lines: list[dict[str, Any]]  # every counted line of a known item, in seq order
    unparsable_lines: int
    other_packet_lines: int
    unknown_items: int
    # For continuing the read (`read_stream(..., since=this)`): where it stopped, and the
    # latest counted line of items the packet does not have.
    cursor: tuple[int, int, int] | None = None
    unknown: dict[str, dict[str, Any]] = field(default_factory=dict)

    def problems(self) -> dict[str, int]:
        """The counts integrity reports per stream (docs/workflow.md)."""
        return {
            "unparsable_lines": self.unparsable_lines,
            "other_packet_lines": self.other_packet_lines,
            "unknown_items": self.unknown_items,
        }


def read_stream(
    path: Path,
    packet_sha256: str,
    item_ids: Collection[str],
    annotator: str | None = None,
    since: StreamRead | None = None,
    backend: JournalBackend | None = None,
) -> StreamRead:
    """The counted lines of one journal (the module docstring's rule); `annotator`
    defaults to the file's name. With `since` (an earlier read of the same journal, packet
    and items), only what was appended after it is read, and the result equals a full read
    (a long journal then costs its new lines, not all of them, after every save).
    `backend`: the journal's backend when the caller holds it (else `backend_for`)."""
    name = annotator if annotator is not None else path.stem
    backend = backend if backend is not None else backend_for(path.parent)
    read: JournalRead | None = None
    if since is not None and since.cursor is not None:
        if isinstance(backend, FileJournal) and since.cursor[0] != DB_CURSOR:
            read = _read_file(path, since.cursor)
        elif isinstance(backend, PgJournal) and since.cursor[0] == DB_CURSOR:
            read = backend.read_after(path.stem, since.cursor[2])
    base = since if read is not None else None
    if read is None:
        read = backend.read(path.stem)
    counted = [
        ln
        for ln in read.lines
        if ln.get("packet_sha256") == packet_sha256 and ln.get("annotator", name) == name
    ]
    known = set(item_ids)
    latest = dict(base.latest) if base else {}
    unknown = dict(base.unknown) if base else {}
    for item, line in latest_by_item(counted).items():
        into = latest if item in known else unknown
        if item not in into or line["seq"] > into[item]["seq"]:
            into[item] = line
    new_lines = sorted((ln for ln in counted if ln.get("item_id") in known), key=_seq)
    return StreamRead(
        annotator=name,
        path=path,
        latest=latest,
        lines=[*base.lines, *new_lines] if base else new_lines,
        unparsable_lines=read.skipped + (base.unparsable_lines if base else 0),
        other_packet_lines=len(read.lines)
        - len(counted)
        + (base.other_packet_lines if base else 0),
        unknown_items=len(unknown),
        cursor=read.cursor,
        unknown=unknown,
    )


def _seq(line: dict[str, Any]) -> int:
    return int(line["seq"])


def read_streams(
    journal_dir: Path, packet_sha256: str, item_ids: Collection[str]
) -> dict[str, StreamRead]:
    """annotator -> their journal read by the one rule, for every journal of one packet."""
    return {
        name: read_stream(path, packet_sha256, item_ids, name)
        for name, path in iter_journals(journal_dir)
    }


def journal_path(journal_dir: Path, annotator: str) -> Path:
    return journal_dir / f"{annotator}.jsonl"


def iter_journals(journal_dir: Path) -> Iterator[tuple[str, Path]]:
    """(annotator, path) for every journal of one packet, sorted by annotator."""
    for name in backend_for(journal_dir).annotators():
        yield name, journal_path(journal_dir, name)


def signature(path: Path) -> tuple[int, int] | None:
    """Changes whenever the journal gains a line (None: no journal yet); readers that cache
    the latest states re-read when it changes (a second tab, another server)."""
    return backend_for(path.parent).signature(path.stem)


class JournalBackend(Protocol):
    """One packet's journals in one place (files or database rows)."""

    def append(self, annotator: str, record: dict[str, Any]) -> dict[str, Any]: ...
    def read(self, annotator: str) -> JournalRead: ...
    def annotators(self) -> list[str]: ...
    def signature(self, annotator: str) -> tuple[int, int] | None: ...


@dataclass(frozen=True)
class FileJournal:
    journal_dir: Path

    def append(self, annotator: str, record: dict[str, Any]) -> dict[str, Any]:
        return _append_file(journal_path(self.journal_dir, annotator), record)

    def read(self, annotator: str) -> JournalRead:
        return _read_all(journal_path(self.journal_dir, annotator))

    def annotators(self) -> list[str]:
        if not self.journal_dir.is_dir():
            return []
        return [p.stem for p in sorted(self.journal_dir.glob("*.jsonl"))]

    def signature(self, annotator: str) -> tuple[int, int] | None:
        try:
            st = journal_path(self.journal_dir, annotator).stat()
        except FileNotFoundError:
            return None
        return (st.st_size, st.st_mtime_ns)


@dataclass(frozen=True)
class PgJournal:
    cfg: journal_pg.PgConfig
    packet: str

    def append(self, annotator: str, record: dict[str, Any]) -> dict[str, Any]:
        return journal_pg.append(self.cfg, self.packet, annotator, record)

    def read(self, annotator: str) -> JournalRead:
        return self.read_after(annotator, 0)

    def read_after(self, annotator: str, seq: int) -> JournalRead:
        """The lines past `seq`, with a cursor to continue from (see `journal_pg.read_lines`:
        rows of one stream become visible in seq order)."""
        lines = journal_pg.read_lines(self.cfg, self.packet, annotator, seq)
        last = max((int(ln["seq"]) for ln in lines), default=seq)
        return JournalRead(lines, 0, (DB_CURSOR, DB_CURSOR, last))

    def annotators(self) -> list[str]:
        return journal_pg.annotators(self.cfg, self.packet)

    def signature(self, annotator: str) -> tuple[int, int] | None:
        sig = journal_pg.signature(self.cfg, self.packet, annotator)
        return sig if sig[0] else None


def backend_of(project: Project, packet: str) -> JournalBackend:
    """The backend of one packet's journals in an open project: its handle's backend
    (`Project.journals`, resolved once per handle), so nothing re-reads project.json."""
    cfg = project.journals
    if cfg is not None:
        return PgJournal(cfg, packet)
    return FileJournal(project.journal_dir(packet))


def backend_for(journal_dir: Path) -> JournalBackend:
    """The backend of one packet's journals, for callers that hold only a path: PostgreSQL
    when `journal_dir` is `ROOT/journals/PACKET` of a project configured so, else files
    (also for any other folder, as benchmarks and tests use). It looks at project.json
    (its modification time) on every call; a caller with a project uses `backend_of`."""
    if journal_dir.parent.name == "journals":
        cfg = journal_pg.config_for(journal_dir.parent.parent)
        if cfg is not None:
            return PgJournal(cfg, journal_dir.name)
    return FileJournal(journal_dir)


def latest_states(
    journal_dir: Path, packet_sha256: str, item_ids: Collection[str]
) -> dict[str, dict[str, dict[str, Any]]]:
    """annotator -> item_id -> latest counted line, for every journal of one packet."""
    return {
        name: read.latest
        for name, read in read_streams(journal_dir, packet_sha256, item_ids).items()
    }
