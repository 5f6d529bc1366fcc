"""`evaudit agreement audit` and the admin page's agreement table: one use case, one report.

The figures are the pure `scorers.audit_tables.audit_report` of the packet's journals
(read once through `campaign_io`); `AgreementReport` says how they read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from audit_chain.campaign_io import load_packet_info, load_streams
from audit_chain.rater_choice import RaterChoice, describe_raters, pick_raters
from scorers.audit_tables import AuditTable, TwoRaterFigures, audit_report
from services.projects import ProjectRef, project_at
from services.report import STAT_COLUMNS, Stat
from vocabulary.tables import table

# (label, report key) in the table's order; a row is shown when the report has its key
# (two raters: grade and page-set figures; three or more: unanimous and Fleiss figures).
_ROWS: tuple[tuple[str, str], ...] = (
    ("exact derived-grade agreement", "exact_grade_agreement"),
    ("linearly weighted grade kappa", "grade_kappa_linear"),
    ("condition support agreement", "condition_agreement"),
    ("condition kappa", "condition_kappa"),
    ("page-set agreement", "page_set_agreement"),
    ("unanimous conditions", "unanimous"),
    ("positive votes", "positive_votes"),
    ("Fleiss kappa (support)", "fleiss_kappa"),
)
_TAIL: tuple[tuple[str, str], ...] = (
    ("quotes passing exact check", "quotes_exact"),
    ("judged clear by all", "clear_by_all"),
)


def stat_rows(out: Mapping[str, Any]) -> list[Stat]:
    """The statistics of an `agreement audit` JSON object, in the table's order: a row
    for each figure the object has (the admin page reads saved objects through it too)."""
    rows = [Stat("pairs / conditions", out["pairs"], out["conditions"])]
    if "incomplete_pairs" in out:
        rows.append(
            Stat(
                "incomplete pairs (not finished by every rater)",
                out["incomplete_pairs"],
                out["items_in_packet"],
                joiner=" of ",
            )
        )
    for label, key in _ROWS:
        if key not in out:
            continue
        v = out[key]
        rows.append(Stat.of(label, v) if isinstance(v, dict) else Stat(label, value=v))
    for pair, p in (out.get("pairwise_agreement") or {}).items():
        # each pair over the items both completed: say how many
        rows.append(Stat.of(f"agreement {pair} ({p['items']} items)", p, p.get("kappa")))
    rows += [Stat.of(label, out[key]) for label, key in _TAIL if key in out]
    return rows


@dataclass(frozen=True)
class AgreementReport:
    """The audit table of one packet (`scorers.audit_tables.AuditTable`), the raters it
    counts and why, and the identical streams collapsed before counting."""

    audit: AuditTable
    choice: RaterChoice
    duplicate_streams: list[list[str]]

    @property
    def raters(self) -> list[str]:
        return list(self.choice.names)

    @property
    def confusion(self) -> list[list[int]] | None:
        fig = self.audit.figures
        return fig.confusion if isinstance(fig, TwoRaterFigures) else None

    def to_json(self) -> dict[str, Any]:
        """The released `--json` object, key for key (the choice's `raters` keeps its place)."""
        out = self.audit.to_json()
        out.update(self.choice.to_json())
        out["duplicate_streams"] = self.duplicate_streams
        return out

    def stats(self) -> list[Stat]:
        return stat_rows(self.to_json())

    columns = STAT_COLUMNS

    def rows(self) -> list[dict[str, Any]]:
        """The admin page's table: one dict per statistic, numbers as they are."""
        return [s.cells() for s in self.stats()]

    @staticmethod
    def rows_of(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
        """`rows()` of a saved `--json` object (the admin page's figures)."""
        return [s.cells() for s in stat_rows(obj)]

    def raters_line(self) -> str:
        return describe_raters(
            {**self.choice.to_json(), "duplicate_streams": self.duplicate_streams}
        )

    def table(self) -> str:
        """The CLI's text: which raters, the statistics, the grade confusion (two raters)."""
        parts = [
            self.raters_line(),
            table([[s.label, s.text()] for s in self.stats()], ["statistic", "result"]),
        ]
        mat = self.confusion
        if mat is not None:
            r1, r2 = self.raters
            parts.append(f"\ngrade confusion (rows: {r1}, columns: {r2})")
            parts.append(
                table([[g, *r] for g, r in enumerate(mat)], ["", *map(str, range(len(mat)))])
            )
        return "\n".join(parts)


def agreement_audit(
    project: ProjectRef, packet_name: str, raters: str | None, remember: bool = True
) -> AgreementReport:
    """The audit table of PACKET from its journals now (`raters`: the `--raters` option;
    default: the stored choice, else the complete streams). `remember` False (the admin
    page) never stores a choice and shows named raters as a view."""
    project = project_at(project)
    packet = load_packet_info(project, packet_name)
    streams = load_streams(project, packet)
    choice = pick_raters(project, packet, streams, raters, remember=remember)
    audit = audit_report(packet, streams.all_responses, choice.names)
    return AgreementReport(audit, choice, streams.duplicates)
