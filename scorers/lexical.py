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

import hashlib
import itertools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

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
        import bm25s

        if method not in METHODS:
            raise ValueError(f"unknown BM25 method {method!r}")
        self.n_units = len(corpus_tokens)
        self._bm25 = bm25s.BM25(k1=k1, b=b, method=method, dtype="float64")
        # bm25s takes a vocabulary and id lists; building them here keeps every token
        # (its own tokenizer would split and filter again).
        # A new token gets the next id: `map` over the dict's own lookup stays in C.
        vocab: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        lookup = vocab.__getitem__
        ids = [list(map(lookup, doc)) for doc in corpus_tokens]
        if not vocab:
            lookup("")
        self._vocab = dict(vocab)
        self._bm25.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab),
                         show_progress=False)  # fmt: skip

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Every unit's score for the query (each occurrence of a term counts once)."""
        ids = [self._vocab[t] for t in query_tokens if t in self._vocab]
        if not ids:
            return np.zeros(self.n_units, dtype=np.float64)
        return np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float64)

    def rank(self, query_tokens: Sequence[str], depth: int) -> Ranked:
        return top_units(self.scores(query_tokens), depth)


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
