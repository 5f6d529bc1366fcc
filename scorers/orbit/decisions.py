"""Decision rules of "Which Reranking Conclusions Survive the Answer Interface?" with configurable thresholds.

Per environment: material variation, higher-order material/negligible, first-order signs,
the sign classification of the BGE-minus-BM25 direction, and the held-out first-order error
check. Across the confirmatory environments: the H1, H2a and H2b replication rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
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


def _required(key: str) -> Any:
    """A rule's threshold field, printed under "required" as ``key``."""
    return field(metadata={"required": key})


def _rule_json(rule: Any) -> dict[str, Any]:
    """A rule's findings in field order, then its thresholds under "required"."""
    out: dict[str, Any] = {}
    required: dict[str, Any] = {}
    for f in fields(rule):
        key = f.metadata.get("required")
        (required if key else out)[key or f.name] = getattr(rule, f.name)
    return {**out, "required": required}


@dataclass(frozen=True)
class H1Rule:
    """H1: material interface variation in enough environments, datasets and reader families."""

    holds: bool
    material_environments: list[str]
    datasets: list[str]
    reader_families: list[str]
    required_environments: int = _required("environments")
    required_datasets: int = _required("datasets")  # capped at the confirmatory datasets
    required_families: int = _required("reader_families")

    def to_json(self) -> dict[str, Any]:
        return _rule_json(self)


@dataclass(frozen=True)
class H2aRule:
    """H2a: given H1, higher-order interactions are material in enough environments."""

    holds: bool
    evaluated: bool  # only when H1 holds
    higher_order_material: list[str]
    required_environments: int = _required("environments")

    def to_json(self) -> dict[str, Any]:
        return _rule_json(self)


@dataclass(frozen=True)
class H2bRule:
    """H2b: higher order negligible and first-order signs replicated in enough environments,
    with the held-out error below the threshold in every one."""

    holds: bool
    higher_order_negligible: list[str]
    first_order_signs_replicated: list[str]
    heldout_error_below: list[str]
    required_negligible: int = _required("higher_order_negligible")
    required_signs: int = _required("first_order_signs_replicated")
    required_error_below: int = _required("heldout_error_below")

    def to_json(self) -> dict[str, Any]:
        return _rule_json(self)


@dataclass(frozen=True)
class Replication:
    """The three replication verdicts over the confirmatory environments."""

    environments: list[str]
    h1: H1Rule
    h2a: H2aRule
    h2b: H2bRule

    def to_json(self) -> dict[str, Any]:
        return {
            "environments": self.environments,
            "H1": self.h1.to_json(),
            "H2a": self.h2a.to_json(),
            "H2b": self.h2b.to_json(),
        }


def replication_rules(envs: list[dict[str, Any]], t: Thresholds) -> Replication:
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
    return Replication(
        environments=names,
        h1=H1Rule(
            holds=bool(h1),
            material_environments=[e["environment"] for e in material],
            datasets=sorted(datasets),
            reader_families=sorted(families),
            required_environments=t.h1_environments,
            required_datasets=need_ds,
            required_families=t.h1_families,
        ),
        h2a=H2aRule(
            holds=bool(h1 and len(high) >= t.h2a_environments),
            evaluated=bool(h1),
            higher_order_material=high,
            required_environments=t.h2a_environments,
        ),
        h2b=H2bRule(
            holds=bool(h2b),
            higher_order_negligible=negligible,
            first_order_signs_replicated=signs,
            heldout_error_below=err_ok,
            required_negligible=need_neg,
            required_signs=need_signs,
            required_error_below=len(envs),
        ),
    )
