"""Two readings of "Which Reranking Conclusions Survive the Answer Interface?" where its formula is not given.

1. An interval for the mean Delta V over the repeated validation/test splits. The splits
   share claims, so their Delta V values are not independent and the plain t interval of
   their mean is too narrow; the spread of Delta V over splits (the 2.5th-97.5th
   percentiles) describes single splits, not the mean, and collapses to [0, 0] when most
   splits pick the same ranker. The interval here is the corrected resampled t interval of
   Nadeau and Bengio (2003, "Inference for the Generalization Error"), made for exactly
   this design (repeated random splits of one sample):
       mean +/- t_{S-1, (1+level)/2} * sqrt((1/S + n_test/n_select) * s^2),
   with S splits, s^2 the variance of Delta V over splits (ddof 1) and n_test/n_select the
   ratio of test to validation (selection) claims, (1 - f)/f for validation fraction f.

2. H2b's counts scaled to the number of confirmatory environments. The paper fixes "at
   least five" (negligible higher order) and "at least four" (replicated first-order
   signs) of its six environments; with E confirmatory environments the required counts
   are ceil(5E/6) and ceil(4E/6), the same shares rounded up (6 -> 5 and 4, 4 -> 4 and 3,
   8 -> 7 and 6). A count given explicitly replaces the scaled one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

PAPER_ENVIRONMENTS = 6
PAPER_H2B_NEGLIGIBLE = 5
PAPER_H2B_SIGNS = 4
METHOD = "nadeau_bengio_corrected_resampled_t"


def scaled_count(paper_count: int, environments: int) -> int:
    """ceil(paper_count * E / 6), computed in integers (no float rounding at the boundary)."""
    return -(-paper_count * environments // PAPER_ENVIRONMENTS)


@dataclass(frozen=True)
class MeanInterval:
    """The interval for the mean Delta V (None ends: fewer than two splits)."""

    level: float
    low: float | None = None
    high: float | None = None
    method: str = METHOD

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "level": self.level, "low": self.low, "high": self.high}


def delta_v_mean_interval(
    delta: NDArray[np.float64], validation_fraction: float, level: float = 0.95
) -> MeanInterval:
    """The corrected resampled t interval of the mean Delta V over splits."""
    # Student's t quantile (what scipy.stats.t.ppf calls): scipy.special imports in a
    # tenth of a second, scipy.stats in more than half a second.
    from scipy.special import stdtrit

    s = len(delta)
    mean = float(np.mean(delta)) if s else math.nan
    if s < 2 or not 0 < validation_fraction < 1:
        return MeanInterval(level)
    ratio = (1.0 - validation_fraction) / validation_fraction
    var = float(np.var(delta, ddof=1))
    half = float(stdtrit(s - 1, (1.0 + level) / 2.0)) * math.sqrt((1.0 / s + ratio) * var)
    return MeanInterval(level, mean - half, mean + half)


def h2b_required(negligible: int | None, signs: int | None, environments: int) -> tuple[int, int]:
    """H2b's required counts: the explicit ones, else the paper's scaled to E environments."""
    return (
        negligible if negligible is not None else scaled_count(PAPER_H2B_NEGLIGIBLE, environments),
        signs if signs is not None else scaled_count(PAPER_H2B_SIGNS, environments),
    )
