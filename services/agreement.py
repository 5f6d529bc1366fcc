"""`evaudit agreement audit` and the admin page's agreement table: one use case, one report.

The figures are the pure `scorers.audit_tables.audit_report` of the packet's journals
(read once through `campaign_io`); `AgreementReport` says how they read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_chain.campaign_io import load_packet_info, load_streams
from audit_chain.rater_choice import describe_raters, pick_raters
from scorers.audit_tables import audit_report
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


@dataclass(frozen=True)
class AgreementReport:
    """The audit table of one packet. `body` is the released `--json` object, key for key."""

    body: dict[str, Any]

    @property
    def raters(self) -> list[str]:
        return list(self.body["raters"])

    @property
    def confusion(self) -> list[list[int]] | None:
        return self.body.get("confusion")

    @property
    def duplicate_streams(self) -> list[list[str]]:
        return list(self.body.get("duplicate_streams") or [])

    def to_json(self) -> dict[str, Any]:
        return self.body

    def stats(self) -> list[Stat]:
        out = self.body
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

    columns = STAT_COLUMNS

    def rows(self) -> list[dict[str, Any]]:
        """The admin page's table: one dict per statistic, numbers as they are."""
        return [s.cells() for s in self.stats()]

    def raters_line(self) -> str:
        return describe_raters(self.body)

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
    out = audit_report(packet, streams.all_responses, choice.names)
    out.update(choice.to_json())
    out["duplicate_streams"] = streams.duplicates
    return AgreementReport(out)
