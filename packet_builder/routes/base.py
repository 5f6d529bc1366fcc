"""The shared route interface, the page corpus and the one tokenizer every route uses."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from vocabulary.textnorm import _TRANSLATE

# Fixed order: pool statistics, the admin key and the docs list routes in this order.
ROUTE_NAMES = ("original", "selected", "lexical", "bm25", "fuzzy", "construction")

# (page number, route score), best first.
Ranking = list[tuple[int, float]]

_LINE_BREAKS = "\n\r\u2028\u2029\x0b\x0c\x85"
# A hyphen after a letter/digit, then whitespace containing a line break, then a letter.
# The pattern starts with the literal "-" (lookbehind after it) so the regex engine can skip
# ahead to hyphens instead of trying every position.
_HYPHEN_BREAK = re.compile(rf"-(?<=[^\W_]-)[^\S{_LINE_BREAKS}]*[{_LINE_BREAKS}]\s*(?=[^\W\d_])")
_WORD = re.compile(r"\w+")


def fast_normalize(text: str) -> str:
    """`textnorm.normalize` on whole strings (regex, no offset map), for indexing many pages.

    Same steps: drop soft hyphens, NFKC, case fold, unify quotes/dashes, join
    hyphenated line breaks, collapse whitespace. A test checks it against
    `textnorm.normalize` on the shared vectors and on generated text; the only
    known difference is a soft hyphen directly followed by a combining mark.
    """
    # str.split() splits on exactly the characters str.isspace() accepts, like textnorm.
    return " ".join(fold(text).split())


def fold(text: str) -> str:
    """`fast_normalize` without its last step (collapsing whitespace): the same \\w+ words,
    as no whitespace character is a word character, without a string per word."""
    # Quotes/dashes are unified before NFKC as well as after, like textnorm.
    text = text.replace("\u00ad", "").translate(_TRANSLATE)
    text = unicodedata.normalize("NFKC", text).casefold().translate(_TRANSLATE)
    if "-" in text:
        text = _HYPHEN_BREAK.sub("", text)
    return text


def words(normalized: str) -> list[str]:
    """Split already-normalized text into \\w+ tokens."""
    return _WORD.findall(normalized)


def tokenize(text: str) -> list[str]:
    """The one tokenizer of the BM25 route and its rank_bm25 cross-check: normalize, \\w+ split."""
    return _WORD.findall(fold(text))


@dataclass(frozen=True)
class Target:
    """One (query, document, condition) whose candidate pages a route ranks."""

    query_id: str
    doc_id: str
    condition_id: str
    name: str
    requirement: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.query_id, self.doc_id, self.condition_id)

    def phrases(self) -> list[str]:
        """Normalized name and aliases, deduplicated, longest first (for regex alternation)."""
        return list(_phrases(self.name, self.aliases))


@functools.lru_cache(maxsize=8192)
def _phrases(name: str, aliases: tuple[str, ...]) -> tuple[str, ...]:
    seen = {fast_normalize(p) for p in (name, *aliases)}
    return tuple(sorted((p for p in seen if p), key=lambda p: (-len(p), p)))


class Route(Protocol):
    @property
    def name(self) -> str: ...

    def rank(self, target: Target) -> Ranking:
        """Pages of `target.doc_id` this route retrieves, best first."""
        ...


@dataclass
class Corpus:
    """All pages, sorted by (doc_id, page), so one document's pages are one row range."""

    doc_ids: list[str]
    pages: list[int]
    texts: list[str]
    norm: list[str] = field(init=False)
    _starts: dict[str, tuple[int, int]] = field(init=False)
    _tokens: list[list[str]] | None = field(default=None, init=False, repr=False)
    _vocab: set[str] | None = field(default=None, init=False, repr=False)
    _terms: TermMatrix | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.norm = [fast_normalize(t) for t in self.texts]
        self._starts = {}
        for i, doc in enumerate(self.doc_ids):
            start, _ = self._starts.get(doc, (i, i))
            self._starts[doc] = (start, i + 1)

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, int, str]]) -> Corpus:
        ordered = sorted(rows, key=lambda r: (r[0], r[1]))
        return cls([r[0] for r in ordered], [r[1] for r in ordered], [r[2] or "" for r in ordered])

    def __len__(self) -> int:
        return len(self.doc_ids)

    def rows(self, doc_id: str) -> range:
        start, end = self._starts.get(doc_id, (0, 0))
        return range(start, end)

    def doc_pages(self, doc_id: str) -> list[int]:
        return [self.pages[i] for i in self.rows(doc_id)]

    def token_lists(self) -> list[list[str]]:
        """`words` of every page (computed once; the BM25 index and the leak check share it)."""
        if self._tokens is None:
            self._tokens = [words(t) for t in self.norm]
        return self._tokens

    def vocabulary(self) -> set[str]:
        if self._vocab is None:
            self._vocab = set(self.terms().vocab)
        return self._vocab

    def terms(self) -> TermMatrix:
        """Term ids and per-page term counts (computed once; BM25 and lexical share it)."""
        if self._terms is None:
            self._terms = TermMatrix.build(self.token_lists())
        return self._terms

    def shown_pages(self, doc_id: str) -> list[int]:
        """Pages that can be displayed: those with some text after normalization."""
        return [self.pages[i] for i in self.rows(doc_id) if self.norm[i]]

    def page_text(self, doc_id: str, page: int) -> str:
        rows = self.rows(doc_id)
        idx = bisect.bisect_left(self.pages, page, rows.start, rows.stop)
        if idx >= rows.stop or self.pages[idx] != page:
            raise KeyError((doc_id, page))
        return self.texts[idx]


@dataclass
class TermMatrix:
    """Pages x vocabulary term counts (CSR) and, on demand, each term's pages (CSC).

    Term ids are given in order of first occurrence over the pages.
    """

    vocab: dict[str, int]
    tf: Any  # scipy.sparse.csr_matrix, float64 counts, duplicates summed
    doc_len: Any  # np.ndarray, tokens per page
    _csc: Any = field(default=None, init=False, repr=False)

    @classmethod
    def build(cls, token_lists: Sequence[Sequence[str]]) -> TermMatrix:
        import numpy as np  # routes are imported by light CLI commands: load numpy/scipy late
        import scipy.sparse as sp

        flat = itertools.chain.from_iterable
        vocab = {t: i for i, t in enumerate(dict.fromkeys(flat(token_lists)))}
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        indptr = np.zeros(len(token_lists) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = np.fromiter(
            map(vocab.__getitem__, flat(token_lists)), dtype=np.int64, count=int(indptr[-1])
        )
        data = np.ones(len(indices), dtype=np.float64)
        tf = sp.csr_matrix((data, indices, indptr), shape=(len(token_lists), len(vocab)))
        tf.sum_duplicates()
        return cls(vocab, tf, lengths.astype(np.float64))

    def pages_of(self) -> Any:
        """Column-major copy (scipy.sparse.csc_matrix): a term's page rows, sorted."""
        if self._csc is None:
            csc = self.tf.tocsc()
            csc.sort_indices()
            self._csc = csc
        return self._csc

    def rows_with(self, term: str, rows: range) -> Any:
        """Sorted page rows in `rows` whose text has `term` as a token (np.ndarray)."""
        import numpy as np

        csc = self.pages_of()
        col = self.vocab.get(term)
        if col is None:
            return np.zeros(0, dtype=csc.indices.dtype)
        idx = csc.indices[csc.indptr[col] : csc.indptr[col + 1]]
        a, b = np.searchsorted(idx, (rows.start, rows.stop))
        return idx[a:b]

    def page_count(self, term: str) -> int:
        col = self.vocab.get(term)
        csc = self.pages_of()
        return 0 if col is None else int(csc.indptr[col + 1] - csc.indptr[col])


def ranking_from_scores(scores: Mapping[int, float]) -> Ranking:
    """Best score first; ties by page number so every ranking is deterministic."""
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


@dataclass(frozen=True)
class PageListRoute:
    """A route that replays known page lists: (query, doc, condition) -> {page: score}."""

    name: str
    table: Mapping[tuple[str, str, str], Mapping[int, float]]

    def rank(self, target: Target) -> Ranking:
        return ranking_from_scores(self.table.get(target.key, {}))


def restrict(ranking: Ranking, allowed: Sequence[int]) -> Ranking:
    keep = set(allowed)
    return [(p, s) for p, s in ranking if p in keep]
