"""`evaudit packet list`: the registered packets, oldest first (`campaign.packets`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packet_builder.packets import PacketRow, list_packets
from services.projects import ProjectRef, project_at
from vocabulary.tables import table


@dataclass(frozen=True)
class PacketListReport:
    packets: list[PacketRow]

    def to_json(self) -> dict[str, Any]:
        return {"packets": [r.to_json() for r in self.packets]}

    def rows(self) -> list[list[object]]:
        """One row per packet; the SHA-256 shortened to its first 16 digits."""
        return [[r.name, r.kind, r.n_items, r.sha256[:16], r.created_at] for r in self.packets]

    def table(self) -> str:
        return table(self.rows(), ["name", "kind", "items", "sha256", "created"])


def packet_list(project: ProjectRef) -> PacketListReport:
    return PacketListReport(list_packets(project_at(project)))
