"""The append-only response journal: one JSON line per saved decision, fsync'ed.

A save is durable when `append` returns. Concurrent writers (several browser
sessions of one annotator) are serialised with an exclusive file lock so
sequence numbers stay unique and lines never interleave. A crash can leave at
most one partial final line; readers skip it and the next append starts on a
fresh line. The latest line (highest seq) per item wins; nothing is rewritten.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign.project import now_iso, open_private

_TAIL_BYTES = 1 << 16


@dataclass(frozen=True)
class JournalRead:
    lines: list[dict[str, Any]]
    skipped: int  # unparsable (partial) lines


def _last_seq(fd: int, size: int, path: Path) -> int:
    """The seq of the last complete line, reading only the file's tail."""
    start = max(0, size - _TAIL_BYTES)
    os.lseek(fd, start, os.SEEK_SET)
    tail = os.read(fd, size - start)
    for raw in reversed(tail.split(b"\n")):
        if not raw.strip():
            continue
        try:
            return int(json.loads(raw)["seq"])
        except (ValueError, KeyError, TypeError):
            continue
    if start > 0:  # a very long partial tail: fall back to a full scan
        return max((int(x.get("seq", 0)) for x in read_journal(path).lines), default=0)
    return 0


def append(path: Path, record: dict[str, Any]) -> dict[str, Any]:
    """Append one decision line (adds `seq` and `ts`), fsync, and return the line as written."""
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
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock
    if size == 0:
        _fsync_dir(path.parent)
    return line


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_journal(path: Path) -> JournalRead:
    lines: list[dict[str, Any]] = []
    skipped = 0
    if not path.is_file():
        return JournalRead(lines, 0)
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError:
                skipped += 1
                continue
            if isinstance(obj, dict) and isinstance(obj.get("seq"), int):
                lines.append(obj)
            else:
                skipped += 1
    return JournalRead(lines, skipped)


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


def journal_path(journal_dir: Path, annotator: str) -> Path:
    return journal_dir / f"{annotator}.jsonl"


def iter_journals(journal_dir: Path) -> Iterator[tuple[str, Path]]:
    """(annotator, path) for every journal of one packet, sorted by annotator."""
    if not journal_dir.is_dir():
        return
    for path in sorted(journal_dir.glob("*.jsonl")):
        yield path.stem, path


def latest_states(journal_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """annotator -> item_id -> latest saved state, for every journal of one packet."""
    return {
        name: latest_by_item(read_journal(path).lines) for name, path in iter_journals(journal_dir)
    }
