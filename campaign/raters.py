"""The raters chosen per packet, `decisions/raters.json` (docs/formats.md, "Rater choices").

A stage's raters are chosen once and remembered: by `evaudit raters DIR PACKET A,B`, by
the first rater flag a command is given, or (an initial packet) by the first command that
finds exactly two complete streams. Every later command of the chain reads the choice, so
`repair plan`, `adjudicate`, `finalize` and the challenge build agree on who voted. A
choice belongs to one version of its packet (`packet_sha256`); a rebuilt packet has none.
The file is rewritten whole, atomically, under an exclusive lock.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign.project import Project, open_private, write_json_atomic
from vocabulary.errors import InputError
from vocabulary.jsonread import json_document

RATERS_FORMAT = "evaudit-raters"

# How a stored choice was made (the `chosen_by` field).
BY_COMMAND = "evaudit raters"
BY_FLAG = "a rater flag"
BY_TWO_COMPLETE = "the two complete streams"


@dataclass(frozen=True)
class StoredRaters:
    packet: str
    packet_sha256: str
    raters: tuple[str, ...]
    chosen_by: str  # BY_COMMAND, BY_FLAG or BY_TWO_COMPLETE

    def to_json(self) -> dict[str, Any]:
        return {
            "packet_sha256": self.packet_sha256,
            "raters": list(self.raters),
            "chosen_by": self.chosen_by,
        }


def raters_path(project: Project) -> Path:
    return project.decisions_dir / "raters.json"


def read_choices(project: Project) -> dict[str, StoredRaters]:
    """packet name -> its stored choice; a malformed file is an InputError naming it."""
    path = raters_path(project)
    if not path.is_file():
        return {}
    obj = json_document(
        path.read_text(encoding="utf-8"),
        "corrupt rater choices",
        path,
        hint="fix the file or delete it and choose again with `evaudit raters`",
    )
    packets = obj.get("packets") if isinstance(obj, dict) else None
    if (
        not isinstance(obj, dict)
        or obj.get("format") != RATERS_FORMAT
        or not isinstance(packets, dict)
    ):
        raise InputError(
            f"not an {RATERS_FORMAT} file (format, packets)",
            file=path,
            hint="delete it and choose again with `evaudit raters`",
        )
    out: dict[str, StoredRaters] = {}
    for name, entry in packets.items():
        raters = entry.get("raters") if isinstance(entry, dict) else None
        if not isinstance(raters, list) or not all(isinstance(r, str) for r in raters):
            raise InputError(
                f"packet {name!r}: 'raters' must be a list of stream names",
                file=path,
                hint="delete the entry and choose again with `evaudit raters`",
            )
        out[str(name)] = StoredRaters(
            str(name),
            str(entry.get("packet_sha256", "")),
            tuple(raters),
            str(entry.get("chosen_by", BY_COMMAND)),
        )
    return out


def stored_raters(project: Project, packet: str, packet_sha256: str) -> StoredRaters | None:
    """The choice stored for this version of PACKET, or None."""
    found = read_choices(project).get(packet)
    return found if found is not None and found.packet_sha256 == packet_sha256 else None


def store_raters(
    project: Project, packet: str, packet_sha256: str, raters: list[str], chosen_by: str
) -> StoredRaters:
    """Record (or replace) PACKET's choice; the file is rewritten atomically under a lock."""
    choice = StoredRaters(packet, packet_sha256, tuple(raters), chosen_by)
    fd = open_private(project.decisions_dir / ".raters.lock", os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        current = read_choices(project)
        current[packet] = choice
        write_json_atomic(
            raters_path(project),
            {
                "format": RATERS_FORMAT,
                "version": 1,
                "packets": {name: c.to_json() for name, c in sorted(current.items())},
            },
        )
    finally:
        os.close(fd)  # closing releases the lock
    return choice
