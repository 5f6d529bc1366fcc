"""Continuing a journal read (`read_stream(..., since=...)`) gives exactly a full read.

The annotator's session continues its last read after every save, so a long journal costs
its new lines, not all of them. Random appends of every kind of line the one reading rule
treats differently (this version, another version, no hash, another annotator, an unknown
item, garbage, a crash's partial last line) must leave the continued read equal to a read
from the start, field by field.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from campaign import journal

SHA = "a" * 64
ITEMS = ["J1", "J2", "J3"]


def fields(read: journal.StreamRead) -> dict[str, Any]:
    return {
        "latest": read.latest,
        "lines": read.lines,
        "unparsable": read.unparsable_lines,
        "other": read.other_packet_lines,
        "unknown": read.unknown_items,
    }


def append_one(path: Path, rng: random.Random) -> None:
    kind = rng.choice(["ok", "ok", "ok", "old", "nohash", "other", "unknown", "garbage"])
    if kind == "garbage":
        with path.open("ab") as fh:
            fh.write(b'{"not": "a line"\n' if rng.random() < 0.5 else b"[1, 2]\n")
        return
    record: dict[str, Any] = {
        "annotator": "other" if kind == "other" else "ann",
        "item_id": "J9" if kind == "unknown" else rng.choice(ITEMS),
        "conditions": {"C1": {"answer": rng.choice(["yes", "no"])}},
    }
    if kind != "nohash":
        record["packet_sha256"] = "b" * 64 if kind == "old" else SHA
    journal.append(path, record)


def test_a_continued_read_equals_a_full_read(tmp_path: Path) -> None:
    rng = random.Random(20)
    continued = 0
    for trial in range(40):
        path = tmp_path / f"j{trial}" / "ann.jsonl"
        path.parent.mkdir()
        read = journal.read_stream(path, SHA, ITEMS, "ann")
        for _ in range(rng.randint(1, 12)):
            for _ in range(rng.randint(0, 6)):
                append_one(path, rng)
            if rng.random() < 0.1:  # a crash leaves half a line
                with path.open("ab") as fh:
                    fh.write(b'{"seq": 99, "item_')
            full = journal.read_stream(path, SHA, ITEMS, "ann")
            before = read.cursor
            read = journal.read_stream(path, SHA, ITEMS, "ann", since=read)
            continued += before is not None and read.cursor is not None
            assert fields(read) == fields(full), trial
    assert continued > 50  # the continued path really ran, not only full reads


def test_a_replaced_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "ann.jsonl"
    for item in ITEMS:
        journal.append(path, {"annotator": "ann", "item_id": item, "packet_sha256": SHA})
    read = journal.read_stream(path, SHA, ITEMS, "ann")
    assert read.cursor is not None
    lines = path.read_bytes().splitlines(keepends=True)
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b"".join(lines[:1]))  # e.g. a migration writes a new file
    replacement.replace(path)
    again = journal.read_stream(path, SHA, ITEMS, "ann", since=read)
    assert set(again.latest) == {"J1"} and json.loads(lines[0])["item_id"] == "J1"
