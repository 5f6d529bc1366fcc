"""Held-out selector comparison and held-out first-order error over repeated splits.

Each dataset gets ``splits`` fixed verdict-stratified validation/test splits, shared by its
readers. Two selectors each pick one global ranker from the validation claims:
  canonical: higher validation balanced accuracy at the canonical interface;
  orbit: higher validation balanced accuracy of decisions from log odds averaged over
  the eight interfaces.
Ties go to the base ranker. The value of a choice is the test balanced accuracy of the
chosen ranker's interface-averaged decisions; Delta V = V_orbit - V_canonical.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorers.orbit.design import Dataset, Environment
from scorers.orbit.effects import effects, state_blocks
from scorers.orbit.walsh import INTERFACES, first_order_fit, walsh

FloatArray = NDArray[np.float64]
TIE = 1e-12  # balanced accuracies closer than this are a tie (go to the base ranker)


def validation_masks(
    positive: NDArray[np.bool_], splits: int, fraction: float, rng: np.random.Generator
) -> NDArray[np.bool_]:
    """(splits, n) True for validation claims; round(fraction * n_y) claims of each state."""
    n = len(positive)
    masks = np.zeros((splits, n), dtype=bool)
    for state in (True, False):
        index = np.flatnonzero(positive == state)
        k = round(fraction * len(index))
        order = np.argsort(rng.random((splits, len(index))), axis=1)[:, :k]
        rows = np.repeat(np.arange(splits), k)
        masks[rows, index[order].ravel()] = True
    return masks


def balanced_accuracy(
    correct: FloatArray, positive: NDArray[np.bool_], weights: FloatArray
) -> FloatArray:
    """Balanced accuracy of columns of ``correct`` (n, R) for each weight row (S, n)."""
    per_state = []
    for state in (True, False):
        idx = positive == state
        w = weights[:, idx]
        with np.errstate(invalid="ignore", divide="ignore"):
            per_state.append((w @ correct[idx]) / w.sum(axis=1, keepdims=True))
    return (per_state[0] + per_state[1]) / 2.0


def _choose(ba: FloatArray) -> NDArray[np.int64]:
    """0 (base) unless the variant's balanced accuracy is strictly higher."""
    return (ba[:, 1] > ba[:, 0] + TIE).astype(np.int64)


def compare_selectors(
    env: Environment,
    positive: NDArray[np.bool_],
    masks: NDArray[np.bool_],
    canonical: str,
) -> dict[str, Any]:
    """Per-split selections and values for one environment (needs log odds)."""
    assert env.log_odds is not None
    k = INTERFACES.index(canonical)
    keep = env.present
    pos = positive[keep]
    val = masks[:, keep].astype(np.float64)
    test = 1.0 - val
    canon_correct = env.correct[keep][:, :, k]  # (n, 2)
    # A claim's interface-averaged decision is "+" when its mean log odds is positive.
    decide_plus = env.log_odds[keep].mean(axis=2) > 0.0  # (n, 2)
    orbit_correct = (decide_plus == pos[:, None]).astype(np.float64)
    pick_canon = _choose(balanced_accuracy(canon_correct, pos, val))
    pick_orbit = _choose(balanced_accuracy(orbit_correct, pos, val))
    value = balanced_accuracy(orbit_correct, pos, test)  # (S, 2)
    rows = np.arange(len(masks))
    return {
        "canonical_choice": pick_canon,
        "orbit_choice": pick_orbit,
        "v_canonical": value[rows, pick_canon],
        "v_orbit": value[rows, pick_orbit],
    }


@dataclass(frozen=True)
class SelectionSummary:
    """One environment's selector comparison over the splits."""

    splits: int
    disagreement: float  # share of splits where the two selectors pick differently
    canonical_picks_variant: float
    orbit_picks_variant: float
    v_canonical: float  # mean test value of each selector's pick
    v_orbit: float
    delta_v: float
    delta_v_interval: tuple[float, float]  # percentiles of Delta V over splits
    operational: bool  # the operational rule on that spread

    def to_json(self) -> dict[str, Any]:
        return {
            "splits": self.splits,
            "disagreement": self.disagreement,
            "canonical_picks_variant": self.canonical_picks_variant,
            "orbit_picks_variant": self.orbit_picks_variant,
            "v_canonical": self.v_canonical,
            "v_orbit": self.v_orbit,
            "delta_v": self.delta_v,
            "delta_v_interval": list(self.delta_v_interval),
            "operational": self.operational,
        }


def summarize_selection(
    per_split: dict[str, Any], *, min_disagreement: float, margin: float, level: float = 0.95
) -> SelectionSummary:
    """Disagreement rate, Delta V with its percentile interval over splits, operational rule."""
    delta = per_split["v_orbit"] - per_split["v_canonical"]
    alpha = (1.0 - level) / 2.0
    lo, hi = (float(v) for v in np.quantile(delta, [alpha, 1.0 - alpha]))
    disagreement = float(np.mean(per_split["canonical_choice"] != per_split["orbit_choice"]))
    material = lo > margin or hi < -margin
    return SelectionSummary(
        splits=len(delta),
        disagreement=disagreement,
        canonical_picks_variant=float(np.mean(per_split["canonical_choice"] == 1)),
        orbit_picks_variant=float(np.mean(per_split["orbit_choice"] == 1)),
        v_canonical=float(np.mean(per_split["v_canonical"])),
        v_orbit=float(np.mean(per_split["v_orbit"])),
        delta_v=float(np.mean(delta)),
        delta_v_interval=(lo, hi),
        operational=bool(disagreement >= min_disagreement and material),
    )


def heldout_max_error(dataset: Dataset, masks: NDArray[np.bool_]) -> FloatArray:
    """(splits, E): max over interfaces and both objects of |test q(z) - first-order fit(z)|.

    The first-order approximation q_0 + sum_j q_j z_j is fitted on the validation claims of
    each split and checked against the test claims' eight g and h values.
    """
    plus, minus = state_blocks(dataset)
    val = masks.astype(np.float64)
    cells_val = effects(plus, minus, val[:, plus.index], val[:, minus.index])
    cells_test = effects(plus, minus, 1.0 - val[:, plus.index], 1.0 - val[:, minus.index])
    fit = first_order_fit(walsh(cells_val))
    return np.abs(cells_test - fit).max(axis=(2, 3))
