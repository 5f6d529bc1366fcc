"""Hook to the agreement/integrity scorers (`scorers.audit_tables`).

Builds the scorers' inputs from the packet, admin key and journals through the
campaign I/O edge when that module exists; raises ImportError otherwise, and
the admin page then shows progress only.
"""

from __future__ import annotations

from typing import Any

from packet_builder.project import Project


def summary(project: Project, packet_id: str) -> dict[str, Any]:
    from packet_builder import campaign_io  # type: ignore[attr-defined]
    from scorers.audit_tables import audit_report

    packet, responses, raters = campaign_io.load_campaign(project, packet_id)
    return audit_report(packet, responses, raters)
