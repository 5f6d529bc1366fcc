"""The paired bootstrap interval of each run's change of mean after a qrels revision.

Queries are the resampling unit. The universe is every query evaluated under either copy
of the qrels; a replicate draws as many queries as the universe holds, with replacement
(`rng.integers(0, U, size=(replicates, U))`, one seeded draw shared by every run, so an
interval does not depend on which other runs are scored), and the replicate's change is
mean(after over its drawn queries evaluated after) minus mean(before over its drawn
queries evaluated before). On the undrawn sample this is exactly the reported change,
also when the revision removed queries. The interval is the percentile interval.
"""

from __future__ import annotations

import numpy as np


def draw_indices(universe: int, replicates: int, seed: int) -> np.ndarray:
    """(replicates, universe) query indices: the replicates every run shares."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, universe, size=(replicates, universe))


def delta_replicates(
    before: np.ndarray, after: np.ndarray, in_before: np.ndarray, in_after: np.ndarray,
    idx: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """(runs, replicates) changes of mean. `before` and `after` are (runs, universe)
    per-query values (anything where a query is not evaluated on that side), `in_before`
    and `in_after` the universe's masks of evaluated queries."""
    reps, universe = idx.shape
    flat = idx + (np.arange(reps, dtype=np.int64) * universe)[:, None]
    counts = np.bincount(flat.ravel(), minlength=reps * universe).reshape(reps, universe)
    counts = counts.astype(np.float64)
    cb = counts * in_before[None, :]
    ca = counts * in_after[None, :]
    xb = np.where(in_before[None, :], before, 0.0)
    xa = np.where(in_after[None, :], after, 0.0)
    nb, na = cb.sum(axis=1), ca.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mb = (xb @ cb.T) / nb[None, :]
        ma = (xa @ ca.T) / na[None, :]
    return ma - mb


def percentile(reps: np.ndarray, level: float = 0.95) -> np.ndarray:
    """(runs, 2) percentile interval over the replicates (NaN-free replicates only)."""
    out = np.full((reps.shape[0], 2), np.nan)
    tail = (1.0 - level) / 2.0 * 100.0
    for i, row in enumerate(reps):
        ok = row[np.isfinite(row)]
        if ok.size:
            out[i] = np.percentile(ok, [tail, 100.0 - tail])
    return out


def delta_intervals(
    before: np.ndarray, after: np.ndarray, in_before: np.ndarray, in_after: np.ndarray,
    *, replicates: int, seed: int, level: float = 0.95,
) -> np.ndarray:  # fmt: skip
    """(runs, 2) paired bootstrap interval of every run's change (NaN with 0 replicates)."""
    if replicates == 0 or before.shape[1] == 0:
        return np.full((before.shape[0], 2), np.nan)
    idx = draw_indices(before.shape[1], replicates, seed)
    return percentile(delta_replicates(before, after, in_before, in_after, idx), level)
