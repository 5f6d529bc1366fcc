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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

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
        return {
            "name": self.name,
            "queries": self.queries,
            "rows": self.rows,
            "rows_used": self.rows_used,
        }


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
        return {
            "method": self.method,
            "k": self.k,
            "depth": self.depth,
            "normalisation": self.normalisation,
            "runs": [r.to_json() for r in self.runs],
            "queries": self.queries,
            "rows": self.rows,
            "out": self.out,
            "tag": self.tag,
        }


def rank_within(
    qcode: np.ndarray, score: np.ndarray, depth: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Row indices sorted by (query code, score desc, row order) and their 0-based ranks.

    With ``depth``, only rows of rank < depth are returned. Runs are usually
    written in that order already; that is checked in O(n) and skips the sort.
    """
    n = len(score)
    if n and bool(np.all(qcode[1:] >= qcode[:-1])):
        same = qcode[1:] == qcode[:-1]
        if not bool(np.any(same & (score[1:] > score[:-1]))):
            starts = np.r_[0, np.flatnonzero(~same) + 1]
            rank = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
            order = np.arange(n)
            if depth is not None:
                keep = rank < depth
                return order[keep], rank[keep]
            return order, rank
    return rank_within_ties(qcode, score, np.arange(n), depth)


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
    arrays = [_arrow(c) for c in columns]
    chunks = [ch for a in arrays for ch in a.chunks]
    enc = pc.dictionary_encode(pa.chunked_array(chunks, type=pa.string()))
    if not enc.num_chunks:
        return [np.zeros(0, dtype=np.int64) for _ in columns], pa.array([], type=pa.string())
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in enc.chunks])
    cuts = np.cumsum([len(a) for a in arrays])[:-1]
    return np.split(codes.astype(np.int64), cuts), enc.chunk(0).dictionary


def _codes(runs: Sequence[RunInput]) -> tuple[list[np.ndarray], list[np.ndarray], Any, Any]:
    """Query and document codes shared by all runs, numbered by first appearance."""
    qcodes, quniq = _encode([r.query_id for r in runs])
    dcodes, duniq = _encode([r.doc_id for r in runs])
    return qcodes, dcodes, quniq, duniq


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


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # NumPy >= 2
        return np.bitwise_count(x).astype(np.int64)
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


def _first_repeat(key: np.ndarray, run: np.ndarray, pstart: np.ndarray, nruns: int) -> int:
    """The index of a run that lists one pair twice (key, run: sorted by key), or -1."""
    if nruns <= 62:  # the runs of a pair as bits: a repeat leaves fewer bits than rows
        size = np.diff(np.r_[pstart, len(key)])
        runs_of = np.bitwise_or.reduceat(np.left_shift(1, run), pstart)
        groups = np.flatnonzero(_popcount(runs_of) != size)
        if not len(groups):
            return -1
        g = int(groups[0])
        vals, counts = np.unique(run[pstart[g] : pstart[g] + size[g]], return_counts=True)
        return int(vals[counts > 1][0])
    uniq, counts = np.unique(key * nruns + run, return_counts=True)
    return int(uniq[counts > 1][0] % nruns) if (counts > 1).any() else -1


def _rrf_pairs(
    keys: list[np.ndarray], ranks: list[np.ndarray], k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """RRF over pair keys (per run, one per kept row, with its 0-based rank).

    Returns (pair key per fused pair, ascending; fused score; first appearance as the
    (run, rank) of the earliest run listing it, packed in one integer; the index of a run
    listing a pair twice, or -1). One sort of (key, rank, run) codes does all of it: each pair adds, for
    its ranks in ascending order, (runs placing it at that rank) / (k + rank), starting
    from 0, so equal multisets of ranks give bit-identical sums; the additions run
    position by position within the pairs (as many steps as the most runs listing one
    pair), so the cost does not grow with the depth. For two pairs of one query, the
    earliest run and the rank in it order them as their first appearance over the runs
    read in turn does."""
    nruns = len(keys)
    n = sum(len(x) for x in keys)
    if not n:
        empty = np.zeros(0, dtype=np.int64)
        return empty, np.zeros(0), empty, -1
    span = max(int(r.max()) for r in ranks if len(r)) + 1
    top = max(int(x.max()) for x in keys if len(x)) + 1
    # (key, rank, run) packed in bit fields of one int64, so decoding is shifts and masks;
    # built and decoded in place (these arrays are the largest the fusion holds).
    rbits, sbits = max(nruns - 1, 1).bit_length(), max(span - 1, 1).bit_length()
    named = None
    if top.bit_length() + sbits + rbits > 62:  # too wide: number the pairs first
        codes_of, named = pd.factorize(np.concatenate(keys))
        keys = np.split(codes_of.astype(np.int64), np.cumsum([len(x) for x in keys])[:-1])
    codes = np.empty(n, dtype=np.int64)
    at = 0
    for j, (kj, rj) in enumerate(zip(keys, ranks, strict=True)):
        part = codes[at : at + len(kj)]
        np.left_shift(kj, sbits + rbits, out=part)
        part |= np.left_shift(rj.astype(np.int64, copy=False), rbits)
        part |= j
        at += len(kj)
    codes.sort()
    run = codes & ((1 << rbits) - 1)
    codes >>= rbits  # now key and rank
    rest = codes
    rstart = np.r_[0, np.flatnonzero(rest[1:] != rest[:-1]) + 1]
    rank = rest & ((1 << sbits) - 1)
    rest >>= sbits  # now the key
    key = rest
    pstart = np.r_[0, np.flatnonzero(key[1:] != key[:-1]) + 1]
    pkeys = key[pstart] if named is None else np.asarray(named)[key[pstart]]
    bad = _first_repeat(key, run, pstart, nruns)
    if bad >= 0:
        return pkeys, np.zeros(len(pstart)), np.zeros(len(pstart), np.int64), bad
    counts = np.diff(np.r_[rstart, n])
    # count x (1 / (k + rank + 1)): the float operations of the rank-by-rank definition.
    values = counts.astype(np.float64) * (1.0 / ((k + rank[rstart].astype(np.float64)) + 1.0))
    owner = np.cumsum(np.r_[0, (key[rstart][1:] != key[rstart][:-1]).astype(np.int64)])
    first = np.r_[0, np.flatnonzero(owner[1:] != owner[:-1]) + 1]
    length = np.diff(np.r_[first, len(owner)])
    fused = np.zeros(len(pstart))
    for j in range(int(length.max())):
        at = first[length > j] + j
        fused[owner[at]] += values[at]
    tiebreak = np.minimum.reduceat((run << sbits) | rank, pstart)
    return pkeys, fused, tiebreak, bad


def fuse(
    runs: Sequence[RunInput], *, method: str = "rrf", k: int = 60, depth: int = 100
) -> tuple[Ranked, FuseReport]:
    """Fuse runs into one ranking (definitions in the module docstring)."""
    if method not in METHODS:
        raise ValueError(f"unknown fusion method {method!r}")
    if depth < 1 or k < 0:
        raise ValueError("depth must be >= 1 and k >= 0")
    qcodes, dcodes, quniq, duniq = _codes(runs)
    ndocs = max(len(duniq), 1)
    keys, contribs, ranks, stats = [], [], [], []
    for run, qc, dc in zip(runs, qcodes, dcodes, strict=True):
        score = np.asarray(run.score, dtype=np.float64)
        if not np.isfinite(score).all():
            raise InputError(
                f"run {run.name!r} has a score that is not a finite number",
                hint="every score must be a real number (no nan or inf)",
            )
        rows, rank = rank_within(qc, score, depth)
        if method != "rrf":
            contribs.append(minmax(score[rows], qc[rows]))
        keys.append(qc[rows].astype(np.int64) * ndocs + dc[rows])
        ranks.append(rank)
        queries = int(np.count_nonzero(np.bincount(qc))) if len(qc) else 0
        stats.append(FuseRunStats(run.name, queries, len(score), len(rows)))
    if method == "rrf":
        pkeys, fused, tiebreak, bad = _rrf_pairs(keys, ranks, k)
        if bad >= 0:
            _repeated(runs, bad, keys[bad], quniq, duniq, ndocs)
        q_of, d_of = pkeys // ndocs, pkeys % ndocs
        rows, rank = rank_within_ties(q_of, fused, tiebreak, depth)
    else:
        allkeys = np.concatenate(keys) if keys else np.array([], dtype=np.int64)
        # Pair codes in first-appearance order: run order, then rank order within a run.
        pair, pair_uniq = pd.factorize(allkeys)
        present, sums, counts = canonical_sum(pair, np.concatenate(contribs))
        fused = sums * counts if method == "combmnz" else sums
        pkeys = np.asarray(pair_uniq)[present]
        q_of, d_of = pkeys // ndocs, pkeys % ndocs
        rows, rank = rank_within_ties(q_of, fused, present, depth)
    ranked = Ranked(
        query_id=quniq.take(pa.array(q_of[rows])).to_numpy(zero_copy_only=False),
        doc_id=duniq.take(pa.array(d_of[rows])).to_numpy(zero_copy_only=False),
        rank=rank + 1,
        score=fused[rows],
    )
    report = FuseReport(
        method=method,
        k=k if method == "rrf" else None,
        depth=depth,
        normalisation=None if method == "rrf" else "min-max",
        runs=tuple(stats),
        queries=len(np.unique(q_of)),
        rows=len(ranked),
    )
    return ranked, report


def _repeated(
    runs: Sequence[RunInput], index: int, keys: np.ndarray, quniq: Any, duniq: Any, ndocs: int
) -> None:
    """Raise RepeatedPair for the first pair run `index` lists twice."""
    uniq, counts = np.unique(keys, return_counts=True)
    key = int(uniq[counts > 1][0])
    raise RepeatedPair(index, runs[index].name, str(quniq[key // ndocs]), str(duniq[key % ndocs]))


def rank_within_ties(
    qcode: np.ndarray, score: np.ndarray, tiebreak: np.ndarray, depth: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Like rank_within, but equal scores are ordered by ``tiebreak`` ascending."""
    order = np.lexsort((tiebreak, -score, qcode))
    q_sorted = qcode[order]
    starts = np.r_[0, np.flatnonzero(q_sorted[1:] != q_sorted[:-1]) + 1]
    group_start = np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    rank = np.arange(len(order)) - group_start
    if depth is not None:
        keep = rank < depth
        return order[keep], rank[keep]
    return order, rank
