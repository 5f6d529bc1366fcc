"""Claim-specific adversarial qrel bound (n-Clue supplement, Table S1h).

For a contrast BASE -> VARIANT and a budget k, the bound is the exact minimum
(and maximum) of the variant-minus-base n-Clue Score@K over every way of
promoting up to k currently judged subset documents per query to gold, where
the promotable documents are the judged subsets in the query's top-K union of
the two runs (K = the bound cutoff, 10 by default).

Why the per-query search is exact and tiny. A run is gold-first on a query
iff the first *judged* document (grade > 0) in its top K is gold. Promotion
turns a subset into gold but never makes an unjudged document judged, so the
first judged document f_r of each run r is fixed; only its gold status can
change, and only by promoting f_r itself. Every promotion outside {f_base,
f_variant} leaves both outcomes unchanged. The minimum over all promotion sets
therefore is the minimum over the subsets of {f_base, f_variant} that are
promotable: promoting f_base alone (when it is a subset) makes the base
gold-first and the variant too only if f_variant is the same document;
promoting f_variant can only raise the variant; promoting both gives 0, never
below the other options. So one promotion per query attains the minimum and
the maximum for every k >= 1 (which is why the supplement's <=1, <=2 and <=3
columns agree), and queries are independent, so the bound is the sum of the
per-query optima. Tests check this against enumeration of every promotion set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from scorers.runs.bind import BoundQrels
from scorers.runs.measures import GOLD_FIRST, PerQuery
from scorers.runs.text import pts, table


@dataclass(frozen=True)
class BoundRow:
    """One contrast under promotion budgets (fractions; points in the text table)."""

    base: str
    variant: str
    observed: float
    minimum: dict[str, float]  # str(k) -> exact minimum of variant - base
    maximum: dict[str, float]  # str(k) -> exact maximum
    promoted_for_min: dict[str, int]  # str(k) -> queries whose optimum uses a promotion
    promoted_for_max: dict[str, int]


@dataclass(frozen=True)
class BoundReport:
    k_cutoff: int
    queries: int
    budgets: list[int]
    contrasts: list[BoundRow]

    def to_json(self) -> dict[str, object]:
        return {
            "k": self.k_cutoff,
            "queries": self.queries,
            "budgets": self.budgets,
            "contrasts": [asdict(c) for c in self.contrasts],
        }

    def to_text(self) -> str:
        ks = self.budgets
        rows = [
            [f"{c.base} -> {c.variant}", pts(c.observed, True)]
            + [pts(c.minimum[str(k)], True) for k in ks]
            + [pts(c.maximum[str(k)], True) for k in ks]
            for c in self.contrasts
        ]
        head = ["contrast", "observed"] + [f"min <={k}" for k in ks] + [f"max <={k}" for k in ks]
        return "\n".join(
            [
                f"Adversarial qrel bound (n-Clue supplement Table S1h): variant - base n-Clue "
                f"Score@{self.k_cutoff} in points over {self.queries} queries, after promoting up "
                f"to k judged top-{self.k_cutoff} subsets per query to gold. An exact bound, not "
                "an error model; unjudged documents stay outside its scope.",
                table(rows, head),
            ]
        )


def _is_gold(bound: BoundQrels, pos: np.ndarray) -> np.ndarray:
    """Whether each pair index (or -1) is a gold pair of its query."""
    if len(bound.grades) == 0:
        return np.zeros(pos.shape, dtype=bool)
    g = bound.grades[np.maximum(pos, 0)]
    qn = bound.n[np.arange(pos.size)]
    return (pos >= 0) & (g == qn)


def per_query_bounds(
    bound: BoundQrels, base: PerQuery, variant: PerQuery, budget: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observed, minimum, maximum) per query of gold_first(variant) - gold_first(base)."""
    if base.first_judged is None or variant.first_judged is None:
        raise ValueError("the runs were measured without document identities (TopK.pair_pos)")
    fb, fv = base.first_judged, variant.first_judged
    xb = (base.outcome == GOLD_FIRST).astype(np.int64)
    xv = (variant.outcome == GOLD_FIRST).astype(np.int64)
    obs = xv - xb
    if budget < 1:
        return obs, obs.copy(), obs.copy()
    sub_b = (fb >= 0) & ~_is_gold(bound, fb)  # base's first judged is a promotable subset
    sub_v = (fv >= 0) & ~_is_gold(bound, fv)
    same = (fb >= 0) & (fb == fv)
    lo = np.where(sub_b, np.minimum(obs, np.maximum(xv, same) - 1), obs)
    hi = np.where(sub_v, np.maximum(obs, 1 - np.maximum(xb, same)), obs)
    return obs, lo, hi


def bound_report(
    bound: BoundQrels,
    scored: Mapping[str, PerQuery],
    pairs: Sequence[tuple[str, str]],
    budgets: Sequence[int] = (1, 2, 3),
) -> BoundReport:
    nq = max(bound.n_queries, 1)
    rows = []
    for b, v in pairs:
        mins, maxs, pmin, pmax = {}, {}, {}, {}
        observed = float(per_query_bounds(bound, scored[b], scored[v], 0)[0].sum() / nq)
        for k in budgets:
            obs, lo, hi = per_query_bounds(bound, scored[b], scored[v], k)
            mins[str(k)] = float(lo.sum() / nq)
            maxs[str(k)] = float(hi.sum() / nq)
            pmin[str(k)] = int((lo != obs).sum())
            pmax[str(k)] = int((hi != obs).sum())
        rows.append(BoundRow(b, v, observed, mins, maxs, pmin, pmax))
    return BoundReport(bound.k, bound.n_queries, list(budgets), rows)
