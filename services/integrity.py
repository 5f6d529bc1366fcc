"""`evaudit integrity` and the admin page's integrity table: one use case, one report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_chain.campaign_io import StreamStatus, load_packet_info, load_streams
from audit_chain.rater_choice import RaterChoice, describe_raters, pick_raters
from scorers.integrity import IntegrityTable, StreamCounts, integrity_report
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError
from vocabulary.tables import table

# (row key, CLI column header) of the text table, in order.
_COLUMNS = (
    ("stream", "stream"),
    ("positives", "positive"),
    ("negatives", "negative"),
    ("selected_pages", "pages"),
    ("quotes exact", "quotes exact"),
    ("structural_errors", "structural"),
    ("page_pool_errors", "page-pool"),
)


@dataclass(frozen=True)
class IntegrityReport:
    """Per response stream: positives, pages, exact quotes, errors; each stream's progress,
    and the raters the chain uses for the packet when they are known."""

    figures: IntegrityTable
    complete: dict[str, bool]  # by stream: every item answered in full
    choice: RaterChoice | None  # None: no choice yet (`raters_note` says why)
    raters_note: str | None
    incomplete_streams: list[StreamStatus]

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> IntegrityReport:
        """A report from its released `--json` object (the admin page's saved figures);
        what the object lacks reads empty."""
        streams = {n: StreamCounts.from_json(row) for n, row in obj["streams"].items()}
        figures = IntegrityTable(
            str(obj.get("packet_id", "")),
            str(obj.get("kind", "")),
            int(obj.get("items", 0)),
            int(obj.get("conditions", 0)),
            streams,
            [list(g) for g in obj.get("duplicate_streams") or []],
            list(obj.get("streams_after_collapse") or []),
        )
        choice = None
        if obj.get("raters"):
            choice = RaterChoice(
                list(obj["raters"]),
                obj["raters_chosen_by"],
                list(obj.get("raters_without_answers") or []),
                list(obj.get("streams_left_out") or []),
                obj.get("raters_stored"),
            )
        complete = {n: bool(row.get("complete")) for n, row in obj["streams"].items()}
        incomplete = [
            StreamStatus(st["stream"], st["items"], st["items_saved"], st["items_complete"])
            for st in obj.get("incomplete_streams") or []
        ]
        return cls(figures, complete, choice, obj.get("raters_note"), incomplete)

    @property
    def ok(self) -> bool:
        return self.figures.ok

    def to_json(self) -> dict[str, Any]:
        """The released `--json` object, key for key."""
        out = self.figures.to_json()
        for name, row in out["streams"].items():
            row["complete"] = self.complete[name]
        if self.choice is not None:
            out.update(self.choice.to_json())
        else:
            out.update({"raters": None, "raters_note": self.raters_note})
        out["incomplete_streams"] = [st.to_json() for st in self.incomplete_streams]
        return out

    def rows(self) -> list[dict[str, Any]]:
        """One dict per stream, every figure of the report (quotes as count and total)."""
        out = []
        for name, s in self.to_json()["streams"].items():
            row: dict[str, Any] = {"stream": name}
            for key, value in s.items():
                if key == "quotes_exact":
                    row["quotes exact"] = value["count"]
                    row["quotes total"] = value["total"]
                else:
                    row[key] = value
            out.append(row)
        return out

    def line(self) -> str:
        """One sentence that says ok or names what is wrong (never 'problems found (none)')."""
        fig = self.figures
        streams = ", ".join(fig.streams_after_collapse or fig.streams)
        if self.ok:
            return (
                "Integrity ok: no structural or page-pool errors, every quote is exact "
                f"(streams after collapsing duplicates: {streams})."
            )
        wrong = []
        for name, s in fig.streams.items():
            parts = [
                f"{count} {label}"
                for count, label in (
                    (s.structural_errors, "structural errors"),
                    (s.page_pool_errors, "page-pool errors"),
                )
                if count
            ]
            if s.quotes_exact != s.quotes_total:
                parts.append(f"{s.quotes_total - s.quotes_exact} quotes not exact")
            if parts:
                wrong.append(f"{name}: {', '.join(parts)}")
        return "Integrity problems: " + ("; ".join(wrong) or "see the table") + "."

    def table(self) -> str:
        cells = [
            [
                f"{r['quotes exact']}/{r['quotes total']}" if key == "quotes exact" else r[key]
                for key, _ in _COLUMNS
            ]
            for r in self.rows()
        ]
        parts = [table(cells, [head for _, head in _COLUMNS])]
        for group in self.figures.duplicate_streams:
            parts.append(f"duplicate streams (collapsed to {group[0]}): {', '.join(group)}")
        for st in self.incomplete_streams:
            parts.append(
                f"incomplete stream {st.name}: {st.complete} of {st.items} "
                f"items complete ({st.saved} saved); it counts only if chosen"
            )
        if self.choice is not None and self.choice.names:
            parts.append(describe_raters({**self.choice.to_json(), "duplicate_streams": []}))
        if self.ok:
            parts.append("ok: no structural or page-pool error, every quote exact")
        else:
            parts.append("problems found: see the structural, page-pool and quotes columns")
        return "\n".join(parts)


def integrity(project: ProjectRef, packet_name: str) -> IntegrityReport:
    """Every stream's figures (whatever the rater choice), each stream's progress, and the
    raters the chain uses for the packet when they are known (`raters`, else null)."""
    project = project_at(project)
    packet = load_packet_info(project, packet_name)
    streams = load_streams(project, packet)
    figures = integrity_report(
        packet, streams.all_responses, streams.read_problems, streams.duplicates
    )
    complete = {name: streams.status[name].is_complete for name in figures.streams}
    choice, note = None, None
    try:
        choice = pick_raters(project, packet, streams, None, remember=False)
    except InputError as exc:  # no choice yet: the per-stream figures still stand
        note = exc.render()
    incomplete = [st for _name, st in sorted(streams.status.items()) if not st.is_complete]
    return IntegrityReport(figures, complete, choice, note, incomplete)
