"""Hook to the agreement/integrity scorers for the admin page.

Calls the same library functions `evaudit agreement audit` and `evaudit
integrity` call (`packet_builder.audit_ops`: the campaign I/O edge, then the
pure `scorers.audit_tables` / `scorers.integrity`), so the page shows exactly
what the CLI prints for the same project. No statistics are computed here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.project import Project
from vocabulary.errors import InputError


@dataclass(frozen=True)
class Summary:
    """What the admin page shows for one packet; `None` parts say why in `notes`."""

    agreement: dict[str, Any] | None  # `agreement audit --json` (all collapsed streams)
    integrity: dict[str, Any] | None  # `integrity --json`
    notes: tuple[str, ...]


def summary(project: Project, packet_id: str, raters: str | None = None) -> Summary:
    """Live agreement and integrity figures of one packet, read from the journals now.

    A packet with fewer than two response streams has no agreement yet: that is a
    note, not an error (the integrity part is still shown).
    """
    from packet_builder.audit_ops import agreement_audit, integrity

    notes: list[str] = []
    agreement: dict[str, Any] | None = None
    integ: dict[str, Any] | None = None
    try:
        integ = integrity(project.root, packet_id)
    except InputError as exc:
        notes.append(f"integrity: {exc.render()}")
    try:
        agreement = agreement_audit(project.root, packet_id, raters)
    except InputError as exc:
        notes.append(f"agreement: {exc.render()}")
    return Summary(agreement, integ, tuple(notes))
