"""Paired tests over queries for many system pairs at once, Holm, discriminative power.

`values` is (runs, queries): one run's per-query measure per row. A pair (b, v) tests
the per-query differences d = values[v] - values[b], two-sided:

- randomization (sign flip): p = (1 + #{|sum(s * d)| >= |sum(d)|}) / (1 + draws), each
  draw flipping every query's sign independently, the same seeded sign matrix for every
  pair, drawn exactly as `scorers.runs.paired.sign_flip_pvalues` draws it, so each pair's
  p equals that function's on its own row. The work is shared: with S = signs @ values.T
  (draws x runs) a pair's statistics are |S[:, v] - S[:, b]|, one matrix product for all
  pairs instead of one per pair;
- paired t-test: t = mean(d) / (sd(d) / sqrt(n)), n - 1 degrees of freedom, as
  scipy.stats.ttest_rel; where every difference is equal (sd = 0), p is 1 when they are
  all 0 and 0 otherwise (scipy returns NaN and an infinite t there);
- Holm across the pairs given (`scorers.runs.paired.holm`, equal to statsmodels');
- discriminative power: the share of pairs whose unadjusted p is below alpha (Sakai's
  definition over all system pairs).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scorers.runs.paired import holm

__all__ = ["discriminative_power", "holm", "randomization_pvalues", "ttest_pvalues"]

_CHUNK = 2000  # sign draws per block, as scorers.runs.paired (the same sign stream)


def _index(pairs: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return arr[:, 0], arr[:, 1]


def randomization_pvalues(
    values: np.ndarray, pairs: Sequence[tuple[int, int]], *, draws: int = 10_000,
    seed: int = 11, tol: float = 1e-10,
) -> np.ndarray:  # fmt: skip
    """Two-sided sign-flip p of every pair (base, variant) of rows of `values`."""
    x = np.asarray(values, dtype=np.float64)
    b, v = _index(pairs)
    units = x.shape[1]
    if units == 0 or b.size == 0:
        return np.ones(b.size)
    observed = np.abs((x[v] - x[b]).sum(axis=1))
    rng = np.random.default_rng(seed)
    exceed = np.zeros(b.size, dtype=np.int64)
    done = 0
    while done < draws:
        m = min(_CHUNK, draws - done)
        bits = np.unpackbits(np.frombuffer(rng.bytes(m * units // 8 + 1), dtype=np.uint8))
        signs = bits[: m * units].reshape(m, units).astype(np.float64) * 2.0 - 1.0
        s = signs @ x.T  # (m, runs): every run's signed sum under each draw
        exceed += (np.abs(s[:, v] - s[:, b]) >= observed[None, :] - tol).sum(axis=0)
        done += m
    return (1.0 + exceed) / (1.0 + draws)


def ttest_pvalues(values: np.ndarray, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    """Two-sided paired t-test p of every pair (base, variant)."""
    from scipy import stats

    x = np.asarray(values, dtype=np.float64)
    b, v = _index(pairs)
    n = x.shape[1]
    if n < 2 or b.size == 0:
        return np.ones(b.size)
    d = x[v] - x[b]
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    p = 2.0 * stats.t.sf(np.abs(t), n - 1)
    flat = sd <= 1e-15 * np.maximum(1.0, np.abs(mean))
    return np.where(flat, np.where(mean == 0, 1.0, 0.0), p)


def discriminative_power(pvalues: np.ndarray, alpha: float = 0.05) -> float | None:
    """Share of the pairs whose p is below alpha (None without pairs)."""
    p = np.asarray(pvalues)
    return float((p < alpha).mean()) if p.size else None


def all_pairs(n_runs: int) -> list[tuple[int, int]]:
    """Every unordered pair (i, j), i < j, in run order."""
    return [(i, j) for i in range(n_runs) for j in range(i + 1, n_runs)]
