"""Label influence: what each changed qrel does to the runs when it is applied alone.

A change is one (query, document) whose grade differs between the two copies (a row
only one copy has is a change from or to "unjudged"). Applied alone, it turns the
"before" qrels into the copy with only that label changed: only its query's values move,
so every run's mean moves by (new - old) / Q, or, when the change leaves its query
without any judgment (it stops being evaluated), to the mean over the other Q - 1
queries. The caller computes the changed query's values under the one change; this module
turns them into each run's change of mean, the ranking agreement with the ranking
before (Kendall's tau-b, tau-AP, the largest rank shift) and the order in which a
reviewer should check the changes: the largest absolute change of any run first, then
the lowest Kendall's tau, then query and document id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorers.impact.ordering import kendall, movement, ranks, tau_ap


@dataclass(frozen=True)
class Change:
    query_id: str
    doc_id: str
    old_grade: int | None  # None: the before copy has no such row
    new_grade: int | None  # None: the after copy has no such row


@dataclass(frozen=True)
class Influence:
    change: Change
    delta: np.ndarray  # (runs,) change of each run's mean
    kendall: float | None
    tau_ap: float | None
    max_rank_shift: int

    @property
    def max_abs_delta(self) -> float:
        return float(np.max(np.abs(self.delta))) if self.delta.size else 0.0


def influence_of(
    values: np.ndarray, query_index: int | None, new_values: np.ndarray | None, change: Change
) -> Influence:
    """One change applied alone. `values` is (runs, Q) before; `query_index` the changed
    query's column (None: the query was not evaluated before); `new_values` (runs,) its
    values under the change (None: it is no longer evaluated)."""
    runs, q = values.shape
    total = values.sum(axis=1)
    mean = total / q if q else np.zeros(runs)
    old_col = values[:, query_index] if query_index is not None else np.zeros(runs)
    n = q - (query_index is not None) + (new_values is not None)
    rest = total - old_col + (new_values if new_values is not None else 0.0)
    new_mean = rest / n if n else np.zeros(runs)
    tau = kendall(mean, new_mean)
    rb, ra = ranks(mean), ranks(new_mean)
    shift = movement(rb, ra)
    return Influence(
        change=change,
        delta=new_mean - mean,
        kendall=tau,
        tau_ap=tau_ap(rb, ra),
        max_rank_shift=int(np.max(np.abs(shift))) if shift.size else 0,
    )


def most_influential(items: Sequence[Influence]) -> list[Influence]:
    """The reviewer's order: largest absolute change first (see the module docstring)."""
    return sorted(
        items,
        key=lambda i: (
            -round(i.max_abs_delta, 12),
            1.0 if i.kendall is None else i.kendall,
            i.change.query_id,
            i.change.doc_id,
        ),
    )
