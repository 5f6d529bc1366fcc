"""trec_eval's ranking and per-query bookkeeping, vectorised: qrels bound once, a run
ranked into flat arrays (one row per retrieved document, grouped by query, in rank
order), ready for `scorers.trec_compute`.

Pure. Semantics follow trec_eval (10.0; its form_res_rels step):

- a run is sorted by score descending, ties broken by docno descending (strcmp,
  i.e. byte order); scores are doubles, or float32 as pytrec_eval compares them
  (`precision="float32"`); `ties="file"` keeps file order among equal scores instead;
- `max_docs` (-M) keeps the top N after sorting; `judged_only` (-J) then drops every
  document the qrels do not judge (ranks close up);
- a retrieved document's relevance is its grade, -1 when the qrels do not list it,
  -2 when they list it with a negative grade (in the pool, not judged);
- the evaluated queries are those with qrels that appear in the run, or every qrels
  query with `complete` (-c), a missing one scored on trec_eval's one-document
  placeholder ranking (a document no qrels judge).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pyarrow as pa

from scorers.arrow_np import flat as _flat
from scorers.arrow_np import (
    from_np,
    index_in,
    join,
    keep,
    repeat_string,
    sort_indices,
    string_scalar,
    take,
    to_np,
    unique,
)

Precision = Literal["float64", "float32"]
Ties = Literal["file", "trec_eval"]
NONPOOL, UNJUDGED = -1, -2


@dataclass(frozen=True)
class Options:
    """trec_eval's flags that change what is evaluated (-l, -c, -M, -J, -N)."""

    level: int = 1  # -l: the lowest relevant grade
    complete: bool = False  # -c
    max_docs: int | None = None  # -M
    judged_only: bool = False  # -J
    num_docs: int = 0  # -N (only utility's fourth coefficient reads it)
    precision: Precision = "float64"
    ties: Ties = "trec_eval"
    # iprec_at_recall/11pt_avg cutoffs: trec_eval 10 rounds R*p; 9 (which pytrec_eval
    # embeds) truncates R*p + 0.9.
    cutoff_rounding: Literal["round", "plus0.9"] = "round"


def _strings(values: Any) -> pa.Array | pa.ChunkedArray:
    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values if values.type == pa.string() else values.cast(pa.string())
    return pa.array(np.asarray(values, dtype=object), type=pa.string())


@dataclass
class TrecQrels:
    """Qrels bound once: queries in strcmp order, the "qid\\0docid" key and grade of
    every row (runs are looked up in the keys)."""

    qids: pa.Array  # sorted unique query ids
    keys: pa.Array  # "qid\\0docid" per qrels row
    qrow: np.ndarray  # query index per qrels row
    grades: np.ndarray  # int64 per qrels row
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return len(self.qids)

    def num_rel(self, level: int) -> np.ndarray:
        """Relevant documents per query (grade >= level; negative grades never count)."""
        key = ("num_rel", level)
        if key not in self._cache:
            mask = (self.grades >= level) & (self.grades >= 0)
            self._cache[key] = np.bincount(self.qrow[mask], minlength=self.n)
        return self._cache[key]  # type: ignore[no-any-return]

    def num_nonrel(self, level: int) -> np.ndarray:
        """Judged non-relevant documents per query (0 <= grade < level)."""
        key = ("num_nonrel", level)
        if key not in self._cache:
            mask = (self.grades >= 0) & (self.grades < level)
            self._cache[key] = np.bincount(self.qrow[mask], minlength=self.n)
        return self._cache[key]  # type: ignore[no-any-return]

    def positive_grades(self) -> int:
        """Grades > 0 over all qrels (trec_eval's num_rel on the -c "all" line)."""
        return int((self.grades > 0).sum())

    def max_grade(self) -> np.ndarray:
        """Highest grade >= 0 per query (-1 when none)."""
        if "max_grade" not in self._cache:
            out = np.full(self.n, -1, dtype=np.int64)
            ok = self.grades >= 0
            np.maximum.at(out, self.qrow[ok], self.grades[ok])
            self._cache["max_grade"] = out
        return self._cache["max_grade"]  # type: ignore[no-any-return]

    def ideal(self, pairs: tuple[tuple[str, float], ...] = ()) -> Ideal:
        """The ideal gains per query: gains of the judged documents, positive ones only,
        highest first (trec_eval's setup_gains: a grade's gain is the grade unless a
        `level=gain` pair says otherwise)."""
        key = ("ideal", pairs)
        if key not in self._cache:
            ok = self.grades >= 0
            q, g = self.qrow[ok], apply_gains(self.grades[ok], pairs)
            keep = g > 0
            q, g = q[keep], g[keep]
            order = np.lexsort((-g, q))
            q, g = q[order], g[order]
            counts = np.bincount(q, minlength=self.n)
            starts = np.concatenate([[0], np.cumsum(counts)])
            terms = g / log2_of(np.arange(len(g)) - starts[q] + 2)
            self._cache[key] = Ideal(q, g, starts, counts, seg_cumsum(terms, starts, q))
        return self._cache[key]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Ideal:
    """Flat ideal gain lists: query, gain, per-query offsets and lengths, running ideal DCG."""

    q: np.ndarray
    gain: np.ndarray
    starts: np.ndarray
    length: np.ndarray
    running: np.ndarray  # ideal DCG over the first i+1 positions, per row

    def dcg_at(self, qs: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Ideal DCG of queries `qs` over their first k positions (k may pass the end)."""
        take = np.minimum(k, self.length[qs])
        idx = self.starts[qs] + take - 1
        out = np.zeros(len(qs))
        ok = take > 0
        out[ok] = self.running[idx[ok]]
        return out


def valid_int(name: str) -> bool:
    body = name[1:] if name[:1] in "+-" else name
    return body.isdigit()


def apply_gains(levels: np.ndarray, pairs: tuple[tuple[str, float], ...]) -> np.ndarray:
    """Gain of each relevance level: the level itself for levels >= 0 (0 below), or the
    gain a `level=gain` pair names."""
    g = np.where(levels >= 0, levels, 0).astype(np.float64)
    for name, value in pairs:
        if valid_int(name):
            g[levels == int(name)] = value
    return g


_LOG2: list[np.ndarray] = [np.zeros(0)]


def log2_of(x: np.ndarray) -> np.ndarray:
    """log2 of non-negative integers through a table of C's log2 (math.log2), so values
    match trec_eval's to the bit whatever numpy's vectorised log2 does."""
    x = np.asarray(x, dtype=np.int64)
    need = int(x.max()) + 1 if len(x) else 0
    if need > len(_LOG2[0]):
        size = max(need, 2 * len(_LOG2[0]), 1024)
        _LOG2[0] = np.array([math.log2(i) if i > 0 else -math.inf for i in range(size)])
    return _LOG2[0][x]


def seg_cumsum(x: np.ndarray, starts: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Running sum within each query's rows, added one row after another as trec_eval's
    loops add (pandas' cumsum compensates, which changes the last bit)."""
    if not len(x):
        return np.zeros(0)
    nq = len(starts) - 1
    if len(x) % nq == 0 and np.all(np.diff(starts) == len(x) // nq):
        # every query has the same number of rows (a fixed-depth run): no scatter needed
        return np.cumsum(x.reshape(nq, -1), axis=1).ravel()  # type: ignore[no-any-return]
    if np.all(x == np.round(x)) and float(np.abs(x).sum()) < 2.0**52:
        c = np.cumsum(x)  # integer-valued: one pass, exact
        base = np.concatenate([[0.0], c])[starts[:-1]]
        return c - base[q]  # type: ignore[no-any-return]
    n = np.diff(starts)
    width = int(n.max())
    pos = np.arange(len(x)) - starts[q]
    if len(n) * width <= 4 * len(x) + 1_000_000:
        grid = np.zeros((len(n), width))
        grid[q, pos] = x
        return np.cumsum(grid, axis=1)[q, pos]  # type: ignore[no-any-return]
    out = np.empty(len(x))
    for a, b in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
        out[a:b] = np.cumsum(x[a:b])
    return out


class DuplicateDocs(ValueError):
    """A document listed twice for one query (trec_eval refuses the run)."""


def bind_qrels(query_ids: Any, doc_ids: Any, grades: Any) -> TrecQrels:
    """Bind qrels once: sorted query ids and the (query, doc) keys runs are looked up in."""
    q, d = _flat(_strings(query_ids)), _flat(_strings(doc_ids))
    uniq = unique(q)
    qids = _flat(take(uniq, to_np(sort_indices(uniq))))
    qrow = to_np(index_in(q, qids)).astype(np.int64)
    keys = _flat(join(q, d, _SEP))
    return TrecQrels(qids, keys, qrow, np.asarray(grades, dtype=np.int64))


_SEP = string_scalar("\x00")


def _grades_of(qrels: TrecQrels, q: pa.Array, d: pa.Array) -> np.ndarray:
    """Relevance of each row: its grade, NONPOOL or UNJUDGED; a document twice for one
    query raises DuplicateDocs (judged ones share a qrels row, the rest a joined key)."""
    joined = join(q, d, _SEP)
    gi = to_np(index_in(joined, qrels.keys), null=-1)
    judged = gi >= 0
    if judged.any() and np.bincount(gi[judged]).max() > 1:
        raise DuplicateDocs("a document appears twice for one query")
    if not judged.all():
        unjudged = keep(joined, ~judged)
        if len(unique(unjudged)) != len(unjudged):
            raise DuplicateDocs("a document appears twice for one query")
    rel = np.where(judged, qrels.grades[np.maximum(gi, 0)], NONPOOL)
    return np.where(judged & (rel < 0), UNJUDGED, rel).astype(np.int64)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Ranking:
    """One run ranked against bound qrels: rows grouped by evaluated query, in rank order."""

    eq: np.ndarray  # qrels query index of each evaluated query (strcmp order)
    q: np.ndarray  # evaluated-query index (0..len(eq)-1) per row
    pos: np.ndarray  # 0-based rank per row
    rel: np.ndarray  # grade, NONPOOL or UNJUDGED per row
    starts: np.ndarray  # row offsets per evaluated query (len(eq) + 1)
    n: np.ndarray  # documents per evaluated query
    placeholder: np.ndarray  # bool per evaluated query: scored on -c's placeholder


def rank_run(qrels: TrecQrels, query_ids: Any, doc_ids: Any, scores: Any, opts: Options) -> Ranking:
    """Rank one run as trec_eval does (see the module docstring)."""
    q, d = _flat(_strings(query_ids)), _flat(_strings(doc_ids))
    qi = to_np(index_in(q, qrels.qids), null=-1).astype(np.int64)
    known = qi >= 0
    sc = np.asarray(scores, dtype=np.float64)
    if not known.all():
        rows = np.flatnonzero(known)
        q, d, qi, sc = take(q, rows), take(d, rows), qi[known], sc[known]
    present = np.zeros(qrels.n, dtype=bool)
    present[qi] = True
    if opts.complete:
        missing = np.flatnonzero(~present)
        if len(missing):  # trec_eval's placeholder ranking: one unjudged document
            q = pa.concat_arrays([q, take(qrels.qids, missing)])
            d = pa.concat_arrays([d, repeat_string("ceci_nest_pas_un_docno", len(missing))])
            qi = np.concatenate([qi, missing])
            sc = np.concatenate([sc, np.ones(len(missing))])
        eq = np.arange(qrels.n)
    else:
        eq = np.flatnonzero(present)
    placeholder = ~present[eq]
    s = sc.astype(np.float32) if opts.precision == "float32" else sc
    cols, names = [from_np(qi), from_np(s), d], ["q", "s", "d"]
    if opts.ties == "trec_eval":
        keys = [("q", "ascending"), ("s", "descending"), ("d", "descending")]
    else:
        cols, names = [*cols, from_np(np.arange(len(qi)))], [*names, "i"]
        keys = [("q", "ascending"), ("s", "descending"), ("i", "ascending")]
    order = to_np(sort_indices(pa.Table.from_arrays(cols, names=names), keys))
    qs = qi[order]
    rel = _grades_of(qrels, q, d)[order]
    # evaluated-query index per row: qrels index -> position in eq
    to_eval = np.full(qrels.n, -1, dtype=np.int64)
    to_eval[eq] = np.arange(len(eq))
    qe = to_eval[qs]
    pos = _positions(qe, len(eq))
    drop = np.zeros(len(qe), dtype=bool)
    if opts.max_docs is not None:
        drop |= pos >= opts.max_docs
    if opts.judged_only:
        drop |= rel < 0
    if drop.any():
        qe, rel = qe[~drop], rel[~drop]
        pos = _positions(qe, len(eq))
    n = np.bincount(qe, minlength=len(eq))
    starts = np.concatenate([[0], np.cumsum(n)])
    return Ranking(eq, qe, pos, rel, starts, n, placeholder)


def _positions(qe: np.ndarray, nq: int) -> np.ndarray:
    """0-based rank of each row within its query (rows grouped by query)."""
    n = np.bincount(qe, minlength=nq)
    starts = np.concatenate([[0], np.cumsum(n)])
    return np.arange(len(qe)) - starts[qe]  # type: ignore[no-any-return]
