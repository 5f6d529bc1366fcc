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

from packet_builder.routes.base import Corpus, Ranking, Target, ranking_from_scores, tokenize, words

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
        return cls([words(text) for text in corpus.norm], **params)

    def scores(self, query: Sequence[str], rows: range | None = None) -> np.ndarray:
        """BM25Okapi scores of `query` tokens for the given page rows (all pages by default)."""
        start, stop = (0, self.tf.shape[0]) if rows is None else (rows.start, rows.stop)
        counts = Counter(t for t in query if t in self.vocab)
        if not counts or stop <= start:
            return np.zeros(max(stop - start, 0))
        cols = np.fromiter((self.vocab[t] for t in counts), dtype=np.int64, count=len(counts))
        weights = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        freq = self.tf[start:stop][:, cols].toarray()
        denom = freq + self.norm_len[start:stop, None]
        per_term = freq * (self.k1 + 1) / denom
        result: np.ndarray = per_term @ (weights * self.idf[cols])
        return result


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
