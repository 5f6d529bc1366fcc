"""`evaudit agreement stats`: agreement of any ratings table (plain inputs, no project)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packet_builder.campaign_io import read_ratings_csv
from scorers.agreement import ratings_summary
from services.report import num
from vocabulary.tables import table


@dataclass(frozen=True)
class RatingsReport:
    """Krippendorff's alpha, Fleiss' kappa and (two raters) Cohen's kappa, AC1, Wilson CI.
    `body` is the released `--json` object."""

    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.body

    def rows(self) -> list[tuple[str, str]]:
        """(statistic, value) as printed; an undefined statistic reads n/a."""
        out = self.body
        alpha = out["krippendorff_alpha"]
        rows = [
            ("units / raters", f"{out['n_units']} / {out['n_raters']}"),
            ("Krippendorff alpha nominal", num(alpha["nominal"])),
            ("Krippendorff alpha ordinal", num(alpha["ordinal"])),
            ("Krippendorff alpha interval", num(alpha["interval"])),
            (f"Fleiss kappa ({out['fleiss_units']} units)", num(out["fleiss_kappa"])),
        ]
        if "cohen_kappa" in out:
            lo, hi = out["wilson95"]
            agree = f"{100 * out['percent_agreement']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
            rows += [
                ("percent agreement", agree),
                ("Cohen kappa", num(out["cohen_kappa"])),
                ("Cohen kappa linear", num(out["cohen_kappa_linear"])),
                ("Cohen kappa quadratic", num(out["cohen_kappa_quadratic"])),
                ("Gwet AC1", num(out["gwet_ac1"])),
            ]
        return rows

    def table(self) -> str:
        return table([list(r) for r in self.rows()], ["statistic", "value"])


def ratings_stats(ratings: Path) -> RatingsReport:
    """The agreement statistics of a `unit,rater,value` CSV."""
    return RatingsReport(ratings_summary(read_ratings_csv(ratings)))
