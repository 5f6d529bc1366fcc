"""`evaudit packet export`: write a packet (never its admin key) as JSON or offline HTML.

The export is `packet_builder.packets.export`; the offline page builder is passed in by
the front end that owns it (`audit_app.offline.build_offline_html`), as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packet_builder.packets import HtmlBuilder, export
from services.projects import ProjectRef, project_at


@dataclass(frozen=True)
class ExportReport:
    """What was written: `body` is the released `--json` object."""

    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.body

    def table(self) -> str:
        b = self.body
        return f"wrote {b['out']} ({b['format']}, packet sha256 {b['sha256']})"


def export_packet(
    project: ProjectRef, name: str, out: Path, fmt: str = "json",
    annotator: str | None = None, html_builder: HtmlBuilder | None = None,
) -> ExportReport:  # fmt: skip
    """Write packet `name` to `out` (html: for `annotator`, checked for key values first)."""
    return ExportReport(export(project_at(project), name, out, fmt, annotator, html_builder))
