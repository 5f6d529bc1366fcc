"""`evaudit packet check`: scan a packet for admin-key values (`packet_builder.leaks`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packet_builder.leaks import LeakReport
from packet_builder.packets import check
from services.projects import ProjectRef, project_at


@dataclass(frozen=True)
class LeakCheckReport:
    result: LeakReport

    @property
    def leaks(self) -> list[dict[str, str]]:
        return self.result.leaks

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        r = self.result
        lines = [f"LEAK {x['kind']} {x['value']!r} at {x['where']}" for x in r.leaks]
        lines.append(f"{len(r.leaks)} leaks in {r.checked_strings} strings")
        return "\n".join(lines)


def check_leaks(project: ProjectRef, name: str) -> LeakCheckReport:
    """Every admin-key value found in packet `name` (none: the packet is blind)."""
    return LeakCheckReport(check(project_at(project), name))
