"""Policy effect g and verdict-differential effect h per interface, for any claim weights.

For state y and interface z, d_y(z) = acc_{variant,y}(z) - acc_{base,y}(z);
g = (d_+ + d_-)/2 and h = (d_+ - d_-)/2. Written as weighted means so the same code gives the
point estimate (all weights 1), bootstrap replicates (weights = resampling counts) and
validation/test splits (weights = 0/1 masks): one matrix product per state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorers.orbit.design import Dataset

FloatArray = NDArray[np.float64]


@dataclass
class StateBlock:
    """Per-claim columns of one semantic state of a dataset."""

    index: NDArray[np.int64]  # claim positions in the dataset
    diff: NDArray[np.float32]  # (n_s, E*8): correct(variant) - correct(base), 0 when absent
    present: NDArray[np.float32]  # (n_s, E): 1 when the claim is observed in the environment
    complete: bool  # every claim observed in every environment: denominators are row sums


def state_blocks(dataset: Dataset) -> tuple[StateBlock, StateBlock]:
    """The (+, -) blocks of a dataset, environments in ``dataset.environments`` order."""
    blocks = []
    for state in (True, False):
        index = np.flatnonzero(dataset.positive == state)
        diff = np.concatenate(
            [
                (e.correct[index, 1, :] - e.correct[index, 0, :]) * e.present[index, None]
                for e in dataset.environments
            ],
            axis=1,
        )
        present = np.stack([e.present[index] for e in dataset.environments], axis=1)
        blocks.append(
            StateBlock(
                index, diff.astype(np.float32), present.astype(np.float32), bool(present.all())
            )
        )
    return blocks[0], blocks[1]


def state_difference(block: StateBlock, weights: NDArray[Any]) -> FloatArray:
    """d_y(z) for each row of weights (W, n_s): returns (W, E, 8).

    Weights are integers (resampling counts, 0/1 masks) and the columns are -1/0/1, so the
    products are exact in float32 while the total weight stays below 2^24; float32 halves
    the memory traffic of the one large product.
    """
    n_env = block.present.shape[1]
    w32 = np.asarray(weights, dtype=np.float32)
    num = (w32 @ block.diff).astype(np.float64).reshape(len(weights), n_env, 8)
    if block.complete:
        den = np.repeat(w32.sum(axis=1, dtype=np.float64)[:, None], n_env, axis=1)
    else:
        den = (w32 @ block.present).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den[:, :, None]


def effects(
    plus: StateBlock, minus: StateBlock, w_plus: NDArray[Any], w_minus: NDArray[Any]
) -> FloatArray:
    """(W, E, 2, 8): axis 2 is the object (0 = g, 1 = h), axis 3 the interface."""
    d_plus = state_difference(plus, w_plus)
    d_minus = state_difference(minus, w_minus)
    return np.stack([(d_plus + d_minus) / 2.0, (d_plus - d_minus) / 2.0], axis=2)


def point_effects(dataset: Dataset) -> FloatArray:
    """(E, 2, 8): g and h of every environment of the dataset on the observed claims."""
    plus, minus = state_blocks(dataset)
    ones_p = np.ones((1, len(plus.index)))
    ones_m = np.ones((1, len(minus.index)))
    return effects(plus, minus, ones_p, ones_m)[0]
