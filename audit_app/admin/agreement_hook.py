"""Hook to the agreement and integrity services for the admin page.

Calls the same services `evaudit agreement audit` and `evaudit integrity` call
(`services.agreement`, `services.integrity`) and keeps their report objects, so the
page's tables are the reports' `rows()`: exactly what the CLI prints for the same
project. No statistics are computed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from campaign.project import Project
from services.agreement import AgreementReport, agreement_audit
from services.integrity import IntegrityReport, integrity
from vocabulary.errors import InputError


@dataclass(frozen=True)
class Summary:
    """What the admin page shows for one packet; `None` parts say why in `notes`."""

    agreement: AgreementReport | None  # `agreement audit` (all collapsed streams)
    integrity: IntegrityReport | None  # `integrity`
    notes: tuple[str, ...]


def summary(project: Project, packet_id: str, raters: str | None = None) -> Summary:
    """Live agreement and integrity figures of one packet, read from the journals now.

    A packet with fewer than two response streams has no agreement yet: that is a
    note, not an error (the integrity part is still shown).
    """
    notes: list[str] = []
    agreement: AgreementReport | None = None
    integ: IntegrityReport | None = None
    try:
        integ = integrity(project, packet_id)
    except InputError as exc:
        notes.append(f"integrity: {exc.render()}")
    try:
        # A page view never stores a rater choice (`remember=False`): the CLI chain does.
        agreement = agreement_audit(project, packet_id, raters, remember=False)
    except InputError as exc:
        notes.append(f"agreement: {exc.render()}")
    return Summary(agreement, integ, tuple(notes))
