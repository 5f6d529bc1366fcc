"""Gold+Support@k of page-level runs, and page coverage conditional on retrieving a gold (pure).

The n-Clue supplement ("Do Current Retrievers Cover All the Evidence?",
Table S5b, page grounding): "For each top-10 gold, Gold+Support takes its
three highest-scoring distinct surfaced pages; it succeeds if any retrieved
gold's page set intersects stored support for every condition ... It uses all
1,000 queries as the denominator, and stable ranking order resolves score
ties. Per-condition and all-condition page-coverage rates are conditional on
first retrieving a gold." Rules here (docs/runs.md):

* A page-level run lists (document, page, score) rows. Its pages are ranked
  by score descending, equal scores in file order. Its document ranking
  follows each document's first (best) page in that order (page MaxSim).
* For each gold document in the top ``k`` documents, its page set is its
  first ``pages`` distinct pages in the page ranking (all of the run's rows
  for it count, not only those of the top k).
* A condition is covered by that gold when its page set meets the stored
  evidence pages of (query, gold, condition); a gold without stored evidence
  for a condition never covers it.
* ``gold_support``: share of all queries (the query set) where one retrieved
  gold covers every condition. ``gold_hit``: share with a gold in the top k.
* Conditional on a gold in the top k: ``condition_coverage`` is the share of
  (query, condition) pairs covered by some retrieved gold (also by condition
  position), ``all_condition_coverage`` the share of queries where one gold
  covers every condition (= gold_support / gold_hit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class SupportScores:
    queries: int
    gold_hit_queries: int
    gold_support_queries: int
    gold_hit: float
    gold_support: float
    condition_pairs: int
    covered_pairs: int
    condition_coverage: float | None
    all_condition_coverage: float | None
    by_position: dict[int, float | None]
    queries_in_run: int

    def to_json(self) -> dict[str, Any]:
        return {
            "gold_support": self.gold_support,
            "gold_hit": self.gold_hit,
            "condition_coverage": self.condition_coverage,
            "all_condition_coverage": self.all_condition_coverage,
            "condition_coverage_by_position": {str(k): v for k, v in self.by_position.items()},
            "counts": {
                "queries": self.queries,
                "gold_hit": self.gold_hit_queries,
                "gold_support": self.gold_support_queries,
                "condition_pairs": self.condition_pairs,
                "covered_pairs": self.covered_pairs,
            },
            "queries_in_run": self.queries_in_run,
        }


@dataclass(frozen=True)
class SupportReport:
    k: int
    pages: int
    queries: int
    runs: dict[str, SupportScores]

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "pages": self.pages,
            "queries": self.queries,
            "runs": {name: s.to_json() for name, s in self.runs.items()},
        }


def page_sets(
    query_id: Sequence[str], doc_id: Sequence[str], page: Sequence[int], score: Any, pages: int
) -> dict[str, list[tuple[str, list[int]]]]:
    """{query: [(doc, its first ``pages`` distinct pages), ...] in document rank order}."""
    sc = np.asarray(score, dtype=np.float64)
    order = np.lexsort((np.arange(len(sc)), -sc))
    per_q: dict[str, dict[str, list[int]]] = {}
    for i in order:
        docs = per_q.setdefault(query_id[i], {})
        got = docs.setdefault(doc_id[i], [])
        p = int(page[i])
        if len(got) < pages and p not in got:
            got.append(p)
    return {q: list(docs.items()) for q, docs in per_q.items()}


def gold_support(
    ranked_pages: Mapping[str, list[tuple[str, list[int]]]],
    conditions: Mapping[str, Sequence[str]],
    gold: Mapping[str, set[str]],
    evidence: Mapping[tuple[str, str, str], set[int]],
    *,
    k: int = 10,
) -> SupportScores:
    """Gold+Support@k and conditional coverage over the query set ``conditions``."""
    hit = support = pairs = covered = 0
    pos_pairs: dict[int, int] = {}
    pos_cov: dict[int, int] = {}
    for q, conds in conditions.items():
        golds = [(d, set(ps)) for d, ps in ranked_pages.get(q, [])[:k] if d in gold.get(q, set())]
        if not golds:
            continue
        hit += 1
        cover = [[bool(ps & evidence.get((q, d, c), set())) for c in conds] for d, ps in golds]
        if any(all(row) for row in cover):
            support += 1
        for j in range(len(conds)):
            is_cov = any(row[j] for row in cover)
            pairs += 1
            covered += is_cov
            pos_pairs[j + 1] = pos_pairs.get(j + 1, 0) + 1
            pos_cov[j + 1] = pos_cov.get(j + 1, 0) + is_cov
    nq = len(conditions)
    return SupportScores(
        queries=nq,
        gold_hit_queries=hit,
        gold_support_queries=support,
        gold_hit=hit / nq if nq else 0.0,
        gold_support=support / nq if nq else 0.0,
        condition_pairs=pairs,
        covered_pairs=covered,
        condition_coverage=covered / pairs if pairs else None,
        all_condition_coverage=support / hit if hit else None,
        by_position={j: pos_cov[j] / pos_pairs[j] for j in sorted(pos_pairs)},
        queries_in_run=sum(1 for q in conditions if q in ranked_pages),
    )


def document_rows(query_id: Sequence[str], doc_id: Sequence[str], score: Any) -> np.ndarray:
    """Row indices of each (query, document)'s best page, in page-rank order (score
    descending, equal scores in file order): a page-level run as the document run of
    the same rule (page MaxSim), so file-order ties rank documents as ``page_sets`` does."""
    sc = np.asarray(score, dtype=np.float64)
    order = np.lexsort((np.arange(len(sc)), -sc))
    seen: set[tuple[str, str]] = set()
    keep = []
    for i in order:
        key = (query_id[i], doc_id[i])
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return np.asarray(keep, dtype=np.int64)


def run_support(
    query_id: Sequence[str],
    doc_id: Sequence[str],
    page: Sequence[int],
    score: Any,
    conditions: Mapping[str, Sequence[str]],
    gold: Mapping[str, set[str]],
    evidence: Mapping[tuple[str, str, str], set[int]],
    *,
    k: int = 10,
    pages: int = 3,
) -> SupportScores:
    """Gold+Support@k of one page-level run (`runs support` and `score nclue` both call this)."""
    return gold_support(page_sets(query_id, doc_id, page, score, pages), conditions, gold,
                        evidence, k=k)  # fmt: skip
