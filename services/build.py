"""`evaudit packet build`: build a blinded packet and its admin key, one service and report.

The builder (`packet_builder.build`) selects the pairs, routes the candidate pages, blinds,
checks for leaks and registers both files; this service runs it with the injected progress
and returns the report the CLI prints (`to_json()` under --json, `table()` otherwise).
`BuildSpec` is re-exported so that a front end names the packet's parameters without
reaching into the builder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.project import Project
from packet_builder.build import BuildResult, BuildSpec, build
from vocabulary.progress import Progress, no_progress
from vocabulary.tables import table

__all__ = ["BuildReport", "BuildSpec", "build_packet"]


@dataclass(frozen=True)
class BuildReport:
    """What was built: the registered packet row, its sizes and the sampling summary.
    `body` is `--json` (computed once from the build's result)."""

    result: BuildResult
    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.body

    def rows(self) -> list[dict[str, object]]:
        """The sampling summary (one row per stratum of an initial packet; else empty)."""
        return self.result.summary

    def table(self) -> str:
        b = self.body
        parts = []
        if self.rows():
            headers = list(self.rows()[0].keys())
            parts.append(table([list(r.values()) for r in self.rows()], headers))
        parts.append(
            f"built {b['name']} ({b['kind']}): {b['n_items']} items, {b['conditions']} "
            f"conditions, {b['page_contexts']} page contexts\n"
            f"  packet {b['path']} sha256 {b['sha256']}\n  key    {b['key_path']}"
        )
        return "\n".join(parts)


def build_packet(
    project: Project, spec: BuildSpec, progress: Progress = no_progress
) -> BuildReport:
    """Build and register packet `spec.name`; writes nothing on any error or leak."""
    result = build(project, spec, progress)
    return BuildReport(result, result.to_json())
