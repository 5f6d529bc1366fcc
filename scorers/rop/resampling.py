"""Cluster bootstrap of a pooled paired difference, with explicit, reproducible draws.

Used by the reader-side association audit ("Does the Selected Object Reach the Reader?",
Table 9: resample question ids, keep every model-family row of a drawn question together)
and by the passage-deletion contrasts (Table 10: resample items, one item = one cluster).

The statistic of one resample is the pooled mean difference over the records of the drawn
clusters, sum(a - b) / number of records; with one record per cluster it is the mean of the
paired differences. The draws are ``rng.integers(0, C, (block, C))`` from
``numpy.random.default_rng(seed)`` in blocks of ``BLOCK`` rows, so a plain loop given the
same generator sees exactly the same resamples (the tests do that).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

BLOCK = 1000  # resamples drawn per call of the generator (bounds memory for many clusters)


@dataclass(frozen=True)
class Interval:
    """A percentile interval of a cluster bootstrap (``low``/``high`` None when not drawn)."""

    resamples: int
    clusters: int
    confidence: float
    seed: int
    low: float | None
    high: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "resamples": self.resamples,
            "clusters": self.clusters,
            "confidence": self.confidence,
            "seed": self.seed,
            "ci_low": self.low,
            "ci_high": self.high,
        }


def cluster_draws(rng: np.random.Generator, clusters: int, resamples: int) -> list[NDArray[Any]]:
    """The drawn cluster indices, one (rows, clusters) block per generator call."""
    out = []
    done = 0
    while done < resamples:
        rows = min(BLOCK, resamples - done)
        out.append(rng.integers(0, clusters, size=(rows, clusters)))
        done += rows
    return out


def cluster_bootstrap_difference(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[str],
    *,
    resamples: int,
    seed: int,
    confidence: float = 0.95,
) -> Interval:
    """Percentile interval of the pooled mean of a - b, resampling whole clusters.

    Clusters are numbered in sorted order of their names, so the draws do not depend on
    the order of the input rows.
    """
    names, inverse = np.unique(np.asarray(list(clusters), dtype=object), return_inverse=True)
    m = len(names)
    if m < 2 or resamples < 1:
        return Interval(resamples, m, confidence, seed, None, None)
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    diff_sum = np.bincount(inverse, weights=diff, minlength=m)
    size = np.bincount(inverse, minlength=m).astype(np.float64)
    rng = np.random.default_rng(seed)
    stats = np.concatenate(
        [
            diff_sum[idx].sum(axis=1) / size[idx].sum(axis=1)
            for idx in cluster_draws(rng, m, resamples)
        ]
    )
    alpha = (1.0 - confidence) / 2.0
    low, high = (float(v) for v in np.quantile(stats, [alpha, 1.0 - alpha]))
    return Interval(resamples, m, confidence, seed, low, high)
