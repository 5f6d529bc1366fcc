"""Decision rules of "Which Reranking Conclusions Survive the Answer Interface?" with configurable thresholds.

Per environment: material variation, higher-order material/negligible, first-order signs,
the sign classification of the BGE-minus-BM25 direction, and the held-out first-order error
check. Across the confirmatory environments: the H1, H2a and H2b replication rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorers.orbit.readings import h2b_required

FloatArray = NDArray[np.float64]
OBJECTS = ("g", "h")


@dataclass(frozen=True)
class Thresholds:
    """Defaults are the values "Which Reranking Conclusions Survive the Answer Interface?" fixed before downstream evaluation."""

    material: float = 0.015  # R lower/upper bound threshold (1.5 points of balanced accuracy)
    max_error: float = 0.03  # held-out first-order maximum-error upper bound
    margin: float = 0.005  # Delta V must lie outside [-margin, margin]
    min_disagreement: float = 0.10  # selector disagreement rate for an operational result
    h1_environments: int = 3
    h1_datasets: int = 2  # capped at the number of confirmatory datasets
    h1_families: int = 2
    h2a_environments: int = 2
    h2b_negligible: int | None = None  # None: scaled, ceil(5E/6) (scorers/orbit/readings.py)
    h2b_signs: int | None = None  # None: scaled, ceil(4E/6)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def sign_class(low: FloatArray, high: FloatArray) -> str:
    """Direction of the variant-minus-base effect across the 8 simultaneous g-cell intervals."""
    if np.all(low > 0):
        return "uniform_positive"
    if np.all(high < 0):
        return "uniform_negative"
    if np.any(low > 0) and np.any(high < 0):
        return "reversal"
    return "uncertain"


def determined_signs(low: FloatArray, high: FloatArray) -> NDArray[np.int64]:
    """+1 / -1 where a simultaneous interval excludes zero, 0 where it does not."""
    return np.where(low > 0, 1, np.where(high < 0, -1, 0)).astype(np.int64)


def replicated_first_order(signs: Sequence[NDArray[np.int64]]) -> list[bool]:
    """Which environments replicate the first-order sign pattern.

    ``signs[e]`` holds the determined first-order signs (2 objects x 3 factors) of
    environment e. The replicated sign of each (object, factor) is the one most environments
    determine (none on a tie). An environment replicates when it determines at least one
    first-order sign and every sign it determines equals the replicated one. ("Which Reranking Conclusions Survive the Answer Interface?" names
    "jointly replicated first-order signs" without a formula; this is the project's reading.)
    """
    stack = np.array(signs).reshape(len(signs), -1) if signs else np.zeros((0, 6), int)
    reference = np.zeros(stack.shape[1], dtype=np.int64)
    for k in range(stack.shape[1]):
        counts = Counter(int(v) for v in stack[:, k] if v != 0)
        if counts.get(1, 0) != counts.get(-1, 0):
            reference[k] = 1 if counts.get(1, 0) > counts.get(-1, 0) else -1
    out = []
    for row in stack:
        determined = row != 0
        out.append(bool(determined.any() and np.all(row[determined] == reference[determined])))
    return out


def replication_rules(envs: list[dict[str, Any]], t: Thresholds) -> dict[str, Any]:
    """H1, H2a and H2b over the confirmatory environments (``envs`` are their summaries)."""
    names = [e["environment"] for e in envs]
    material = [e for e in envs if e["decisions"]["material_variation"]]
    datasets = {e["dataset"] for e in material}
    families = {e["reader"] for e in material}
    need_ds = min(t.h1_datasets, len({e["dataset"] for e in envs}))
    h1 = (
        len(material) >= t.h1_environments
        and len(datasets) >= need_ds
        and len(families) >= t.h1_families
    )
    high = [e["environment"] for e in envs if e["decisions"]["higher_order_material"]]
    negligible = [e["environment"] for e in envs if e["decisions"]["higher_order_negligible"]]
    signs = [e["environment"] for e in envs if e["decisions"]["first_order_signs_replicated"]]
    err_ok = [e["environment"] for e in envs if e["decisions"]["heldout_error_below"] is True]
    need_neg, need_signs = h2b_required(t.h2b_negligible, t.h2b_signs, len(envs))
    h2b = (
        len(negligible) >= need_neg
        and len(signs) >= need_signs
        and len(envs) > 0
        and len(err_ok) == len(envs)
    )
    return {
        "environments": names,
        "H1": {
            "holds": bool(h1),
            "material_environments": [e["environment"] for e in material],
            "datasets": sorted(datasets),
            "reader_families": sorted(families),
            "required": {
                "environments": t.h1_environments,
                "datasets": need_ds,
                "reader_families": t.h1_families,
            },
        },
        "H2a": {
            "holds": bool(h1 and len(high) >= t.h2a_environments),
            "evaluated": bool(h1),
            "higher_order_material": high,
            "required": {"environments": t.h2a_environments},
        },
        "H2b": {
            "holds": bool(h2b),
            "higher_order_negligible": negligible,
            "first_order_signs_replicated": signs,
            "heldout_error_below": err_ok,
            "required": {
                "higher_order_negligible": need_neg,
                "first_order_signs_replicated": need_signs,
                "heldout_error_below": len(envs),
            },
        },
    }
