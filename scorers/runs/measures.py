"""Per-query outcomes and measures from a run's top-k grades ("Do Current Retrievers Cover All the Evidence?" (supplement); docs/architecture.md, "Shared definitions").

For a query with n conditions, gold = grade n and a judged subset = grade
1..n-1. Outcome per query: miss (no gold in the top k), subset_first (the
best-ranked gold is in the top k but a judged subset ranks above it),
gold_first (otherwise). n-Clue Score = share of gold_first; Gold Hit = share of
subset_first + gold_first; Gold-NDCG = NDCG@k with gain 1 for gold; NDCG =
trec_eval's ndcg_cut (linear gain = grade, ideal from all judged documents).
Every share is over the whole bound query set: a query missing from a run,
or without gold, is a miss with NDCG 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorers.runs.bind import BoundQrels, TopK, discounts

MISS, SUBSET_FIRST, GOLD_FIRST = 0, 1, 2
OUTCOMES: tuple[str, ...] = ("miss", "subset_first", "gold_first")
METRICS: tuple[str, ...] = ("nclue", "gold_hit", "gold_ndcg", "ndcg")


@dataclass(frozen=True)
class PerQuery:
    """One run's per-query results over the bound query set."""

    outcome: np.ndarray  # (Q,) int: MISS, SUBSET_FIRST or GOLD_FIRST
    first_gold: np.ndarray  # (Q,) 1-based rank of the best gold in the top k, 0 if none
    first_subset: np.ndarray  # (Q,) 1-based rank of the best judged subset, 0 if none
    gold_ndcg: np.ndarray  # (Q,)
    ndcg: np.ndarray  # (Q,)
    present: np.ndarray  # (Q,) bool
    # (Q,) index in BoundQrels.pairs of the first judged (grade > 0) document in the top k,
    # -1 when none: the document that decides gold_first, used by the adversarial qrel bound.
    first_judged: np.ndarray | None = None
    # (Q, k) index in BoundQrels.pairs of every top-k document (-1 = unjudged or empty): which
    # judged labels a run's top k shows (impact: changed labels inside each run's top 10).
    top_pairs: np.ndarray | None = None

    def values(self) -> np.ndarray:
        """(4, Q) per-query values of METRICS, whose means are the run's scores."""
        return np.stack(
            [
                (self.outcome == GOLD_FIRST).astype(np.float64),
                (self.outcome != MISS).astype(np.float64),
                self.gold_ndcg,
                self.ndcg,
            ]
        )


def _first_true(mask: np.ndarray) -> np.ndarray:
    """0-based column of the first True per row; the row length when none."""
    any_ = mask.any(axis=1)
    return np.where(any_, mask.argmax(axis=1), mask.shape[1])


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def measure(bound: BoundQrels, top: TopK) -> PerQuery:
    g = top.grades
    n = bound.n[:, None]
    gold = (g == n) & (g > 0)
    subset = (g > 0) & (g < n)
    fg = _first_true(gold)
    fs = _first_true(subset)
    k = g.shape[1]
    outcome = np.where(fg >= k, MISS, np.where(fs < fg, SUBSET_FIRST, GOLD_FIRST))
    disc = discounts(k)
    first_judged = None
    if top.pair_pos is not None:
        fj = _first_true(g > 0)
        rows = np.arange(g.shape[0])
        first_judged = np.where(fj < k, top.pair_pos[rows, np.minimum(fj, k - 1)], -1)
    return PerQuery(
        outcome=outcome.astype(np.int64),
        first_gold=np.where(fg < k, fg + 1, 0),
        first_subset=np.where(fs < k, fs + 1, 0),
        gold_ndcg=_safe_ratio(gold.astype(np.float64) @ disc, bound.ideal_gold_dcg),
        ndcg=_safe_ratio(g.astype(np.float64) @ disc, bound.ideal_dcg),
        present=top.present,
        first_judged=first_judged,
        top_pairs=top.pair_pos,
    )


def summarize(pq: PerQuery) -> dict[str, object]:
    """Means of METRICS (fractions in [0, 1]) and outcome counts."""
    vals = pq.values().mean(axis=1) if pq.outcome.size else np.zeros(len(METRICS))
    counts = np.bincount(pq.outcome, minlength=3)
    out: dict[str, object] = {m: float(v) for m, v in zip(METRICS, vals, strict=True)}
    out["outcomes"] = {name: int(c) for name, c in zip(OUTCOMES, counts, strict=True)}
    out["queries_in_run"] = int(pq.present.sum())
    return out


def outcome_shares(outcome: np.ndarray) -> dict[str, float]:
    """Unconditional miss / subset-first / gold-first proportions ("Do Current Retrievers Cover All the Evidence?", supplement Table S1f M/P/G)."""
    counts = np.bincount(outcome, minlength=3).astype(np.float64)
    total = max(outcome.size, 1)
    return {name: float(c / total) for name, c in zip(OUTCOMES, counts, strict=True)}
