"""`evaudit agreement stats`: agreement of any ratings table (plain inputs, no project)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_chain.campaign_io import read_ratings_csv
from formats.classic import guideline_labels
from scorers.agreement import RatingsSummary, ratings_summary
from services.report import num
from vocabulary.errors import InputError
from vocabulary.tables import table


def _ordinal_label(summary: RatingsSummary) -> str:
    if summary.order is not None:
        return f"Krippendorff alpha ordinal ({' < '.join(map(str, summary.order))})"
    return "Krippendorff alpha ordinal" + (
        "" if summary.numeric else " (labels in alphabetical order)"
    )


@dataclass(frozen=True)
class RatingsReport:
    """Krippendorff's alpha, Fleiss' kappa and (two raters) Cohen's kappa, AC1, Wilson CI
    of one ratings table (`scorers.agreement.RatingsSummary`)."""

    summary: RatingsSummary

    def to_json(self) -> dict[str, Any]:
        """The released `--json` object, key for key."""
        return self.summary.to_json()

    def rows(self) -> list[tuple[str, str]]:
        """(statistic, value) as printed; an undefined statistic reads n/a."""
        s = self.summary
        rows = [
            ("units / raters", f"{s.n_units} / {s.n_raters}"),
            ("Krippendorff alpha nominal", num(s.alpha.nominal)),
            (_ordinal_label(s), num(s.alpha.ordinal)),
            ("Krippendorff alpha interval", num(s.alpha.interval)),
            (f"Fleiss kappa ({s.fleiss_units} units)", num(s.fleiss_kappa)),
        ]
        two = s.two_raters
        if two is not None:
            lo, hi = two.wilson95
            agree = f"{100 * two.percent_agreement:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
            rows += [
                ("percent agreement", agree),
                ("Cohen kappa", num(two.cohen_kappa)),
                ("Cohen kappa linear", num(two.cohen_kappa_linear)),
                ("Cohen kappa quadratic", num(two.cohen_kappa_quadratic)),
                ("Gwet AC1", num(two.gwet_ac1)),
            ]
        return rows

    def table(self) -> str:
        return table([list(r) for r in self.rows()], ["statistic", "value"])


def _label_order(
    rows: list[tuple[Hashable, Hashable, Hashable]],
    labels: list[str],
    ratings: Path,
    source: str,
    where: Path | None,
) -> list[Hashable]:
    """The declared order in the table's own value type, checked against its values."""
    if len(set(labels)) != len(labels):
        twice = next(x for x in labels if labels.count(x) > 1)
        raise InputError(f"{source} names {twice!r} twice", file=where, hint="name each label once")
    numeric = all(isinstance(v, int) for _u, _r, v in rows)
    order: list[Hashable] = list(labels)
    if numeric:
        try:
            order = [int(x) for x in labels]
        except ValueError:
            raise InputError(
                f"{source} names labels, but every value of the ratings is an integer",
                file=where,
                hint=f"order the integers, e.g. {','.join(str(v) for v in sorted({int(str(v)) for *_x, v in rows}))}",
            ) from None
    known = set(order)
    for _u, _r, v in rows:
        if v not in known:
            raise InputError(
                f"value {v!r} of the ratings is not in {source} ({', '.join(labels)})",
                file=ratings,
                hint="name every label, lowest first",
            )
    return order


def ratings_stats(
    ratings: Path, order: str | None = None, guideline: Path | None = None
) -> RatingsReport:
    """The agreement statistics of a `unit,rater,value` CSV. `order` ("low,mid,high") or
    the guideline's `labels` give the ordinal scale, lowest first; without either, string
    labels are ordered alphabetically (krippendorff's `value_domain`)."""
    if order is not None and guideline is not None:
        raise InputError("give --order or --guideline, not both")
    rows = read_ratings_csv(ratings)
    labels: list[str] | None = None
    source, where = "--order", None
    if order is not None:
        labels = [x.strip() for x in order.split(",")]
        if not all(labels):
            raise InputError(
                f"--order {order!r} has an empty label", hint="e.g. --order low,mid,high"
            )
    elif guideline is not None:
        labels = guideline_labels(guideline)
        source, where = "the guideline's labels", guideline
        if labels is None:
            raise InputError(
                "the guideline declares no 'labels'",
                file=guideline,
                hint='add "labels": ["low", "mid", "high"] (lowest first), or pass --order',
            )
    if labels is None:
        return RatingsReport(ratings_summary(rows))
    return RatingsReport(ratings_summary(rows, _label_order(rows, labels, ratings, source, where)))
