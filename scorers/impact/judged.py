"""Judged@k: how much of a run's top k the qrels judge.

As ir_measures defines `Judged@k`: for each query that has qrels and that the run
retrieves, the number of the run's top k documents with a judgment (any grade, 0 and
negative ones too) divided by k, or by the number retrieved when the run returns fewer
than k; the run's value is the mean over those queries. The ranking is the run's own
(the caller orders it with its tie rule; ir_measures breaks equal scores by document
id ascending, trec_eval by document id descending).
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence

import numpy as np


def judged_at_k(ranked: Sequence[str], judged: Container[str], k: int) -> float:
    """One query: the judged share of the top min(k, len(ranked)) documents."""
    top = ranked[:k]
    if not top:
        return 0.0
    return sum(1 for d in top if d in judged) / len(top)


def mean_judged(
    ranked: Mapping[str, Sequence[str]], qrels: Mapping[str, Container[str]], k: int,
    queries: Container[str] | None = None,
) -> tuple[float | None, int]:  # fmt: skip
    """(mean Judged@k, queries averaged) of one run: `ranked` is query -> ranked doc ids,
    `qrels` query -> judged doc ids; `queries` narrows the evaluated set further."""
    total, n = 0.0, 0
    for q, docs in ranked.items():
        if q not in qrels or (queries is not None and q not in queries):
            continue
        total += judged_at_k(docs, qrels[q], k)
        n += 1
    return (total / n if n else None), n


def judged_means(
    query: np.ndarray, position: np.ndarray, judged: np.ndarray, evaluated: np.ndarray, k: int
) -> float | None:
    """`mean_judged` on arrays, one entry per retrieved (query, document) of one run:
    `query` the query's code (0..len(evaluated)-1), `position` its 0-based rank within
    the query, `judged` whether the qrels judge it; `evaluated[code]` whether the query
    counts (it has qrels, and is in the query filter)."""
    n = evaluated.size
    top = position < k
    shown = np.bincount(query[top], minlength=n)
    hit = np.bincount(query[top & judged], minlength=n)
    use = evaluated & (shown > 0)
    return float((hit[use] / shown[use]).mean()) if use.any() else None
