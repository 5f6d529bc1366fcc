"""`evaudit integrity` and the admin page's integrity table: one use case, one report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_chain.campaign_io import load_packet_info, load_streams
from audit_chain.rater_choice import describe_raters, pick_raters
from scorers.integrity import integrity_report
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
    """Per response stream: positives, pages, exact quotes, errors. `body` is `--json`."""

    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return bool(self.body["ok"])

    def to_json(self) -> dict[str, Any]:
        return self.body

    def rows(self) -> list[dict[str, Any]]:
        """One dict per stream, every figure of the report (quotes as count and total)."""
        out = []
        for name, s in self.body["streams"].items():
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
        streams = ", ".join(self.body.get("streams_after_collapse") or self.body["streams"])
        if self.ok:
            return (
                "Integrity ok: no structural or page-pool errors, every quote is exact "
                f"(streams after collapsing duplicates: {streams})."
            )
        wrong = []
        for name, s in self.body["streams"].items():
            parts = [
                f"{s[key]} {label}"
                for key, label in (
                    ("structural_errors", "structural errors"),
                    ("page_pool_errors", "page-pool errors"),
                )
                if s.get(key)
            ]
            q = s.get("quotes_exact") or {}
            if q.get("count") != q.get("total"):
                parts.append(f"{q.get('total', 0) - q.get('count', 0)} quotes not exact")
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
        for group in self.body["duplicate_streams"]:
            parts.append(f"duplicate streams (collapsed to {group[0]}): {', '.join(group)}")
        for st in self.body.get("incomplete_streams") or []:
            parts.append(
                f"incomplete stream {st['stream']}: {st['items_complete']} of {st['items']} "
                f"items complete ({st['items_saved']} saved); it counts only if chosen"
            )
        if self.body.get("raters"):
            parts.append(describe_raters({**self.body, "duplicate_streams": []}))
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
    out = integrity_report(packet, streams.all_responses, streams.read_problems, streams.duplicates)
    for name, row in out["streams"].items():
        row["complete"] = streams.status[name].is_complete
    try:
        choice = pick_raters(project, packet, streams, None, remember=False)
        out.update(choice.to_json())
    except InputError as exc:  # no choice yet: the per-stream figures still stand
        out.update({"raters": None, "raters_note": exc.render()})
    out["incomplete_streams"] = [
        st.to_json() for name, st in sorted(streams.status.items()) if not st.is_complete
    ]
    return IntegrityReport(out)
