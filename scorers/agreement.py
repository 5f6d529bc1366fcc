"""Agreement over a ratings table: Krippendorff's alpha, Fleiss, and two-rater statistics.

`ratings_summary` is what `evaudit agreement stats` prints. A ratings table is
a list of (unit, rater, value) triples; a missing rating is an absent triple.
Values are integers or labels (strings). Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from scorers.kappa import _order_key, category_counts, cohen_kappa, fleiss_kappa, gwet_ac1
from scorers.wilson import proportion

Rating = tuple[Hashable, Hashable, Hashable]  # (unit, rater, value)


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
) -> dict[str, Any]:
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
    out: dict[str, Any] = {
        "n_units": len(units),
        "n_raters": len(raters),
        "n_ratings": sum(len(row) for row in by_unit.values()),
        "values": values,
        "krippendorff_alpha": {
            "nominal": krippendorff_alpha(matrix, "nominal", domain),
            "ordinal": krippendorff_alpha(matrix, "ordinal", domain),
            "interval": interval,
        },
    }
    if order is not None:
        out["order"] = list(order)
    full = [u for u in units if len(by_unit[u]) == len(raters)]
    out["fleiss_units"] = len(full)
    if full and len(raters) >= 2:
        _, table = category_counts([list(by_unit[u].values()) for u in full], values)
        out["fleiss_kappa"] = fleiss_kappa(table)
    else:
        out["fleiss_kappa"] = math.nan
    if len(raters) == 2:
        out.update(two_rater_summary(by_unit, raters[0], raters[1], values))
    return out


def two_rater_summary(
    by_unit: Mapping[Hashable, Mapping[Hashable, Hashable]],
    first: Hashable,
    second: Hashable,
    labels: Sequence[Hashable],
) -> dict[str, Any]:
    """Percent agreement (+ Wilson), Cohen's kappa (3 weightings), Gwet's AC1 on shared units."""
    both = [
        u for u in sorted(by_unit, key=_order_key) if first in by_unit[u] and second in by_unit[u]
    ]
    a = [by_unit[u][first] for u in both]
    b = [by_unit[u][second] for u in both]
    agree, total = percent_agreement(a, b)
    prop = proportion(agree, total)
    return {
        "raters": [first, second],
        "shared_units": total,
        "percent_agreement": prop["rate"],
        "agreement_count": agree,
        "wilson95": prop["wilson95"],
        "cohen_kappa": cohen_kappa(a, b, None, labels) if total else math.nan,
        "cohen_kappa_linear": cohen_kappa(a, b, "linear", labels) if total else math.nan,
        "cohen_kappa_quadratic": cohen_kappa(a, b, "quadratic", labels) if total else math.nan,
        "gwet_ac1": gwet_ac1(a, b) if total else math.nan,
    }


def page_set_agreement(
    a: Sequence[frozenset[Hashable]], b: Sequence[frozenset[Hashable]]
) -> dict[str, Any]:
    """Conditions whose selected page sets are identical (both empty = both 'no' = equal)."""
    count = sum(1 for x, y in zip(a, b, strict=True) if x == y)
    total = len(a)
    return {"count": count, "total": total, "rate": count / total if total else math.nan}
