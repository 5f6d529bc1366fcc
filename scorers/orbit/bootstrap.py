"""Verdict-stratified claim bootstrap and simultaneous max-|t| intervals.

Claims are resampled with replacement within each semantic state; one set of resamples per
dataset is shared by all its readers, both rankers, all interfaces and both objects, so the
joint distribution of every estimate of a dataset is preserved. Replicates are built as
count matrices and pushed through one matrix product per state (no per-replicate loop).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from scorers.orbit.design import Dataset
from scorers.orbit.effects import effects, state_blocks
from vocabulary.progress import Progress, no_progress

FloatArray = NDArray[np.float64]
CHUNK = 1000  # replicates per block: bounds memory at CHUNK x claims counts per state


def resample_counts(rng: np.random.Generator, n: int, size: int) -> NDArray[np.float32]:
    """(size, n) multiplicities of n claims drawn with replacement, one row per replicate."""
    draws = rng.integers(0, n, size=(size, n))
    flat = (draws + np.arange(size)[:, None] * n).ravel()
    return np.bincount(flat, minlength=size * n).reshape(size, n).astype(np.float32)


def bootstrap_effects(
    dataset: Dataset,
    replicates: int,
    rng: np.random.Generator,
    progress: Progress = no_progress,
) -> FloatArray:
    """(replicates, E, 2, 8) bootstrap g/h cells for every environment of the dataset."""
    plus, minus = state_blocks(dataset)
    out = np.empty((replicates, len(dataset.environments), 2, 8))
    starts = range(0, replicates, CHUNK)
    for start in progress(starts, total=len(starts), desc="bootstrap"):
        size = min(CHUNK, replicates - start)
        w_plus = resample_counts(rng, len(plus.index), size)
        w_minus = resample_counts(rng, len(minus.index), size)
        out[start : start + size] = effects(plus, minus, w_plus, w_minus)
    return out


def percentile_interval(reps: FloatArray, level: float = 0.95) -> tuple[FloatArray, FloatArray]:
    """Pointwise percentile interval along axis 0 (NaN replicates ignored)."""
    alpha = (1.0 - level) / 2.0
    lo = np.nanquantile(reps, alpha, axis=0)
    hi = np.nanquantile(reps, 1.0 - alpha, axis=0)
    return lo, hi


def max_t_intervals(
    estimate: FloatArray, reps: FloatArray, level: float = 0.95
) -> dict[str, FloatArray | float | int]:
    """Simultaneous intervals estimate +/- c * se for a family of K parameters.

    se_k is the bootstrap standard deviation; c is the ``level`` quantile of
    max_k |theta*_bk - theta_hat_k| / se_k over replicates b. Parameters whose bootstrap
    distribution is degenerate (se = 0) get the point interval and do not enter the max.
    Replicates with a NaN (an empty stratum) are dropped from the family.
    """
    est = np.asarray(estimate, dtype=np.float64).ravel()
    r = np.asarray(reps, dtype=np.float64).reshape(len(reps), -1)
    r = r[~np.isnan(r).any(axis=1)]
    se = r.std(axis=0, ddof=1) if len(r) > 1 else np.zeros_like(est)
    live = se > 1e-15
    if np.any(live) and len(r) > 1:
        t = np.abs(r[:, live] - est[live]) / se[live]
        crit = float(np.quantile(t.max(axis=1), level))
    else:
        crit = 0.0
    half = crit * np.where(live, se, 0.0)
    return {
        "low": est - half,
        "high": est + half,
        "se": se,
        "critical_value": crit,
        "replicates": len(r),
    }
