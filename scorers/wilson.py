"""Wilson score interval for a binomial proportion (the interval "Do Current Retrievers Cover All the Evidence?" (supplement) reports)."""

from __future__ import annotations

import math

# Two-sided 95%: the standard-normal quantile at 0.975 (scipy.stats.norm.ppf(0.975)).
Z95 = 1.959963984540054


def wilson_interval(count: int, total: int, z: float = Z95) -> tuple[float, float]:
    """[lo, hi] of the Wilson score interval; (nan, nan) when total is 0.

    Matches statsmodels `proportion_confint(count, total, method="wilson")`.
    """
    if total <= 0:
        return (math.nan, math.nan)
    p = count / total
    z2 = z * z
    denom = 1.0 + z2 / total
    centre = (p + z2 / (2.0 * total)) / denom
    half = z * math.sqrt(p * (1.0 - p) / total + z2 / (4.0 * total * total)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def proportion(count: int, total: int) -> dict[str, object]:
    """`{count, total, rate, wilson95}` as the agreement reports print it."""
    lo, hi = wilson_interval(count, total)
    return {
        "count": count,
        "total": total,
        "rate": count / total if total else math.nan,
        "wilson95": [lo, hi],
    }
