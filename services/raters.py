"""`evaudit raters`: the response streams of a packet and the raters chosen for its stage.

Without names it shows every stream (complete or not, with its counts) and the choice the
chain uses; with names it stores that choice (`campaign.raters`), which agreement,
integrity, repair, adjudicate, finalize and the challenge build then read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_chain.campaign_io import load_packet_info, load_streams
from audit_chain.rater_choice import check_journals, describe_raters, parse_raters, pick_raters
from campaign.project import Project
from campaign.raters import BY_COMMAND, store_raters, stored_raters
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError
from vocabulary.tables import table

_COLUMNS = ("stream", "complete", "items complete", "items saved", "chosen", "note")


@dataclass(frozen=True)
class RatersReport:
    """The streams of one packet and its rater choice. `body` is the `--json` object."""

    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.body

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "stream": s["stream"],
                "complete": "yes" if s["complete"] else "no",
                "items complete": f"{s['items_complete']} of {s['items']}",
                "items saved": s["items_saved"],
                "chosen": "yes" if s["chosen"] else "",
                "note": f"identical to {s['identical_to']}" if s.get("identical_to") else "",
            }
            for s in self.body["streams"]
        ]

    def table(self) -> str:
        out = self.body
        parts = [f"packet {out['packet_id']} ({out['kind']}): {len(out['streams'])} stream(s)"]
        if out["streams"]:
            parts.append(table([[r[c] for c in _COLUMNS] for r in self.rows()], list(_COLUMNS)))
        if out.get("replaced"):
            parts.append(f"replaced the earlier choice: {', '.join(out['replaced'])}")
        if out["raters"]:
            parts.append(describe_raters({**out, "streams_left_out": [], "duplicate_streams": []}))
        else:
            parts.append(f"no raters yet: {out['note']}")
        return "\n".join(parts)


def _body(project: Project, packet_name: str, remember: bool) -> dict[str, Any]:
    packet = load_packet_info(project, packet_name)
    streams = load_streams(project, packet)
    dup_of = {n: g[0] for g in streams.duplicates for n in g[1:]}
    out: dict[str, Any] = {"packet_id": packet_name, "kind": packet.kind}
    try:
        choice = pick_raters(project, packet, streams, None, remember=remember)
        out.update(choice.to_json())
        out["note"] = None
    except InputError as exc:
        out.update({"raters": None, "raters_chosen_by": None, "raters_stored": None})
        out["note"] = exc.render()
    chosen = set(out["raters"] or [])
    out["streams"] = [
        {
            **streams.status[name].to_json(),
            "chosen": name in chosen,
            "identical_to": dup_of.get(name),
        }
        for name in sorted(streams.status)
    ]
    out["duplicate_streams"] = streams.duplicates
    return out


def show_raters(project: ProjectRef, packet_name: str) -> RatersReport:
    """Every stream with its progress, and the raters the chain uses (nothing is written:
    an initial packet's two complete streams are stored by the first command that uses them)."""
    project = project_at(project)
    return RatersReport(_body(project, packet_name, remember=False))


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
    out = _body(project, packet_name, remember=False)
    if before is not None and list(before.raters) != names:
        out["replaced"] = list(before.raters)
    return RatersReport(out)


def raters(project: ProjectRef, packet_name: str, names_text: str | None) -> RatersReport:
    """`evaudit raters`: with NAMES store them (`choose_raters`), else show (`show_raters`)."""
    project = project_at(project)
    if names_text:
        return choose_raters(project, packet_name, names_text)
    return show_raters(project, packet_name)
