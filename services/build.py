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

from audit_chain.challenge_qrels import challenge_qrels, describe
from audit_chain.queue_check import check_queue
from packet_builder.build import Announce, BuildResult, BuildSpec, ChainInputs, build
from packet_builder.packet_size import PacketPlan
from services.projects import ProjectRef, project_at
from vocabulary.progress import Progress, no_progress
from vocabulary.tables import table

__all__ = ["Announce", "BuildReport", "BuildSpec", "PacketPlan", "build_packet"]


@dataclass(frozen=True)
class BuildReport:
    """What was built: the registered packet row (None on a dry run), its sizes and the
    sampling summary, all held by the builder's result."""

    result: BuildResult

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def rows(self) -> list[dict[str, object]]:
        """The sampling summary (one row per stratum of an initial packet; else empty)."""
        return self.result.summary

    def table(self) -> str:
        res = self.result
        parts = []
        if self.rows():
            headers = list(self.rows()[0].keys())
            parts.append(table([list(r.values()) for r in self.rows()], headers))
        if sel := res.target_selection:
            parts.append(
                f"targets: {sel['targets_taken']} of {sel['targets_found']} "
                f"(--max-targets {sel['max_targets']}), by band of contrast reduction:"
            )
            cols = ["band", "targets", "taken", "reduction_max", "reduction_min"]
            parts.append(table([[r[c] for c in cols] for r in sel["bands"]], cols))
        if res.row is None:
            plan = res.plan
            parts.append((plan.line() if plan else "") + "\n--dry-run: nothing written")
            return "\n".join(parts)
        parts.append(
            f"built {res.name} ({res.kind}): {res.n_items} items, {res.conditions} "
            f"conditions, {res.page_contexts} page contexts\n"
            f"  packet {res.row.path} sha256 {res.row.sha256}\n  key    {res.row.key_path}"
        )
        return "\n".join(parts)


CHAIN = ChainInputs(check_queue, challenge_qrels, describe)


def build_packet(
    project: ProjectRef,
    spec: BuildSpec,
    progress: Progress = no_progress,
    announce: Announce | None = None,
    dry_run: bool = False,
) -> BuildReport:
    """Build and register packet `spec.name`; writes nothing on any error, leak, a packet
    over `spec.max_packet_mb`, or with `dry_run`. `announce` sees the packet's size and
    expected annotation time before anything is written."""
    project = project_at(project)
    result = build(project, spec, CHAIN, progress, announce, dry_run)
    return BuildReport(result)
