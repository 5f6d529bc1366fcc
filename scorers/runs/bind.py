"""Bind qrels once into arrays, then rank any number of runs against them.

Binding turns string ids into integers with pyarrow's hash lookups (the one
step NumPy cannot vectorise) and keeps everything else as NumPy arrays:
sorted (query, document) keys with their grades, the ideal DCG per query, and
the exact gold family of every query. Ranking a run then costs a few hash
lookups, one lexsort and one scatter into a (queries x k) grade matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

Ties = Literal["file", "trec_eval"]
TIE_MODES: tuple[str, ...] = ("file", "trec_eval")


def as_strings(values: Any) -> pa.Array | pa.ChunkedArray:
    """Any column of strings (pandas Series, list, numpy, arrow) as an arrow string array."""
    arr = values if isinstance(values, pa.Array | pa.ChunkedArray) else pa.array(values)
    if not pa.types.is_string(arr.type):  # large_string (pandas' str dtype) too: one kernel type
        arr = arr.cast(pa.string())
    return arr


def _codes(values: pa.Array | pa.ChunkedArray, vocab: pa.Array) -> np.ndarray:
    """Position of each value in vocab, -1 where absent."""
    idx = pc.index_in(values, value_set=vocab)
    return np.asarray(pc.fill_null(idx, -1).to_numpy(zero_copy_only=False), dtype=np.int64)


def discounts(k: int) -> np.ndarray:
    """trec_eval's NDCG discount 1/log2(rank+1) for ranks 1..k."""
    return 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))


_SEP = "\x00"  # joins query and document ids into one hashable pair key


def pair_keys(query_ids: pa.Array | pa.ChunkedArray, doc_ids: pa.Array | pa.ChunkedArray) -> Any:
    """One string per (query, document) pair, for a single hash lookup per row."""
    return pc.binary_join_element_wise(query_ids, doc_ids, _SEP)


@dataclass(frozen=True)
class BoundQrels:
    """Qrels bound to a fixed query set and cutoff k (see module docstring)."""

    query_ids: pa.Array  # (Q,) strings, the denominator of every metric
    n: np.ndarray  # (Q,) number of conditions; gold = grade n
    k: int
    pairs: pa.Array  # pair_keys of the judged (nonzero) qrels of these queries
    grades: np.ndarray  # grade of each pair
    n_gold: np.ndarray  # (Q,) gold documents per query
    ideal_dcg: np.ndarray  # (Q,) DCG@k of the ideal graded ranking
    ideal_gold_dcg: np.ndarray  # (Q,) DCG@k of the ideal gold-only ranking
    family: np.ndarray  # (Q,) exact gold family index, see families()
    n_families: int

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def grades_of(self, keys: Any) -> np.ndarray:
        """Grade of each pair key; 0 when unjudged."""
        return self.grades_at(self.positions_of(keys))

    def positions_of(self, keys: Any) -> np.ndarray:
        """Index of each pair key in `pairs`; -1 when unjudged."""
        return _codes(keys, self.pairs)

    def grades_at(self, pos: np.ndarray) -> np.ndarray:
        """Grade at each index of `pairs`; 0 where the index is -1."""
        if len(self.grades) == 0:
            return np.zeros(len(pos), dtype=np.int64)
        return np.where(pos >= 0, self.grades[np.maximum(pos, 0)], 0)


def _flat(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def bind_qrels(
    query_ids: Sequence[str] | Any,
    n: Sequence[int] | np.ndarray,
    qrel_query_ids: Any,
    qrel_doc_ids: Any,
    qrel_grades: Any,
    *,
    k: int = 10,
) -> BoundQrels:
    """Bind qrels to the query set. Qrels of other queries and grade-0 rows are ignored.

    Raises ValueError when a grade exceeds its query's n (callers validate with
    file positions first) or ids repeat.
    """
    if k < 1:
        raise ValueError("k must be >= 1")
    qvocab = _flat(as_strings(query_ids))
    n_arr = np.asarray(n, dtype=np.int64)
    if len(n_arr) != len(qvocab):
        raise ValueError("one n per query")
    if len(pc.unique(qvocab)) != len(qvocab):
        raise ValueError("query ids repeat")
    grades = np.asarray(qrel_grades, dtype=np.int64)
    qidx = _codes(as_strings(qrel_query_ids), qvocab)
    keep = (qidx >= 0) & (grades > 0)
    mask = pa.array(keep)
    qids = _flat(pc.filter(as_strings(qrel_query_ids), mask))
    dids = _flat(pc.filter(as_strings(qrel_doc_ids), mask))
    qidx, grades = qidx[keep], grades[keep]
    if (grades > n_arr[qidx]).any():
        raise ValueError("a qrel grade exceeds its query's number of conditions")
    pairs = _flat(pair_keys(qids, dids))
    if len(pc.unique(pairs)) != len(pairs):
        raise ValueError("a (query, document) pair is judged twice")
    nq = len(qvocab)
    gold = grades == n_arr[qidx]
    n_gold = np.bincount(qidx[gold], minlength=nq)
    # Ideal graded ranking: each query's grades sorted descending, cut at k.
    by_grade = np.lexsort((-grades, qidx))
    sq, sg = qidx[by_grade], grades[by_grade]
    pos = np.arange(len(sq)) - np.searchsorted(sq, sq, side="left")
    top = pos < k
    ideal = np.zeros((nq, k), dtype=np.float64)
    ideal[sq[top], pos[top]] = sg[top]
    disc = discounts(k)
    cum = np.concatenate([[0.0], np.cumsum(disc)])
    gold_docs = pc.filter(dids, pa.array(gold))
    gold_didx = _codes(gold_docs, _flat(pc.unique(gold_docs)))
    family, n_families = families(nq, qidx[gold], gold_didx)
    return BoundQrels(
        query_ids=qvocab,
        n=n_arr,
        k=k,
        pairs=pairs,
        grades=grades,
        n_gold=n_gold,
        ideal_dcg=ideal @ disc,
        ideal_gold_dcg=cum[np.minimum(n_gold, k)],
        family=family,
        n_families=n_families,
    )


def families(
    n_queries: int, gold_qidx: np.ndarray, gold_didx: np.ndarray
) -> tuple[np.ndarray, int]:
    """Exact gold families: queries with an identical, non-empty set of gold documents.

    "Do Current Retrievers Cover All the Evidence?" (supplement) groups queries sharing the complete set of gold document ids. A
    query without gold shares no construction with anything, so it is its own
    family (a project choice; the seed's benchmark has gold for every query).
    Families are numbered by their first query.
    """
    sets: dict[tuple[int, ...], int] = {}
    family = np.full(n_queries, -1, dtype=np.int64)
    order = np.lexsort((gold_didx, gold_qidx))
    gq, gd = gold_qidx[order], gold_didx[order]
    bounds = np.flatnonzero(np.diff(gq)) + 1
    starts = np.concatenate([[0], bounds]) if gq.size else np.array([], dtype=np.int64)
    ends = np.concatenate([bounds, [gq.size]]) if gq.size else np.array([], dtype=np.int64)
    signature = {int(gq[s]): tuple(gd[s:e].tolist()) for s, e in zip(starts, ends, strict=True)}
    next_id = 0
    for q in range(n_queries):
        sig = signature.get(q)
        if sig is None:
            family[q] = next_id
            next_id += 1
            continue
        fid = sets.get(sig)
        if fid is None:
            fid = sets[sig] = next_id
            next_id += 1
        family[q] = fid
    return family, next_id


@dataclass(frozen=True)
class TopK:
    """A run's top-k grades per query (0 = unjudged or empty slot)."""

    grades: np.ndarray  # (Q, k) int64
    present: np.ndarray  # (Q,) bool: the run ranks at least one document for the query
    # (Q, k) index of each top-k document in BoundQrels.pairs (-1 = unjudged or empty): which
    # judged document sits where, so two runs' top-k can be compared by identity (qrel bound).
    pair_pos: np.ndarray | None = None


def _already_ranked(qidx: np.ndarray, sc: np.ndarray, strict: bool) -> bool:
    """Whether rows are grouped by query and sorted by score within each group.

    Most run files are; then file order is the ranking and no sort is needed.
    strict (no equal scores within a query) makes the tie mode irrelevant.
    """
    if qidx.size < 2:
        return True
    new = qidx[1:] != qidx[:-1]
    heads = np.concatenate([qidx[:1], qidx[1:][new]])
    if np.bincount(heads).max() > 1:  # a query appears in two separate blocks
        return False
    down = sc[1:] < sc[:-1] if strict else sc[1:] <= sc[:-1]
    return bool((down | new).all())


def rank_run(
    bound: BoundQrels, query_ids: Any, doc_ids: Any, scores: Any, *, ties: Ties = "file"
) -> TopK:
    """Order each query's documents by score descending and keep the top k.

    ties="file" keeps run-file order among equal scores (the stable input order of
    "Do Current Retrievers Cover All the Evidence?" (supplement)); ties="trec_eval" breaks them by document id descending, as trec_eval.
    Rows of queries outside the bound query set are ignored.
    """
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be one of {TIE_MODES}")
    qarr = as_strings(query_ids)
    darr = as_strings(doc_ids)
    sc = np.asarray(scores, dtype=np.float64)
    qidx = _codes(qarr, bound.query_ids)
    rows = np.flatnonzero(qidx >= 0)  # file rows of known queries
    qidx, sc = qidx[rows], sc[rows]
    if _already_ranked(qidx, sc, strict=ties == "trec_eval"):
        order = np.arange(qidx.size)
    elif ties == "file":
        # Two stable sorts = sort by (query, -score), file order among ties.
        order = np.argsort(-sc, kind="stable")
        order = order[np.argsort(qidx[order], kind="stable")]
    else:
        # Doc id rank in descending byte order (0 = largest), as trec_eval's strcmp.
        known_docs = darr if rows.size == len(darr) else pc.take(darr, pa.array(rows))
        rank = pc.rank(known_docs, sort_keys="descending", tiebreaker="dense")
        tie_key = np.asarray(rank.to_numpy(zero_copy_only=False), dtype=np.int64)
        order = np.lexsort((tie_key, -sc, qidx))
    sq = qidx[order]
    new = np.ones(sq.size, dtype=bool)
    new[1:] = sq[1:] != sq[:-1]
    starts = np.flatnonzero(new)
    pos = np.arange(sq.size) - starts[np.cumsum(new) - 1]
    top = np.flatnonzero(pos < bound.k)
    # Grades are looked up for the top-k rows only: a tenth of a depth-100 run.
    take = pa.array(rows[order[top]])
    ppos = bound.positions_of(pair_keys(pc.take(qarr, take), pc.take(darr, take)))
    mat = np.zeros((bound.n_queries, bound.k), dtype=np.int64)
    mat[sq[top], pos[top]] = bound.grades_at(ppos)
    where = np.full((bound.n_queries, bound.k), -1, dtype=np.int64)
    where[sq[top], pos[top]] = ppos
    present = np.bincount(sq, minlength=bound.n_queries) > 0
    return TopK(grades=mat, present=present, pair_pos=where)
