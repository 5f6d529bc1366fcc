"""`bm25`: BM25Okapi page retrieval, restricted to the pair's document.

Exactly `rank_bm25.BM25Okapi` (k1=1.5, b=0.75, epsilon=0.25) over ALL pages of
the corpus (document frequencies and average length corpus-wide), vectorised
with a scipy.sparse term-frequency matrix so one index serves every target.
Query = tokenize(name + aliases + requirement); a repeated query token counts
once per occurrence, as in rank_bm25. Pages with score <= 0 are not retrieved.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import InitVar, dataclass, field

import numpy as np
import scipy.sparse as sp

from packet_builder.routes.base import (
    Corpus,
    Ranking,
    Target,
    TermMatrix,
    tokenize,
)

NAME = "bm25"


@dataclass
class BM25Index:
    """Term frequencies (pages x vocabulary) and BM25Okapi idf, as rank_bm25 computes them."""

    token_lists: Sequence[Sequence[str]]
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    # Prebuilt term counts of exactly these token lists (`Corpus.terms`), to share one build.
    terms: InitVar[TermMatrix | None] = None
    vocab: dict[str, int] = field(init=False)
    tf: sp.csr_matrix = field(init=False)
    idf: np.ndarray = field(init=False)
    norm_len: np.ndarray = field(init=False)
    _csc_cache: sp.csc_matrix | None = field(default=None, init=False, repr=False)

    def __post_init__(self, terms: TermMatrix | None) -> None:
        n_docs = len(self.token_lists)
        if n_docs == 0:
            raise ValueError("BM25 needs at least one page")
        if terms is None:
            terms = TermMatrix.build(self.token_lists)
        self.vocab, self.tf = terms.vocab, terms.tf
        self._csc_cache = terms.pages_of()
        doc_len = terms.doc_len
        avgdl = doc_len.sum() / n_docs
        df = np.diff(self._csc_cache.indptr).astype(np.float64)  # pages holding each term
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
        return cls(corpus.token_lists(), **params, terms=corpus.terms())

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

    def scores_many(self, queries: Sequence[Sequence[str]], rows: range) -> np.ndarray:
        """`scores(q, rows)` for many queries at once (queries x rows), one sparse product.

        The same numbers as `scores`, bit for bit: each query row keeps its terms in
        first-occurrence order and scipy's CSR product adds count * part in that
        stored order, starting from 0, exactly as the loop in `scores` does.
        """
        start, stop = rows.start, rows.stop
        out = np.zeros((len(queries), max(stop - start, 0)))
        if stop <= start or not queries:
            return out
        cols: list[int] = []
        vals: list[float] = []
        indptr = [0]
        for query in queries:
            counts = Counter(t for t in query if t in self.vocab)
            cols.extend(self.vocab[t] for t in counts)
            vals.extend(counts.values())
            indptr.append(len(cols))
        used = np.unique(np.asarray(cols, dtype=np.int64))
        if not len(used):
            return out
        # The document's pages restricted to the query terms: part[page, term] as in `scores`.
        block = self.tf[start:stop][:, used].tocoo()
        freq = block.data
        part = self.idf[used[block.col]] * (
            freq * (self.k1 + 1) / (freq + self.norm_len[start + block.row])
        )
        weights = sp.csr_matrix(
            (part, (block.col, block.row)), shape=(len(used), stop - start)
        )  # terms x pages
        local = np.searchsorted(used, np.asarray(cols, dtype=np.int64))
        query = sp.csr_matrix(
            (np.asarray(vals, dtype=np.float64), local, np.asarray(indptr, dtype=np.int64)),
            shape=(len(queries), len(used)),
        )
        out[:] = (query @ weights).toarray()
        return out

    def _csc(self) -> sp.csc_matrix:
        """Column-major copy: a term's pages are one contiguous, sorted slice."""
        if self._csc_cache is None:
            csc = self.tf.tocsc()
            csc.sort_indices()
            self._csc_cache = csc
        return self._csc_cache


def query_tokens(target: Target) -> list[str]:
    return list(_query_tokens(target.name, target.aliases, target.requirement))


@functools.lru_cache(maxsize=8192)
def _query_tokens(name: str, aliases: tuple[str, ...], requirement: str) -> tuple[str, ...]:
    return tuple(tokenize(" ".join((name, *aliases, requirement))))


@dataclass
class BM25Route:
    corpus: Corpus
    index: BM25Index
    name: str = NAME
    # Scores of the current document's queries (targets are pooled document by document);
    # `expect` announces a document's queries so they are scored in one sparse product.
    _doc: str | None = field(default=None, repr=False)
    # query tokens -> (scores over the document's pages, page order best first)
    _scores: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, repr=False
    )
    _planned: dict[str, set[tuple[str, ...]]] = field(default_factory=dict, repr=False)

    def expect(self, targets: Iterable[Target]) -> None:
        """Announce targets that will be ranked, so each document's queries are batched."""
        for target in targets:
            self._planned.setdefault(target.doc_id, set()).add(
                _query_tokens(target.name, target.aliases, target.requirement)
            )

    def rank(self, target: Target) -> Ranking:
        rows = self.corpus.rows(target.doc_id)
        query = _query_tokens(target.name, target.aliases, target.requirement)
        if target.doc_id != self._doc:
            self._doc = target.doc_id
            self._scores.clear()
        if query not in self._scores:
            todo = sorted({query} | self._planned.pop(target.doc_id, set()))
            matrix = self.index.scores_many(todo, rows)
            # ranking_from_scores order for every query at once: a stable sort of -score keeps
            # equal scores in row order, which is page order (the corpus is sorted by page).
            order = np.argsort(-matrix, axis=1, kind="stable")
            for q, row, idx in zip(todo, matrix, order, strict=True):
                self._scores[q] = (row, idx)
        scores, order = self._scores[query]
        order = order[scores[order] > 0]
        pages = self.corpus.pages[rows.start : rows.stop]
        return list(zip([pages[i] for i in order.tolist()], scores[order].tolist(), strict=True))
