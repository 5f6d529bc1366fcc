"""Page aggregation of a page-level run into a document run (the n-Clue supplement,
"Execution settings": "Visual aggregation: page MaxSim; displayed page-pooling variant
averages the three highest page scores" -- the `ptop3` rows of Table S1).

A document's score is the mean of its K highest page scores (K = 1: its best page,
MaxSim; K = 3: ptop3); a document with fewer than K pages in the run averages the pages
it has. Pages rank by score descending, equal scores in file order; equal document scores
keep the order of the documents' best pages in that ranking, so with K = 1 the result is
exactly the best-page rule of scorers.gold_support.document_rows. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def parse_page_aggregate(text: str) -> int:
    """max -> 1, top3 -> 3, topk:K -> K (K >= 1); ValueError otherwise."""
    if text == "max":
        return 1
    if text == "top3":
        return 3
    head, sep, k = text.partition(":")
    if head == "topk" and sep and k.isdigit() and int(k) >= 1:
        return int(k)
    raise ValueError(f"--page-aggregate {text!r} is not max, top3 or topk:K (K >= 1)")


def aggregate_pages(
    query_id: Sequence[str], doc_id: Sequence[str], score: Any, top: int
) -> tuple[np.ndarray, np.ndarray]:
    """(row index of each document's best page, the document's aggregate score), documents
    ordered by aggregate score descending, ties in best-page order (module doc).

    Vectorized: pages sorted once, each page's rank inside its document by a grouped
    cumulative count, the K best summed with bincount (in the same descending order a loop
    would add them, so the means are the same floats)."""
    import pandas as pd

    sc = np.asarray(score, dtype=np.float64)
    if sc.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    codes = pd.DataFrame({"q": query_id, "d": doc_id}).groupby(["q", "d"], sort=False).ngroup()
    order = np.lexsort((np.arange(sc.size), -sc))
    c = codes.to_numpy()[order]
    rank = pd.Series(c).groupby(c).cumcount().to_numpy()
    take = rank < top
    groups = int(c.max()) + 1
    sums = np.bincount(c[take], weights=sc[order][take], minlength=groups)
    counts = np.bincount(c[take], minlength=groups)
    first = rank == 0  # each document's best page, in page-rank order
    rows = order[first]
    agg = sums[c[first]] / counts[c[first]]
    again = np.lexsort((np.arange(rows.size), -agg))
    return rows[again].astype(np.int64), agg[again]
