"""System rankings before and after a qrels revision, and how far they agree.

- ranks: 1 = best mean; equal means keep the runs' given order (a strict ranking, so
  every system has one rank and tau-AP is defined);
- Kendall's tau-b and Spearman's rho on the means (scipy's; None when undefined: fewer
  than two runs or a constant side);
- tau-AP (Yilmaz, Aslam and Robertson, "A New Rank Correlation Coefficient for
  Information Retrieval", SIGIR 2008, section 3): with N systems in the evaluated list,
  tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1, where C(i) counts the systems
  above rank i in the evaluated list that the reference ranking also puts above the one
  at rank i. It is asymmetric and weighs the top: here the evaluated list is the ranking
  before the revision and the reference is the ranking after it (does the published
  leaderboard's top survive the revised labels?);
- rank movement: rank before minus rank after (positive = moved up), and the largest
  absolute shift.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np


def ranks(means: np.ndarray) -> np.ndarray:
    """1-based strict ranks, best (largest) mean first; ties in the given order."""
    order = np.argsort(-np.asarray(means, dtype=np.float64), kind="stable")
    out = np.empty(order.size, dtype=np.int64)
    out[order] = np.arange(1, order.size + 1)
    return out


def _finite(x: float) -> float | None:
    return None if x != x else float(x)


def kendall_spearman(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None]:
    """(Kendall's tau-b, Spearman's rho) of two score vectors over the same systems."""
    from scipy import stats

    if np.asarray(a).size < 2:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant side: scipy warns and returns NaN
        tau = float(stats.kendalltau(a, b).statistic)
        rho = float(stats.spearmanr(a, b).statistic)
    return _finite(tau), _finite(rho)


def kendall(a: np.ndarray, b: np.ndarray) -> float | None:
    """Kendall's tau-b alone (scipy's), for the many rankings of label influence."""
    from scipy import stats

    if np.asarray(a).size < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _finite(float(stats.kendalltau(a, b).statistic))


def tau_ap(
    evaluated: Sequence[int] | np.ndarray, reference: Sequence[int] | np.ndarray
) -> float | None:
    """tau-AP of the `evaluated` strict ranks against the `reference` strict ranks (both
    1-based, indexed by system). None with fewer than two systems."""
    ev = np.asarray(evaluated, dtype=np.int64)
    ref = np.asarray(reference, dtype=np.int64)
    n = ev.size
    if n < 2:
        return None
    order = np.argsort(ev, kind="stable")  # systems in the evaluated list, top first
    ref_in_order = ref[order]
    # C(i): systems above position i (in the evaluated list) the reference also ranks above.
    above = ref_in_order[None, :] < ref_in_order[:, None]  # [i, j]: j ranked above i by ref
    lower = np.tril(np.ones((n, n), dtype=bool), k=-1)  # j above i in the evaluated list
    c = (above & lower).sum(axis=1)[1:]
    return float(2.0 / (n - 1) * np.sum(c / np.arange(1, n)) - 1.0)


def movement(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Rank before minus rank after: positive moved up the leaderboard."""
    return np.asarray(before, dtype=np.int64) - np.asarray(after, dtype=np.int64)
