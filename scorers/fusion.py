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

import itertools
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


def _rrf_sums(
    pair: np.ndarray, rank: np.ndarray, npairs: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """RRF sums in a canonical order without sorting values: for rank 1, 2, ... in turn,
    add (number of runs placing the pair at that rank) / (k + rank). Equal multisets of
    ranks give bit-identical sums; the counts come from one radix sort of the ranks."""
    fused = np.zeros(npairs)
    if not len(rank):
        return np.arange(0), fused
    small = rank.astype(np.int32 if rank.max() >= 32767 else np.int16)
    order = np.argsort(small, kind="stable")
    r_sorted = small[order]
    starts = np.r_[0, np.flatnonzero(r_sorted[1:] != r_sorted[:-1]) + 1, len(order)]
    for a, b in itertools.pairwise(starts):
        weight = 1.0 / (k + float(r_sorted[a]) + 1.0)
        fused += np.bincount(pair[order[a:b]], minlength=npairs) * weight
    return np.arange(npairs), fused


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
        contrib = 1.0 / (k + rank + 1.0) if method == "rrf" else minmax(score[rows], qc[rows])
        keys.append(qc[rows].astype(np.int64) * ndocs + dc[rows])
        contribs.append(contrib)
        ranks.append(rank)
        stats.append(FuseRunStats(run.name, len(np.unique(qc)), len(score), len(rows)))
    allkeys = np.concatenate(keys) if keys else np.array([], dtype=np.int64)
    # Pair codes in first-appearance order: run order, then rank order within a run.
    pair, pair_uniq = pd.factorize(allkeys)
    if method == "rrf":
        present, fused = _rrf_sums(pair, np.concatenate(ranks), len(pair_uniq), k)
    else:
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
