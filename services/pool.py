"""`evaudit packet stats` and `packet recall`: a packet's candidate pool, in figures.

The statistics are `packet_builder.pool_stats` (composition from the admin key; the
held-out recall rebuilds the pool without the selected and construction routes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.packets import read_admin_key
from packet_builder.packets import packet_row
from packet_builder.pool_stats import RecallResult, held_out_recall, pool_stats
from services.projects import ProjectRef, project_at
from vocabulary.tables import table


@dataclass(frozen=True)
class PoolStatsReport:
    """Pool composition; `body` is the released `--json` object."""

    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.body

    def rows(self) -> list[list[object]]:
        s = self.body
        ppc = s["pages_per_condition"]
        return [
            ["Pairs / conditions", f"{s['pairs']} / {s['conditions']}"],
            ["Displayed page contexts", s["page_contexts"]],
            [
                "Pages per condition (min / mean / max)",
                f"{ppc['min']} / {ppc['mean']:.2f} / {ppc['max']}",
            ],
        ] + [[f"{r} memberships", n] for r, n in s["route_memberships"].items()]

    def table(self) -> str:
        return table(self.rows(), ["Candidate-pool statistic", "Count"])


def packet_pool_stats(project: ProjectRef, name: str) -> PoolStatsReport:
    """Pool composition of packet `name` (an unknown packet is the registry's error)."""
    opened = project_at(project)
    packet_row(opened, name)
    return PoolStatsReport(pool_stats(read_admin_key(opened, name)))


@dataclass(frozen=True)
class RecallReport:
    result: RecallResult

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        return table([[k, v] for k, v in self.to_json().items()], ["held-out check", "count"])


def packet_recall(project: ProjectRef, name: str, scope: str = "locked") -> RecallReport:
    """Known positive pages recovered without the selected/construction routes."""
    return RecallReport(held_out_recall(project_at(project), name, scope))
