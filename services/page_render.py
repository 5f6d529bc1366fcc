"""`evaudit packet render`: render every page image a packet shows, ahead of the campaign."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from campaign.image_cache import CACHE_DIR
from packet_builder.page_images import DPI, RenderResult, render_packet
from services.projects import ProjectRef, project_at
from vocabulary.progress import Progress, no_progress
from vocabulary.tables import table


@dataclass(frozen=True)
class RenderReport:
    result: RenderResult
    cache: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self.result) | {"cache": self.cache}

    def rows(self) -> list[dict[str, object]]:
        r = self.result
        return [{"packet": r.packet, "pages": r.pages, "rendered": r.rendered,
                 "already cached": r.cached, "no PDF": r.missing,
                 "MB written": f"{r.bytes_written / 1e6:.1f}"}]  # fmt: skip

    def table(self) -> str:
        rows = self.rows()
        return (table([list(r.values()) for r in rows], list(rows[0]))
                + f"\nimage cache: {self.cache}")  # fmt: skip


def render_packet_images(
    project: ProjectRef, packet_id: str, *, workers: int | None = None,
    progress: Progress = no_progress,
) -> RenderReport:  # fmt: skip
    """Fill the project's image cache with every page of `packet_id` (an unknown packet
    is a one-line error naming its admin key)."""
    project = project_at(project)
    result = render_packet(project, packet_id, workers=workers, dpi=DPI, progress=progress)
    return RenderReport(result, str(project.root / CACHE_DIR))
