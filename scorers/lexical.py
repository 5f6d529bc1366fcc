"""Baseline rankings built in the tool: BM25 (bm25s) and the query-blind floors (pure).

The n-Clue paper's lexical baselines rank documents or pages by BM25 over each query
form; its floors are a frequency prior and a random ranking (Table S1 rows
`frequency_prior` and `random`). Ranking here works on token lists and ids only: the
service (`services.baseline_runs`) reads the corpus and writes the TREC runs.

BM25 is bm25s's (docs/references.md says how its variants relate to rank_bm25's and
Lucene's). Scores are kept in float64 (bm25s defaults to float32, which would make
ties of scores that differ). A query's list holds only units that match at least one
query term (score != 0), at most `depth`, by score descending and then by unit order
(the order the units were indexed in), so a cut at `depth` never depends on a sort's
tie order.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")


@dataclass(frozen=True)
class Ranked:
    """One query's list: unit indices (into the indexed units) and their scores."""

    units: np.ndarray
    scores: np.ndarray


def top_units(scores: np.ndarray, depth: int, *, keep_zero: bool = False) -> Ranked:
    """The `depth` best units by score descending, ties by unit order; zero scores dropped
    unless `keep_zero` (a floor ranks every unit)."""
    idx = np.arange(len(scores)) if keep_zero else np.flatnonzero(scores)
    if not len(idx):
        return Ranked(np.empty(0, np.int64), np.empty(0, np.float64))
    vals = scores[idx]
    if len(idx) > depth:
        # Everything strictly above the depth-th score, then the tied block in unit order.
        kth = np.partition(vals, len(vals) - depth)[len(vals) - depth]
        above = vals > kth
        keep = np.concatenate([idx[above], idx[vals == kth][: depth - int(above.sum())]])
        idx, vals = keep, scores[keep]
    order = np.lexsort((idx, -vals))
    return Ranked(idx[order].astype(np.int64), vals[order].astype(np.float64))


class BM25Index:
    """A bm25s index over tokenized units (documents or pages)."""

    def __init__(
        self, corpus_tokens: Sequence[Sequence[str]], *, k1: float, b: float,
        method: str = "lucene",
    ) -> None:  # fmt: skip
        # A new token gets the next id: `map` over the dict's own lookup stays in C.
        vocab: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        lookup = vocab.__getitem__
        codes = np.fromiter(itertools.chain.from_iterable(map(lookup, d) for d in corpus_tokens),
                            dtype=np.int64)  # fmt: skip
        offsets = np.zeros(len(corpus_tokens) + 1, dtype=np.int64)
        np.cumsum([len(d) for d in corpus_tokens], out=offsets[1:])
        self._build(codes, offsets, list(vocab), k1=k1, b=b, method=method)

    @classmethod
    def from_codes(
        cls, codes: np.ndarray, offsets: np.ndarray, vocab: Sequence[str], *, k1: float,
        b: float, method: str = "lucene",
    ) -> BM25Index:  # fmt: skip
        """The index of units whose tokens are `vocab[codes[offsets[i]:offsets[i + 1]]]`
        (codes numbered from 0 without gaps)."""
        index = cls.__new__(cls)
        index._build(codes, offsets, vocab, k1=k1, b=b, method=method)
        return index

    def _build(
        self, codes: np.ndarray, offsets: np.ndarray, vocab: Sequence[str], *, k1: float,
        b: float, method: str,
    ) -> None:  # fmt: skip
        if method not in METHODS:
            raise ValueError(f"unknown BM25 method {method!r}")
        self.n_units = len(offsets) - 1
        # bm25s takes a vocabulary and its ids; passing them keeps every token (its own
        # tokenizer would split and filter again).
        self._vocab = {t: i for i, t in enumerate(vocab)} or {"": 0}
        self._bm25 = _flat_bm25()(k1=k1, b=b, method=method, dtype="float64")
        flat = _Flat(np.asarray(codes, dtype=np.int64), np.asarray(offsets, dtype=np.int64))
        tokenized = _bm25s().tokenization.Tokenized(ids=flat,
                                                    vocab=dict(self._vocab))  # fmt: skip
        self._bm25.index(tokenized, show_progress=False)

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Every unit's score for the query (each occurrence of a term counts once)."""
        ids = [self._vocab[t] for t in query_tokens if t in self._vocab]
        if not ids:
            return np.zeros(self.n_units, dtype=np.float64)
        return np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float64)

    def rank(self, query_tokens: Sequence[str], depth: int) -> Ranked:
        return top_units(self.scores(query_tokens), depth)


@dataclass(frozen=True)
class _Flat:
    """Every unit's token ids in one array: unit i's are codes[offsets[i]:offsets[i + 1]]."""

    codes: np.ndarray
    offsets: np.ndarray


def _bm25s() -> Any:
    """bm25s, imported without numba, scipy and tqdm's asyncio front end.

    bm25s imports numba and scipy at its top level if they are installed (they are:
    other commands use them), and tqdm.auto (which imports asyncio) unless
    DISABLE_TQDM is set: about 0.7 s of each `evaudit runs bm25`. Its default numpy
    backends, the ones used here, need neither, and the index is built without a
    progress bar. An import that finds None in sys.modules fails, which bm25s takes as
    "not installed"; the entries and the variable are removed right after, so later
    imports of numba or scipy work as usual.
    """
    if "bm25s" in sys.modules:
        return sys.modules["bm25s"]
    blocked = [m for m in ("numba", "scipy") if m not in sys.modules]
    for m in blocked:
        sys.modules[m] = None  # type: ignore[assignment]
    tqdm_switch = os.environ.get("DISABLE_TQDM")
    os.environ["DISABLE_TQDM"] = "1"
    try:
        import bm25s
    finally:
        for m in blocked:
            if sys.modules.get(m, 0) is None:
                del sys.modules[m]
        if tqdm_switch is None:
            del os.environ["DISABLE_TQDM"]
        else:
            os.environ["DISABLE_TQDM"] = tqdm_switch
    return bm25s


@functools.cache
def _flat_bm25() -> Any:
    """bm25s.BM25 whose index build takes every unit's token ids in one array (`_Flat`).

    bm25s counts document frequencies and term frequencies in a Python loop per unit
    (most of the index time over 20,000 pages); this build counts (term, unit) pairs
    with one np.unique and then applies bm25s's own idf and term-frequency functions
    to whole arrays, the same float64 operations in the same order, so the score
    matrix is bitwise the one bm25s builds (a test checks every method).
    """
    bm25s = _bm25s()
    scoring = bm25s.scoring
    base: type = bm25s.BM25

    class FlatBM25(base):  # type: ignore[valid-type,misc]
        def build_index_from_ids(
            self, unique_token_ids: list[int], corpus_token_ids: Any, show_progress: bool = True,
            leave_progress: bool = False,
        ) -> dict[str, Any]:  # fmt: skip
            if not isinstance(corpus_token_ids, _Flat):
                return super().build_index_from_ids(  # type: ignore[no-any-return]
                    unique_token_ids, corpus_token_ids, show_progress, leave_progress
                )
            n_vocab, offsets = len(unique_token_ids), corpus_token_ids.offsets
            n_docs = len(offsets) - 1
            lengths = np.diff(offsets)
            avg_doc_len = lengths.mean()
            unit_of = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
            # (term, unit) keys sorted: the CSC order, columns = terms, rows = units.
            pairs, tf = np.unique(corpus_token_ids.codes * n_docs + unit_of, return_counts=True)
            term, unit = np.divmod(pairs, n_docs)
            df = np.bincount(term, minlength=n_vocab)
            doc_frequencies = dict(enumerate(df.tolist()))
            idf_fn = scoring._select_idf_scorer(self.idf_method)
            tfc_fn = scoring._select_tfc_scorer(self.method)
            self.nonoccurrence_array = None
            if self.method in self.methods_requiring_nonoccurrence:
                self.nonoccurrence_array = scoring._build_nonoccurrence_array(
                    doc_frequencies=doc_frequencies, n_docs=n_docs, compute_idf_fn=idf_fn,
                    calculate_tfc_fn=tfc_fn, l_d=avg_doc_len, l_avg=avg_doc_len, k1=self.k1,
                    b=self.b, delta=self.delta, dtype=self.dtype,
                )  # fmt: skip
            idf = scoring._build_idf_array(doc_frequencies=doc_frequencies, n_docs=n_docs,
                                           compute_idf_fn=idf_fn, dtype=self.dtype)  # fmt: skip
            tfc = tfc_fn(tf_array=tf.astype(self.dtype), l_d=lengths[unit], l_avg=avg_doc_len,
                         k1=self.k1, b=self.b, delta=self.delta)  # fmt: skip
            data = idf[term] * tfc
            if self.nonoccurrence_array is not None:
                data -= self.nonoccurrence_array[term]
            indptr = np.zeros(n_vocab + 1, dtype=np.int64)
            np.cumsum(df, out=indptr[1:])
            return {"data": data.astype(self.dtype), "indices": unit.astype(self.int_dtype),
                    "indptr": indptr, "num_docs": n_docs}  # fmt: skip

    return FlatBM25


def frequency_prior(unit_ids: Sequence[str], relevant_counts: dict[str, int]) -> np.ndarray:
    """Query-blind scores: how many queries judge each unit relevant (the same list for
    every query; it reads the qrels, so it is a floor with leaked labels, not a system)."""
    return np.asarray([float(relevant_counts.get(u, 0)) for u in unit_ids], dtype=np.float64)


def random_scores(n_units: int, seed: int, query_id: str) -> np.ndarray:
    """A seeded random ranking per query, the same for a query whatever the other
    queries are (the seed and the query id make its generator)."""
    digest = hashlib.sha256(f"{seed}\0{query_id}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    # Scores n..1 of a permutation: distinct, so no tie rule is ever needed.
    scores = np.empty(n_units, dtype=np.float64)
    scores[rng.permutation(n_units)] = np.arange(n_units, 0, -1, dtype=np.float64)
    return scores
