"""`evaudit packet stats` and `packet recall`: a packet's candidate pool, in figures
(the composition is the typed `PoolStats`, with its own `to_json` and `table`).

The statistics are `packet_builder.pool_stats` (composition from the admin key; the
held-out recall rebuilds the pool without the selected and construction routes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.packets import read_admin_key
from packet_builder.packets import packet_row
from packet_builder.pool_stats import PoolStats, RecallResult, held_out_recall, pool_stats
from services.projects import ProjectRef, project_at
from vocabulary.tables import table


def packet_pool_stats(project: ProjectRef, name: str) -> PoolStats:
    """Pool composition of packet `name` (an unknown packet is the registry's error)."""
    opened = project_at(project)
    packet_row(opened, name)
    return pool_stats(read_admin_key(opened, name))


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
