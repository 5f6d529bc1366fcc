"""Agreement over a ratings table: Krippendorff's alpha, Fleiss, and two-rater statistics.

`ratings_summary` is what `evaudit agreement stats` prints. A ratings table is
a list of (unit, rater, value) triples; a missing rating is an absent triple.
Values are integers or labels (strings). Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from scorers.kappa import _order_key, category_counts, cohen_kappa, fleiss_kappa, gwet_ac1
from scorers.wilson import wilson_interval

Rating = tuple[Hashable, Hashable, Hashable]  # (unit, rater, value)


@dataclass(frozen=True)
class TwoRaterSummary:
    """Percent agreement (+ Wilson), Cohen's kappa (3 weightings), Gwet's AC1 on shared units."""

    raters: tuple[Hashable, Hashable]
    shared_units: int
    percent_agreement: float
    agreement_count: int
    wilson95: list[float]
    cohen_kappa: float
    cohen_kappa_linear: float
    cohen_kappa_quadratic: float
    gwet_ac1: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"raters": list(self.raters)}


@dataclass(frozen=True)
class Alphas:
    """Krippendorff's alpha at three levels; interval is None for a table of labels."""

    nominal: float
    ordinal: float
    interval: float | None


@dataclass(frozen=True)
class RatingsSummary:
    """Every statistic `agreement stats` reports for one ratings table."""

    n_units: int
    n_raters: int
    n_ratings: int
    values: list[Hashable]  # lowest first: the declared order, else sorted
    alpha: Alphas
    order: list[Hashable] | None  # the declared order (absent from JSON without one)
    fleiss_units: int  # units every rater rated
    fleiss_kappa: float
    two_raters: TwoRaterSummary | None  # exactly two raters only

    @property
    def numeric(self) -> bool:
        return all(isinstance(v, int | float) for v in self.values)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n_units": self.n_units,
            "n_raters": self.n_raters,
            "n_ratings": self.n_ratings,
            "values": self.values,
            "krippendorff_alpha": asdict(self.alpha),
        }
        if self.order is not None:
            out["order"] = list(self.order)
        out["fleiss_units"] = self.fleiss_units
        out["fleiss_kappa"] = self.fleiss_kappa
        if self.two_raters is not None:
            out.update(self.two_raters.to_json())
        return out


def percent_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[int, int]:
    """(units where both ratings are equal, units rated by both)."""
    return sum(1 for x, y in zip(a, b, strict=True) if x == y), len(a)


def krippendorff_alpha(
    matrix: Sequence[Sequence[float]], level: str, value_domain: Sequence[float] | None = None
) -> float:
    """Krippendorff's alpha via the `krippendorff` package (raters x units, NaN = missing).

    Returns NaN when no unit has two ratings or only one value occurs.
    """
    import krippendorff

    data = np.asarray(matrix, dtype=float)
    if data.size == 0:
        return math.nan
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    values = np.unique(data[:, pairable][~np.isnan(data[:, pairable])])
    if not pairable.any() or len(values) < 2:
        return math.nan
    domain = None if value_domain is None else np.asarray(value_domain, dtype=float)
    alpha: Any = krippendorff.alpha  # its stub types levels as a Literal
    return float(alpha(reliability_data=data, level_of_measurement=level, value_domain=domain))


def _real(value: Hashable) -> float:
    return float(value)  # type: ignore[arg-type]  # a numeric table's int or float


def _pivot(
    ratings: Iterable[Rating],
) -> tuple[list[Hashable], list[Hashable], dict[Hashable, dict[Hashable, Hashable]]]:
    by_unit: dict[Hashable, dict[Hashable, Hashable]] = {}
    raters: set[Hashable] = set()
    for unit, rater, value in ratings:
        by_unit.setdefault(unit, {})[rater] = value
        raters.add(rater)
    units = sorted(by_unit, key=_order_key)
    return units, sorted(raters, key=_order_key), by_unit


def ratings_summary(
    ratings: Iterable[Rating], order: Sequence[Hashable] | None = None
) -> RatingsSummary:
    """Every statistic `agreement stats` reports for one ratings table.

    `order` lists the labels lowest first (each observed value must be in it): ordinal
    alpha then codes each label by its position, with the whole order as krippendorff's
    `value_domain`, and the weighted Cohen kappas weigh by the same order. Without it,
    numbers are their own codes and string labels are coded by their sorted position,
    which is alphabetical and rarely the scale's order."""
    units, raters, by_unit = _pivot(ratings)
    values = sorted({v for row in by_unit.values() for v in row.values()}, key=_order_key)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    if order is not None:
        missing = [v for v in values if v not in set(order)]
        if missing or len(set(order)) != len(order):
            raise ValueError(f"order {list(order)!r} must name each value once: {missing!r}")
        values = [v for v in order if v in set(values)]
        domain_values = list(order)
    else:
        domain_values = values
    # Ordinal and nominal alpha read ranks: a label's position in the order. Interval
    # needs real numbers, so it is reported for numeric values only, on the numbers.
    own = numeric and order is None
    rank = {v: (_real(v) if own else float(i)) for i, v in enumerate(domain_values)}
    matrix = [[rank[by_unit[u][r]] if r in by_unit[u] else math.nan for u in units] for r in raters]
    domain = [rank[v] for v in domain_values]
    interval: float | None = None
    if numeric:
        real = [
            [_real(by_unit[u][r]) if r in by_unit[u] else math.nan for u in units] for r in raters
        ]
        interval = krippendorff_alpha(real, "interval", sorted(_real(v) for v in values))
    alpha = Alphas(
        krippendorff_alpha(matrix, "nominal", domain),
        krippendorff_alpha(matrix, "ordinal", domain),
        interval,
    )
    full = [u for u in units if len(by_unit[u]) == len(raters)]
    fleiss = math.nan
    if full and len(raters) >= 2:
        _, table = category_counts([list(by_unit[u].values()) for u in full], values)
        fleiss = fleiss_kappa(table)
    return RatingsSummary(
        n_units=len(units),
        n_raters=len(raters),
        n_ratings=sum(len(row) for row in by_unit.values()),
        values=values,
        alpha=alpha,
        order=None if order is None else list(order),
        fleiss_units=len(full),
        fleiss_kappa=fleiss,
        two_raters=(
            two_rater_summary(by_unit, raters[0], raters[1], values) if len(raters) == 2 else None
        ),
    )


def two_rater_summary(
    by_unit: Mapping[Hashable, Mapping[Hashable, Hashable]],
    first: Hashable,
    second: Hashable,
    labels: Sequence[Hashable],
) -> TwoRaterSummary:
    """Percent agreement (+ Wilson), Cohen's kappa (3 weightings), Gwet's AC1 on shared units."""
    both = [
        u for u in sorted(by_unit, key=_order_key) if first in by_unit[u] and second in by_unit[u]
    ]
    a = [by_unit[u][first] for u in both]
    b = [by_unit[u][second] for u in both]
    agree, total = percent_agreement(a, b)
    lo, hi = wilson_interval(agree, total)
    return TwoRaterSummary(
        raters=(first, second),
        shared_units=total,
        percent_agreement=agree / total if total else math.nan,
        agreement_count=agree,
        wilson95=[lo, hi],
        cohen_kappa=cohen_kappa(a, b, None, labels) if total else math.nan,
        cohen_kappa_linear=cohen_kappa(a, b, "linear", labels) if total else math.nan,
        cohen_kappa_quadratic=cohen_kappa(a, b, "quadratic", labels) if total else math.nan,
        gwet_ac1=gwet_ac1(a, b) if total else math.nan,
    )


def page_set_agreement(
    a: Sequence[frozenset[Hashable]], b: Sequence[frozenset[Hashable]]
) -> dict[str, Any]:
    """Conditions whose selected page sets are identical (both empty = both 'no' = equal)."""
    count = sum(1 for x, y in zip(a, b, strict=True) if x == y)
    total = len(a)
    return {"count": count, "total": total, "rate": count / total if total else math.nan}
