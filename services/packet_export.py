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
    """What was written: the packet, its format and file, and the hashes of both."""

    packet: str
    format: str  # json | html
    out: str
    sha256: str  # the packet's own hash (as registered)
    bytes: int
    file_sha256: str  # the written file's hash

    def to_json(self) -> dict[str, Any]:
        return {
            "packet": self.packet,
            "format": self.format,
            "out": self.out,
            "sha256": self.sha256,
            "bytes": self.bytes,
            "file_sha256": self.file_sha256,
        }

    def table(self) -> str:
        return f"wrote {self.out} ({self.format}, packet sha256 {self.sha256})"


def export_packet(
    project: ProjectRef, name: str, out: Path, fmt: str = "json",
    annotator: str | None = None, html_builder: HtmlBuilder | None = None,
) -> ExportReport:  # fmt: skip
    """Write packet `name` to `out` (html: for `annotator`, checked for key values first)."""
    done = export(project_at(project), name, out, fmt, annotator, html_builder)
    return ExportReport(
        packet=done["packet"],
        format=done["format"],
        out=done["out"],
        sha256=done["sha256"],
        bytes=done["bytes"],
        file_sha256=done["file_sha256"],
    )
