"""Run fusion: equal-weight Reciprocal Rank Fusion, CombSUM and CombMNZ (pure, vectorised).

The n-Clue supplement ("Do Current Retrievers Cover All the Evidence?",
execution settings) fuses runs by equal-weight RRF with k = 60 over the top
100 documents of each run. Definitions (docs/runs.md):

* Each run is ranked per query by score descending; equal scores keep the
  run's row order (the supplement's "stable input order"). Only the first
  ``depth`` documents of each run take part.
* ``rrf``: a document's score is the sum over runs of 1 / (k + rank), rank
  1-based; a run that does not list the document adds nothing.
* ``combsum``: the sum over runs of the min-max normalised score
  (s - min) / max(max - min, 1e-9), min and max over that run's top ``depth``
  for the query; ``combmnz``: the CombSUM score times the number of runs that
  list the document. The 1e-9 floor is ranx's, so a constant list maps to 0.
* The fused list keeps the top ``depth`` per query, ordered by fused score
  descending; equal fused scores are ordered by first appearance when the
  inputs are read in the order given, each top to bottom.

Every document's contributions are summed in one canonical order (RRF: rank
by rank, count x 1/(k + rank); CombSUM/CombMNZ: largest first), so documents
with the same contributions get bit-identical scores and ties are real ties,
broken by the stated rule rather than by rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorers.arrow_np import from_np, to_np
from scorers.fusion_rrf import rrf_fuse, rrf_sum, run_blocks
from scorers.rank_order import rank_within, rank_within_ties
from vocabulary.errors import InputError

METHODS = ("rrf", "combsum", "combmnz")
MINMAX_FLOOR = 1e-9


@dataclass(frozen=True)
class RunInput:
    """One run's rows in file order (query, document, score)."""

    name: str
    query_id: Any  # array-like of str
    doc_id: Any
    score: Any  # array-like of float


@dataclass(frozen=True)
class Ranked:
    """A ranking: rows grouped by query (first-appearance order), rank 1-based within query."""

    query_id: np.ndarray
    doc_id: np.ndarray
    rank: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        return len(self.rank)

    def per_query(self) -> dict[str, list[tuple[str, float]]]:
        """{query_id: [(doc_id, score), ...]} in rank order (for tests and small runs)."""
        out: dict[str, list[tuple[str, float]]] = {}
        for q, d, s in zip(self.query_id, self.doc_id, self.score, strict=True):
            out.setdefault(str(q), []).append((str(d), float(s)))
        return out


@dataclass(frozen=True)
class FuseRunStats:
    name: str
    queries: int
    rows: int
    rows_used: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FuseReport:
    method: str
    k: int | None
    depth: int
    normalisation: str | None
    runs: tuple[FuseRunStats, ...]
    queries: int
    rows: int
    out: str = ""
    tag: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"runs": [r.to_json() for r in self.runs]}


def minmax(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """(v - min) / max(max - min, 1e-9) within each group (groups: sorted-or-not int codes)."""
    ngroups = int(groups.max()) + 1 if len(groups) else 0
    lo = np.full(ngroups, np.inf)
    hi = np.full(ngroups, -np.inf)
    np.minimum.at(lo, groups, values)
    np.maximum.at(hi, groups, values)
    den = np.maximum(hi - lo, MINMAX_FLOOR)
    return (values - lo[groups]) / den[groups]


def _arrow(values: Any) -> pa.ChunkedArray:
    if isinstance(values, pa.ChunkedArray):
        return values.cast(pa.string())
    if isinstance(values, pa.Array):
        return pa.chunked_array([values.cast(pa.string())])
    return pa.chunked_array([pa.array(np.asarray(values, dtype=object), type=pa.string())])


def _encode(columns: list[Any]) -> tuple[list[np.ndarray], pa.Array]:
    """Integer codes shared by all columns, numbered by first appearance (Arrow hashing)."""
    if columns and all(_is_dictionary(c) for c in columns):
        return _encode_dictionaries(columns)
    arrays = [_arrow(c) for c in columns]
    chunks = [ch for a in arrays for ch in a.chunks]
    enc = pc.dictionary_encode(pa.chunked_array(chunks, type=pa.string()))
    if not enc.num_chunks:
        return [np.zeros(0, dtype=np.int64) for _ in columns], pa.array([], type=pa.string())
    codes = np.concatenate([to_np(c.indices) for c in enc.chunks])
    cuts = np.cumsum([len(a) for a in arrays])[:-1]
    return np.split(codes.astype(np.int64), cuts), enc.chunk(0).dictionary


def _is_dictionary(values: Any) -> bool:
    return isinstance(values, pa.Array | pa.ChunkedArray) and pa.types.is_dictionary(values.type)


def _encode_dictionaries(columns: list[Any]) -> tuple[list[np.ndarray], pa.Array]:
    """_encode for dictionary-encoded columns (as the run reader gives query ids): the
    dictionaries are unified, then renumbered by first appearance, found among the rows
    where the code changes (a value's first row is one of them)."""
    chunks = [ch for c in columns for ch in pa.chunked_array(c).chunks]
    unified = pa.chunked_array(chunks).unify_dictionaries()
    if not unified.num_chunks:
        return [np.zeros(0, dtype=np.int64) for _ in columns], pa.array([], type=pa.string())
    dictionary = unified.chunk(0).dictionary.cast(pa.string())
    # Per column (no array over every row of every run: fewer pages to fault in).
    per_column, at = [], 0
    for c in columns:
        n = pa.chunked_array(c).num_chunks
        part = [to_np(ch.indices) for ch in unified.chunks[at : at + n]]
        per_column.append(np.concatenate(part) if part else np.zeros(0, dtype=np.int32))
        at += n
    heads = np.concatenate(
        [x[np.r_[0, np.flatnonzero(x[1:] != x[:-1]) + 1]] for x in per_column if len(x)]
        or [np.zeros(0, dtype=np.int32)]
    )
    uniq, first = np.unique(heads, return_index=True)
    seen = uniq[np.argsort(first)]  # codes in order of first appearance
    renumber = np.full(len(dictionary), -1, dtype=np.int64)
    renumber[seen] = np.arange(len(seen))
    return [renumber[x] for x in per_column], dictionary.take(from_np(seen))


def canonical_sum(key: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sum ``value`` per ``key`` (int codes 0..m-1) adding largest first; also the counts.

    Returns (keys present, sums, counts). The fixed addition order makes equal
    multisets of contributions give bit-identical sums.
    """
    order = np.lexsort((-value, key))
    k_sorted = key[order]
    starts = np.r_[0, np.flatnonzero(k_sorted[1:] != k_sorted[:-1]) + 1] if len(order) else order
    sums = np.add.reduceat(value[order], starts) if len(order) else np.array([], dtype=float)
    counts = np.diff(np.r_[starts, len(order)])
    return k_sorted[starts], sums, counts


class RepeatedPair(InputError):
    """A run lists one (query, document) pair twice; `run` is its index among the inputs
    (the caller may re-read that file to name the line)."""

    def __init__(self, run: int, name: str, query: str, doc: str) -> None:
        super().__init__(
            f"run {name!r} lists query {query!r} and document {doc!r} twice",
            hint="a run ranks each document at most once per query",
        )
        self.run = run


def fuse(
    runs: Sequence[RunInput], *, method: str = "rrf", k: int = 60, depth: int = 100
) -> tuple[Ranked, FuseReport]:
    """Fuse runs into one ranking (definitions in the module docstring)."""
    fused, report = fuse_columns(runs, method=method, k=k, depth=depth)
    ranked = Ranked(
        query_id=fused.query_id.to_numpy(zero_copy_only=False),
        doc_id=fused.doc_id.to_numpy(zero_copy_only=False),
        rank=fused.rank,
        score=fused.score,
    )
    return ranked, report


@dataclass(frozen=True)
class FusedColumns:
    """A fused run as columns ready to write: Arrow ids (no Python string per row)."""

    query_id: pa.Array
    doc_id: pa.Array
    rank: np.ndarray
    score: np.ndarray


def _scores(run: RunInput) -> np.ndarray:
    score = np.asarray(run.score, dtype=np.float64)
    if not np.isfinite(score).all():
        raise InputError(
            f"run {run.name!r} has a score that is not a finite number",
            hint="every score must be a real number (no nan or inf)",
        )
    return score


def fuse_columns(
    runs: Sequence[RunInput], *, method: str = "rrf", k: int = 60, depth: int = 100
) -> tuple[FusedColumns, FuseReport]:
    """Like fuse, with the ids as Arrow arrays (what `evaudit runs fuse` writes)."""
    if method not in METHODS:
        raise ValueError(f"unknown fusion method {method!r}")
    if depth < 1 or k < 0:
        raise ValueError("depth must be >= 1 and k >= 0")
    if method == "rrf":
        out, stats, queries = _rrf(runs, k, depth)
    else:
        out, stats, queries = _comb(runs, method, depth)
    report = FuseReport(
        method=method,
        k=k if method == "rrf" else None,
        depth=depth,
        normalisation=None if method == "rrf" else "min-max",
        runs=tuple(stats),
        queries=queries,
        rows=len(out.rank),
    )
    return out, report


_Fused = tuple[FusedColumns, list[FuseRunStats], int]


def _rrf(runs: Sequence[RunInput], k: int, depth: int) -> _Fused:
    """(the fused run, each run's figures, the number of queries fused)."""
    qcodes, quniq = _encode([r.query_id for r in runs])
    blocks, stats = [], []
    for run, qc in zip(runs, qcodes, strict=True):
        score = _scores(run)
        b = run_blocks(qc, _arrow(run.doc_id), score, depth)
        blocks.append(b)
        stats.append(FuseRunStats(run.name, len(b.qcode), len(score), int(b.length.sum())))
    out = rrf_fuse(blocks, len(quniq), k, depth)
    if out.repeat is not None:
        bad, q, d = out.repeat
        raise RepeatedPair(bad, runs[bad].name, str(quniq[q]), d)
    queries = len(np.unique(out.qcode))
    return (
        FusedColumns(quniq.take(from_np(out.qcode)), out.docs, out.rank + 1, out.score),
        stats,
        queries,
    )


def _comb(runs: Sequence[RunInput], method: str, depth: int) -> _Fused:
    """CombSUM / CombMNZ, as _rrf; ties by first appearance of the pair."""
    qcodes, quniq = _encode([r.query_id for r in runs])
    dcodes, duniq = _encode([r.doc_id for r in runs])
    ndocs = max(len(duniq), 1)
    keys, contribs, stats = [], [], []
    for run, qc, dc in zip(runs, qcodes, dcodes, strict=True):
        score = _scores(run)
        rows, _ = rank_within(qc, score, depth)
        contribs.append(minmax(score[rows], qc[rows]))
        keys.append(qc[rows].astype(np.int64) * ndocs + dc[rows])
        queries = int(np.count_nonzero(np.bincount(qc))) if len(qc) else 0
        stats.append(FuseRunStats(run.name, queries, len(score), len(rows)))
    allkeys = np.concatenate(keys) if keys else np.array([], dtype=np.int64)
    # first: each pair's first row over the runs in order, each in rank order.
    uniq, first, pair = np.unique(allkeys, return_index=True, return_inverse=True)
    present, sums, counts = canonical_sum(pair.reshape(-1), np.concatenate(contribs))
    fused = sums * counts if method == "combmnz" else sums
    pkeys = uniq[present]
    q_of, d_of = pkeys // ndocs, pkeys % ndocs
    rows, rank = rank_within_ties(q_of, fused, first[present], depth)
    out = FusedColumns(
        query_id=quniq.take(from_np(q_of[rows])),
        doc_id=duniq.take(from_np(d_of[rows])),
        rank=rank + 1,
        score=fused[rows],
    )
    return out, stats, len(np.unique(q_of))


def _rrf_pairs(
    keys: list[np.ndarray], ranks: list[np.ndarray], k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """rrf_sum over per-run lists of pair keys and 0-based ranks."""
    key = np.concatenate(keys).astype(np.int64)
    run = np.concatenate([np.full(len(x), j, dtype=np.int64) for j, x in enumerate(keys)])
    return rrf_sum(key, np.concatenate(ranks), run, len(keys), k)
