"""Exact-family bootstrap ("Do Current Retrievers Cover All the Evidence?" (supplement), "Clustered Uncertainty and Paired Tests").

A family is the set of queries sharing an identical set of gold document ids
(BoundQrels.family). A replicate draws as many families as there are, with
replacement, and takes every query of each drawn family: the statistic is the
mean over the resampled queries. Families, not queries, are the resampling
unit, so duplicated construction families do not narrow the interval.
Replicates are drawn once per seed and shared by every run and contrast, which
makes intervals reproducible and independent of which other runs are scored.
"""

from __future__ import annotations

import numpy as np


def draw_family_counts(n_families: int, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """(replicates, n_families) counts: how often each family is drawn in each replicate."""
    if n_families == 0 or replicates == 0:
        return np.zeros((replicates, n_families), dtype=np.float64)
    picks = rng.integers(0, n_families, size=(replicates, n_families))
    flat = picks + (np.arange(replicates, dtype=np.int64) * n_families)[:, None]
    counts = np.bincount(flat.ravel(), minlength=replicates * n_families)
    return counts.reshape(replicates, n_families).astype(np.float64)


def query_weights(counts: np.ndarray, family: np.ndarray) -> np.ndarray:
    """(replicates, Q) multiplicity of every query: its family's count (families move whole)."""
    return counts[:, family]


def family_sums(values: np.ndarray, family: np.ndarray, n_families: int) -> np.ndarray:
    """Sum of values (..., Q) within each family -> (..., n_families)."""
    order = np.argsort(family, kind="stable")
    sizes = np.bincount(family, minlength=n_families)
    out = np.zeros((*values.shape[:-1], n_families), dtype=np.float64)
    if order.size == 0:
        return out
    nonempty = np.flatnonzero(sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])[nonempty]
    out[..., nonempty] = np.add.reduceat(values[..., order], starts, axis=-1)
    return out


def replicate_means(
    values: np.ndarray, family: np.ndarray, n_families: int, counts: np.ndarray
) -> np.ndarray:
    """Mean of values (..., Q) in each replicate -> (..., replicates)."""
    sums = family_sums(values, family, n_families)
    flat = sums.reshape(-1, n_families)  # one 2-D GEMM, not a stack of small ones
    sizes = np.bincount(family, minlength=n_families).astype(np.float64)
    denom = counts @ sizes
    means = (flat @ counts.T) / np.where(denom > 0, denom, 1.0)
    return means.reshape(*values.shape[:-1], counts.shape[0])


def percentile_interval(reps: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Percentile interval over the last axis -> (..., 2) [lo, hi]."""
    if reps.shape[-1] == 0:
        return np.full((*reps.shape[:-1], 2), np.nan)
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(reps, [tail, 100.0 - tail], axis=-1)
    return np.stack([lo, hi], axis=-1)


def family_bootstrap(
    values: np.ndarray,
    family: np.ndarray,
    n_families: int,
    *,
    replicates: int = 1000,
    seed: int = 11,
    level: float = 0.95,
) -> np.ndarray:
    """Percentile interval of the mean of values (..., Q) -> (..., 2)."""
    rng = np.random.default_rng(seed)
    counts = draw_family_counts(n_families, replicates, rng)
    return percentile_interval(replicate_means(values, family, n_families, counts), level)
