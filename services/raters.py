"""`evaudit raters`: the response streams of a packet and the raters chosen for its stage.

Without names it shows every stream (complete or not, with its counts) and the choice the
chain uses; with names it stores that choice (`campaign.raters`), which agreement,
integrity, repair, adjudicate, finalize and the challenge build then read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_chain.campaign_io import StreamStatus, load_packet_info, load_streams
from audit_chain.rater_choice import (
    RaterChoice,
    check_journals,
    describe_raters,
    parse_raters,
    pick_raters,
)
from campaign.project import Project
from campaign.raters import BY_COMMAND, store_raters, stored_raters
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError
from vocabulary.tables import table

_COLUMNS = ("stream", "complete", "items complete", "items saved", "chosen", "note")


@dataclass(frozen=True)
class StreamRow:
    """One response stream of the packet: its progress, whether the choice holds it, and the
    stream it duplicates (collapsed into that one)."""

    status: StreamStatus
    chosen: bool
    identical_to: str | None

    def to_json(self) -> dict[str, Any]:
        return {**self.status.to_json(), "chosen": self.chosen, "identical_to": self.identical_to}


@dataclass(frozen=True)
class RatersReport:
    """The streams of one packet and its rater choice (None: no choice yet, `note` says why)."""

    packet_id: str
    kind: str
    choice: RaterChoice | None
    note: str | None  # why there are no raters yet (None when there is a choice)
    streams: tuple[StreamRow, ...]  # by stream name
    duplicate_streams: tuple[tuple[str, ...], ...]  # identical streams, the kept one first
    replaced: tuple[str, ...] | None = None  # the earlier stored choice `raters NAMES` replaced

    @property
    def raters(self) -> list[str] | None:
        return self.choice.names if self.choice is not None else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"packet_id": self.packet_id, "kind": self.kind}
        if self.choice is not None:
            out.update(self.choice.to_json())
        else:
            out.update({"raters": None, "raters_chosen_by": None, "raters_stored": None})
        out["note"] = self.note
        out["streams"] = [s.to_json() for s in self.streams]
        out["duplicate_streams"] = [list(g) for g in self.duplicate_streams]
        if self.replaced is not None:
            out["replaced"] = list(self.replaced)
        return out

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "stream": s.status.name,
                "complete": "yes" if s.status.is_complete else "no",
                "items complete": f"{s.status.complete} of {s.status.items}",
                "items saved": s.status.saved,
                "chosen": "yes" if s.chosen else "",
                "note": f"identical to {s.identical_to}" if s.identical_to else "",
            }
            for s in self.streams
        ]

    def table(self) -> str:
        parts = [f"packet {self.packet_id} ({self.kind}): {len(self.streams)} stream(s)"]
        if self.streams:
            parts.append(table([[r[c] for c in _COLUMNS] for r in self.rows()], list(_COLUMNS)))
        if self.replaced:
            parts.append(f"replaced the earlier choice: {', '.join(self.replaced)}")
        if self.choice is not None and self.choice.names:
            # the table above already shows who is left out and which streams are identical
            line = {**self.choice.to_json(), "streams_left_out": [], "duplicate_streams": []}
            parts.append(describe_raters(line))
        else:
            parts.append(f"no raters yet: {self.note}")
        return "\n".join(parts)


def _report(
    project: Project, packet_name: str, remember: bool, replaced: list[str] | None = None
) -> RatersReport:
    packet = load_packet_info(project, packet_name)
    streams = load_streams(project, packet)
    dup_of = {n: g[0] for g in streams.duplicates for n in g[1:]}
    choice: RaterChoice | None
    try:
        choice = pick_raters(project, packet, streams, None, remember=remember)
        note = None
    except InputError as exc:
        choice, note = None, exc.render()
    chosen = set(choice.names if choice is not None else [])
    rows = tuple(
        StreamRow(streams.status[name], name in chosen, dup_of.get(name))
        for name in sorted(streams.status)
    )
    return RatersReport(
        packet_id=packet_name,
        kind=packet.kind,
        choice=choice,
        note=note,
        streams=rows,
        duplicate_streams=tuple(tuple(g) for g in streams.duplicates),
        replaced=tuple(replaced) if replaced is not None else None,
    )


def show_raters(project: ProjectRef, packet_name: str) -> RatersReport:
    """Every stream with its progress, and the raters the chain uses (nothing is written:
    an initial packet's two complete streams are stored by the first command that uses them)."""
    project = project_at(project)
    return _report(project, packet_name, remember=False)


def choose_raters(project: ProjectRef, packet_name: str, names_text: str) -> RatersReport:
    """Store NAMES as PACKET's raters (replacing an earlier choice), then show the streams."""
    project = project_at(project)
    packet = load_packet_info(project, packet_name)
    streams = load_streams(project, packet)
    names = parse_raters(names_text, "the rater list")
    check_journals(names, streams, packet_name)
    if len(names) < 2:
        raise InputError("name at least two raters, e.g. A,E")
    if packet.kind in ("initial", "") and len(names) != 2:
        raise InputError(
            f"packet {packet_name!r} is an initial packet: name exactly its two raters",
            hint="the repair policy compares two streams",
        )
    before = stored_raters(project, packet_name, packet.sha256)
    store_raters(project, packet_name, packet.sha256, names, BY_COMMAND)
    replaced = list(before.raters) if before is not None and list(before.raters) != names else None
    return _report(project, packet_name, remember=False, replaced=replaced)


def raters(project: ProjectRef, packet_name: str, names_text: str | None) -> RatersReport:
    """`evaudit raters`: with NAMES store them (`choose_raters`), else show (`show_raters`)."""
    project = project_at(project)
    if names_text:
        return choose_raters(project, packet_name, names_text)
    return show_raters(project, packet_name)
