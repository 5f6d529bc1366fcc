"""`bm25`: BM25Okapi page retrieval, restricted to the pair's document.

Exactly `rank_bm25.BM25Okapi` (k1=1.5, b=0.75, epsilon=0.25) over ALL pages of
the corpus (document frequencies and average length corpus-wide), vectorised
with a scipy.sparse term-frequency matrix so one index serves every target.
Query = tokenize(name + aliases + requirement); a repeated query token counts
once per occurrence, as in rank_bm25. Pages with score <= 0 are not retrieved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from packet_builder.routes.base import Corpus, Ranking, Target, ranking_from_scores, tokenize

NAME = "bm25"


@dataclass
class BM25Index:
    """Term frequencies (pages x vocabulary) and BM25Okapi idf, as rank_bm25 computes them."""

    token_lists: Sequence[Sequence[str]]
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    vocab: dict[str, int] = field(init=False)
    tf: sp.csr_matrix = field(init=False)
    idf: np.ndarray = field(init=False)
    norm_len: np.ndarray = field(init=False)
    _csc_cache: sp.csc_matrix | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        vocab: dict[str, int] = {}
        indices: list[int] = []
        indptr = [0]
        for tokens in self.token_lists:
            indices.extend(vocab.setdefault(t, len(vocab)) for t in tokens)
            indptr.append(len(indices))
        n_docs = len(self.token_lists)
        if n_docs == 0:
            raise ValueError("BM25 needs at least one page")
        data = np.ones(len(indices), dtype=np.float64)
        tf = sp.csr_matrix(
            (data, np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
            shape=(n_docs, len(vocab)),
        )
        tf.sum_duplicates()
        self.vocab, self.tf = vocab, tf
        doc_len = np.diff(np.asarray(indptr, dtype=np.float64))
        avgdl = doc_len.sum() / n_docs
        df = np.bincount(tf.indices, minlength=len(vocab)).astype(np.float64)
        idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
        if len(idf):
            # rank_bm25: negative idf (term in more than half the pages) -> epsilon * mean idf.
            idf[idf < 0] = self.epsilon * idf.mean()
        self.idf = idf
        # Per-page length factor k1 * (1 - b + b * dl / avgdl); avgdl 0 only for an all-empty corpus.
        ratio = doc_len / avgdl if avgdl > 0 else np.zeros_like(doc_len)
        self.norm_len = self.k1 * (1 - self.b + self.b * ratio)

    @classmethod
    def from_corpus(cls, corpus: Corpus, **params: float) -> BM25Index:
        return cls(corpus.token_lists(), **params)

    def scores(self, query: Sequence[str], rows: range | None = None) -> np.ndarray:
        """BM25Okapi scores of `query` tokens for the given page rows (all pages by default)."""
        start, stop = (0, self.tf.shape[0]) if rows is None else (rows.start, rows.stop)
        out = np.zeros(max(stop - start, 0))
        if stop <= start:
            return out
        csc = self._csc()
        for term, count in Counter(t for t in query if t in self.vocab).items():
            col = self.vocab[term]
            lo, hi = csc.indptr[col], csc.indptr[col + 1]
            idx = csc.indices[lo:hi]  # sorted page rows holding the term
            a, b = np.searchsorted(idx, (start, stop))
            if a == b:
                continue
            pages = idx[a:b]
            freq = csc.data[lo + a : lo + b]
            # Same term order and arithmetic as rank_bm25.get_scores, per occurrence in the query.
            part = self.idf[col] * (freq * (self.k1 + 1) / (freq + self.norm_len[pages]))
            out[pages - start] += count * part
        return out

    def _csc(self) -> sp.csc_matrix:
        """Column-major copy: a term's pages are one contiguous, sorted slice."""
        if self._csc_cache is None:
            csc = self.tf.tocsc()
            csc.sort_indices()
            self._csc_cache = csc
        return self._csc_cache


def query_tokens(target: Target) -> list[str]:
    return tokenize(" ".join((target.name, *target.aliases, target.requirement)))


@dataclass
class BM25Route:
    corpus: Corpus
    index: BM25Index
    name: str = NAME

    def rank(self, target: Target) -> Ranking:
        rows = self.corpus.rows(target.doc_id)
        scores = self.index.scores(query_tokens(target), rows)
        return ranking_from_scores(
            {self.corpus.pages[rows.start + i]: float(s) for i, s in enumerate(scores) if s > 0}
        )
