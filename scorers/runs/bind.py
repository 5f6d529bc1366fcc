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
    if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.string())
    return arr


def _codes(values: pa.Array | pa.ChunkedArray, vocab: pa.Array) -> np.ndarray:
    """Position of each value in vocab, -1 where absent."""
    idx = pc.index_in(values, value_set=vocab)
    return np.asarray(pc.fill_null(idx, -1).to_numpy(zero_copy_only=False), dtype=np.int64)


def discounts(k: int) -> np.ndarray:
    """trec_eval's NDCG discount 1/log2(rank+1) for ranks 1..k."""
    return 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))


@dataclass(frozen=True)
class BoundQrels:
    """Qrels bound to a fixed query set and cutoff k (see module docstring)."""

    query_ids: pa.Array  # (Q,) strings, the denominator of every metric
    n: np.ndarray  # (Q,) number of conditions; gold = grade n
    k: int
    doc_vocab: pa.Array  # distinct judged document ids (nonzero grades)
    keys: np.ndarray  # sorted int64 keys qidx * len(doc_vocab) + didx
    grades: np.ndarray  # grade of each key
    n_gold: np.ndarray  # (Q,) gold documents per query
    ideal_dcg: np.ndarray  # (Q,) DCG@k of the ideal graded ranking
    ideal_gold_dcg: np.ndarray  # (Q,) DCG@k of the ideal gold-only ranking
    family: np.ndarray  # (Q,) exact gold family index, see families()
    n_families: int

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def grades_of(self, qidx: np.ndarray, didx: np.ndarray) -> np.ndarray:
        """Grade of each (query index, doc index) pair; 0 when unjudged or unknown."""
        width = max(len(self.doc_vocab), 1)
        key = qidx * width + didx
        pos = np.searchsorted(self.keys, key)
        pos = np.minimum(pos, max(len(self.keys) - 1, 0))
        if len(self.keys) == 0:
            return np.zeros(len(key), dtype=np.int64)
        hit = (self.keys[pos] == key) & (qidx >= 0) & (didx >= 0)
        return np.where(hit, self.grades[pos], 0)


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
    qvocab = as_strings(query_ids)
    if isinstance(qvocab, pa.ChunkedArray):
        qvocab = qvocab.combine_chunks()
    n_arr = np.asarray(n, dtype=np.int64)
    if len(n_arr) != len(qvocab):
        raise ValueError("one n per query")
    if len(pc.unique(qvocab)) != len(qvocab):
        raise ValueError("query ids repeat")
    grades = np.asarray(qrel_grades, dtype=np.int64)
    qids = as_strings(qrel_query_ids)
    dids = as_strings(qrel_doc_ids)
    qidx = _codes(qids, qvocab)
    keep = (qidx >= 0) & (grades > 0)
    qidx, grades = qidx[keep], grades[keep]
    dids_kept = pc.filter(dids, pa.array(keep))
    doc_vocab = pc.unique(dids_kept)
    if isinstance(doc_vocab, pa.ChunkedArray):
        doc_vocab = doc_vocab.combine_chunks()
    didx = _codes(dids_kept, doc_vocab)
    if (grades > n_arr[qidx]).any():
        raise ValueError("a qrel grade exceeds its query's number of conditions")
    width = max(len(doc_vocab), 1)
    keys = qidx * width + didx
    order = np.argsort(keys, kind="stable")
    keys, grades, qidx, didx = keys[order], grades[order], qidx[order], didx[order]
    if keys.size > 1 and (keys[1:] == keys[:-1]).any():
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
    family, n_families = families(nq, qidx[gold], didx[gold])
    return BoundQrels(
        query_ids=qvocab,
        n=n_arr,
        k=k,
        doc_vocab=doc_vocab,
        keys=keys,
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

    Seed 002 groups queries sharing the complete set of gold document ids. A
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


def rank_run(
    bound: BoundQrels, query_ids: Any, doc_ids: Any, scores: Any, *, ties: Ties = "file"
) -> TopK:
    """Order each query's documents by score descending and keep the top k.

    ties="file" keeps run-file order among equal scores (seed 002's stable input
    order); ties="trec_eval" breaks them by document id descending, as trec_eval.
    Rows of queries outside the bound query set are ignored.
    """
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be one of {TIE_MODES}")
    qarr = as_strings(query_ids)
    darr = as_strings(doc_ids)
    sc = np.asarray(scores, dtype=np.float64)
    qidx = _codes(qarr, bound.query_ids)
    didx = _codes(darr, bound.doc_vocab)
    grade = bound.grades_of(qidx, didx)
    known = qidx >= 0
    nq, k = bound.n_queries, bound.k
    if ties == "file":
        tie_key = np.arange(len(sc))
    else:
        # Rank of the doc id in descending byte order (0 = largest), as trec_eval's strcmp.
        rank = pc.rank(darr, sort_keys="descending", tiebreaker="dense")
        tie_key = np.asarray(rank.to_numpy(zero_copy_only=False), dtype=np.int64)
    sel = np.flatnonzero(known)
    order = sel[np.lexsort((tie_key[sel], -sc[sel], qidx[sel]))]
    sq = qidx[order]
    pos = np.arange(len(sq)) - np.searchsorted(sq, sq, side="left")
    top = pos < k
    mat = np.zeros((nq, k), dtype=np.int64)
    mat[sq[top], pos[top]] = grade[order][top]
    present = np.bincount(sq, minlength=nq) > 0
    return TopK(grades=mat, present=present)
