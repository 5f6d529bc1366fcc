"""Composition of per-condition runs into one document ranking (pure).

The n-Clue supplement ("Do Current Retrievers Cover All the Evidence?",
execution settings: "separate condition lists with min, product, harmonic
mean, or injective distinct-page aggregation"). Rules (docs/runs.md):

* A per-condition run ranks documents (or pages) for one condition of one
  query; its query id is ``QUERY_ID::CONDITION_ID`` (``CONDITION_SEP``).
* Each condition list is ranked by score descending (equal scores keep file
  order) and cut to its top ``depth``; scores are min-max normalised within
  the list, (s - min) / (max - min), and a list whose scores are all equal
  maps to 1 (every listed item is that list's best).
* A condition that does not list the document scores ``floor`` (default 0).
* ``min``: the smallest condition score; ``product``: their product;
  ``harmonic``: n / sum(1 / s_c), 0 when some s_c is 0.
* ``injective`` (page-level lists, docno ``doc_id#page``): the best
  distinct-page assignment. Each condition takes a different page of the
  document, or no page (score ``floor``); the document's score is the mean,
  over the query's conditions, of the assigned page scores, maximised over
  assignments (scipy's linear_sum_assignment).
* The composed ranking keeps the top ``depth`` documents, composite score
  descending; equal scores keep first appearance when the condition lists
  are read in the query's condition order, each top to bottom.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from scorers.fusion import Ranked
from scorers.rank_order import rank_within, rank_within_ties

METHODS = ("min", "product", "harmonic", "injective")
CONDITION_SEP = "::"


@dataclass(frozen=True)
class ComposeReport:
    method: str
    depth: int
    floor: float
    queries: int
    queries_without_lists: int
    condition_lists: int
    rows: int
    out: str = ""
    tag: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def split_condition_ids(
    run_qids: Sequence[str], conditions: Mapping[str, Sequence[str]]
) -> tuple[list[str], list[str], int | None]:
    """Split ``QUERY_ID::CONDITION_ID`` against the known pairs.

    Returns (query ids, condition ids, index of the first row that names no
    known pair or None). Every '::' is tried, so ids that contain '::' work.
    """
    known = {(q, c) for q, cs in conditions.items() for c in cs}
    cache: dict[str, tuple[str, str] | None] = {}
    qs: list[str] = []
    cs: list[str] = []
    for i, rq in enumerate(run_qids):
        if rq not in cache:
            found = None
            start = rq.find(CONDITION_SEP)
            while start != -1:
                pair = (rq[:start], rq[start + len(CONDITION_SEP) :])
                if pair in known:
                    found = pair
                    break
                start = rq.find(CONDITION_SEP, start + 1)
            cache[rq] = found
        hit = cache[rq]
        if hit is None:
            return qs, cs, i
        qs.append(hit[0])
        cs.append(hit[1])
    return qs, cs, None


def _normalise(values: np.ndarray) -> np.ndarray:
    lo, hi = values.min(), values.max()
    return np.ones_like(values) if hi == lo else (values - lo) / (hi - lo)


def _lists(
    query_id: Sequence[str],
    condition_id: Sequence[str],
    item: Sequence[tuple[str, int]],
    score: Any,
    depth: int,
) -> dict[tuple[str, str], list[tuple[tuple[str, int], float]]]:
    """{(query, condition): [(item, normalised score), ...]} top ``depth`` in rank order."""
    keys = np.asarray([f"{q}\x00{c}" for q, c in zip(query_id, condition_id, strict=True)])
    _, codes = np.unique(keys, return_inverse=True)
    sc = np.asarray(score, dtype=np.float64)
    rows, _ = rank_within(codes, sc, depth)
    out: dict[tuple[str, str], list[tuple[tuple[str, int], float]]] = {}
    grouped: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        grouped.setdefault((query_id[r], condition_id[r]), []).append(int(r))
    for key, idx in grouped.items():
        norm = _normalise(sc[idx])
        out[key] = [(item[i], float(v)) for i, v in zip(idx, norm, strict=True)]
    return out


def injective_score(page_scores: Sequence[Mapping[int, float]], floor: float) -> float:
    """Best distinct-page assignment: mean over conditions of the assigned page scores.

    ``page_scores[c]`` maps page -> normalised score for condition c; a
    condition may take no page (score ``floor``); no page serves two conditions.
    """
    from scipy.optimize import linear_sum_assignment

    n = len(page_scores)
    pages = sorted({p for ps in page_scores for p in ps})
    if not pages:
        return floor
    # Columns: the document's pages, then one "no page" column per condition.
    m = np.full((n, len(pages) + n), floor, dtype=np.float64)
    col = {p: j for j, p in enumerate(pages)}
    for c, ps in enumerate(page_scores):
        for p, v in ps.items():
            m[c, col[p]] = max(v, floor)
    rows, cols = linear_sum_assignment(m, maximize=True)
    return float(m[rows, cols].sum() / n)


def compose(
    query_id: Sequence[str],
    condition_id: Sequence[str],
    doc_id: Sequence[str],
    score: Any,
    conditions: Mapping[str, Sequence[str]],
    *,
    method: str,
    depth: int = 100,
    floor: float = 0.0,
    pages: Sequence[int] | None = None,
) -> tuple[Ranked, ComposeReport]:
    """Compose per-condition lists into one ranking per query (module docstring).

    ``conditions`` lists each query's condition ids in the query's order; the
    output follows that query order. ``pages`` (1-based, one per row) is
    required for ``injective`` and then ``doc_id`` holds the page's document.
    """
    if method not in METHODS:
        raise ValueError(f"unknown composition method {method!r}")
    if (method == "injective") != (pages is not None):
        raise ValueError("pages are required for injective and only for it")
    if pages is None:
        return _compose_documents(
            query_id, condition_id, doc_id, score, conditions, method, depth, floor
        )
    items = list(zip(doc_id, pages, strict=True))
    lists = _lists(query_id, condition_id, items, score, depth)
    out_q: list[str] = []
    out_d: list[str] = []
    out_s: list[float] = []
    without = 0
    for q, conds in conditions.items():
        present = [(c, lists.get((q, c), [])) for c in conds]
        if not any(lst for _, lst in present):
            without += 1
            continue
        docs: dict[str, None] = {}  # first appearance: condition order, each list top down
        for _, lst in present:
            for it, _ in lst:
                docs.setdefault(it[0], None)
        per_doc: dict[str, list[dict[int, float]]] = {d: [{} for _ in conds] for d in docs}
        for ci, (_, lst) in enumerate(present):
            for (d, p), v in lst:
                per_doc[d][ci][p] = v
        scored = [(d, injective_score(per_doc[d], floor)) for d in docs]
        order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))[:depth]
        for i in order:
            out_q.append(q)
            out_d.append(scored[i][0])
            out_s.append(scored[i][1])
    qarr = np.asarray(out_q, dtype=object)
    ranks = np.ones(len(out_q), dtype=np.int64)
    for i in range(1, len(out_q)):
        ranks[i] = ranks[i - 1] + 1 if out_q[i] == out_q[i - 1] else 1
    ranked = Ranked(qarr, np.asarray(out_d, dtype=object), ranks, np.asarray(out_s))
    report = ComposeReport(
        method=method,
        depth=depth,
        floor=floor,
        queries=len(conditions) - without,
        queries_without_lists=without,
        condition_lists=len(lists),
        rows=len(out_q),
    )
    return ranked, report


def _compose_documents(
    query_id: Sequence[str],
    condition_id: Sequence[str],
    doc_id: Sequence[str],
    score: Any,
    conditions: Mapping[str, Sequence[str]],
    method: str,
    depth: int,
    floor: float,
) -> tuple[Ranked, ComposeReport]:
    """min / product / harmonic, vectorised over all queries (same rules as the loop above).

    Lists are numbered query position x width + condition position, so sorting
    rows by (list, rank) is exactly the first-appearance order of the rules.
    Products and reciprocal sums run condition by condition, left to right, so
    equal inputs give bit-identical scores and ties are real.
    """
    width = max((len(cs) for cs in conditions.values()), default=1)
    # List code = query position x width + condition position, looked up by hashing
    # integer codes (no per-row string building).
    qpos = pd.Index(list(conditions)).get_indexer(pd.Index(np.asarray(query_id, dtype=object)))
    ccode, cuniq = pd.factorize(np.asarray(condition_id, dtype=object))
    pair_pos: dict[int, int] = {}
    code_of = {c: i for i, c in enumerate(cuniq)}
    for qi, cs in enumerate(conditions.values()):
        for j, c in enumerate(cs):
            if c in code_of:
                pair_pos[qi * max(len(cuniq), 1) + code_of[c]] = j
    row_pair = qpos.astype(np.int64) * max(len(cuniq), 1) + ccode
    found = pd.Index(list(pair_pos)).get_indexer(pd.Index(row_pair))
    if (qpos < 0).any() or (found < 0).any():
        raise ValueError("a row names a (query, condition) pair outside `conditions`")
    cpos = np.fromiter(pair_pos.values(), dtype=np.int64, count=len(pair_pos))[found]
    lcode = qpos.astype(np.int64) * width + cpos
    sc = np.asarray(score, dtype=np.float64)
    rows, _ = rank_within(lcode, sc, depth)
    lk, vals = lcode[rows], sc[rows]
    nlists = len(conditions) * width
    lo, hi = np.full(nlists, np.inf), np.full(nlists, -np.inf)
    np.minimum.at(lo, lk, vals)
    np.maximum.at(hi, lk, vals)
    span = (hi - lo)[lk]
    norm = np.where(span == 0, 1.0, (vals - lo[lk]) / np.where(span == 0, 1.0, span))
    dcode, duniq = pd.factorize(np.asarray(doc_id, dtype=object)[rows])
    qk = lk // width
    pair, pair_uniq = pd.factorize(qk * max(len(duniq), 1) + dcode)
    pq = np.asarray(pair_uniq) // max(len(duniq), 1)
    table = np.full((len(pair_uniq), width), floor)
    table[pair, lk % width] = norm
    n_of = np.array([len(cs) for cs in conditions.values()], dtype=np.int64)[pq]
    if method == "min":
        comp = np.where(np.arange(width)[None, :] < n_of[:, None], table, np.inf).min(axis=1)
    elif method == "product":
        comp = np.ones(len(pq))
        for j in range(width):
            comp = np.where(j < n_of, comp * table[:, j], comp)
    else:
        recip, zero = np.zeros(len(pq)), np.zeros(len(pq), dtype=bool)
        with np.errstate(divide="ignore"):
            for j in range(width):
                use = j < n_of
                zero |= use & (table[:, j] == 0)
                recip = np.where(use & ~zero, recip + 1.0 / np.where(zero, 1.0, table[:, j]), recip)
        comp = np.where(zero, 0.0, n_of / np.where(zero, 1.0, recip))
    out, rank = rank_within_ties(pq, comp, np.arange(len(pq)), depth)
    docs_of = np.asarray(duniq, dtype=object)[np.asarray(pair_uniq) % max(len(duniq), 1)]
    qnames = np.asarray(list(conditions), dtype=object)
    ranked = Ranked(qnames[pq[out]], docs_of[out], rank + 1, comp[out])
    with_lists = len(np.unique(qk))
    report = ComposeReport(
        method=method,
        depth=depth,
        floor=floor,
        queries=with_lists,
        queries_without_lists=len(conditions) - with_lists,
        condition_lists=len(np.unique(lk)),
        rows=len(out),
    )
    return ranked, report
