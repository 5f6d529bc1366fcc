"""RRF's engine (the rules are in scorers.fusion's docstring and docs/runs.md).

Cost model, for many deep runs (5 runs x 1,000 queries x 1,000 documents is 5M rows):

* each run is kept as it lies when it is written grouped by query and by score
  descending (as runs are), its top ``depth`` per query being slices of it; any other
  run is sorted once;
* documents are interned per batch of consecutive queries (about ``BATCH_ROWS`` rows)
  rather than in one hash table over every row: a small table stays in the CPU cache,
  which makes Arrow's hashing several times faster, and a (query, document) pair is
  numbered inside its batch, so no global document code is needed;
* one sort of packed (pair, rank, run) integers then gives every sum and tiebreak.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorers.arrow_np import from_np, to_np
from scorers.rank_order import rank_within_ties

BATCH_ROWS = 1 << 15
CHUNK_ROWS = 1 << 20


@dataclass(frozen=True)
class RunBlocks:
    """One run's kept rows: one block of ``docs`` per query, each in rank order."""

    docs: pa.ChunkedArray
    qcode: np.ndarray  # per block: its query
    start: np.ndarray  # per block: its first row in docs
    length: np.ndarray  # per block: rows kept (at most depth)


def run_blocks(
    qcode: np.ndarray, docs: pa.ChunkedArray, score: np.ndarray, depth: int
) -> RunBlocks:
    """The top ``depth`` rows of each query of one run (ties in row order), as blocks."""
    n = len(score)
    if not n:
        empty = np.zeros(0, dtype=np.int64)
        return RunBlocks(docs, empty, empty, empty)
    same = qcode[1:] == qcode[:-1]
    starts = np.r_[0, np.flatnonzero(~same) + 1]
    grouped = len(np.unique(qcode[starts])) == len(starts)
    if not grouped or bool(np.any(same & (score[1:] > score[:-1]))):
        rows, _ = rank_within_ties(qcode, score, np.arange(n), None)
        docs, qcode = docs.take(from_np(rows)), qcode[rows]
        starts = np.r_[0, np.flatnonzero(qcode[1:] != qcode[:-1]) + 1]
    lengths = np.diff(np.r_[starts, n])
    return RunBlocks(docs, qcode[starts].astype(np.int64), starts, np.minimum(lengths, depth))


@dataclass(frozen=True)
class Fused:
    """The fused run: per row its query code, document, 0-based rank and score; or, when
    a run lists a pair twice, ``repeat`` = (that run's index, query code, document)."""

    qcode: np.ndarray
    docs: pa.Array
    rank: np.ndarray
    score: np.ndarray
    repeat: tuple[int, int, str] | None = None


def _dense(values: np.ndarray) -> np.ndarray:
    """Values numbered 0, 1, ... in ascending order (nondecreasing input stays so)."""
    return np.unique(values, return_inverse=True)[1].reshape(-1)


def rrf_fuse(blocks: list[RunBlocks], nqueries: int, k: int, depth: int) -> Fused:
    """RRF of the runs' blocks (scorers.fusion's rules), ``depth`` rows kept per query.

    The work runs chunk by chunk (about CHUNK_ROWS rows of whole queries each), so the
    arrays stay small enough to be reused rather than freshly mapped (page faults were
    a third of the time at 5M rows); documents are interned per batch (BATCH_ROWS).
    """
    bq = np.concatenate([b.qcode for b in blocks])
    brun = np.concatenate([np.full(len(b.qcode), j, dtype=np.int64) for j, b in enumerate(blocks)])
    bstart = np.concatenate([b.start for b in blocks])
    blen = np.concatenate([b.length for b in blocks])
    rows_q = np.bincount(bq, weights=blen, minlength=nqueries).astype(np.int64)
    before_q = np.cumsum(rows_q) - rows_q
    qbatch = _dense(before_q // BATCH_ROWS)
    nbatches = int(qbatch[-1]) + 1 if nqueries else 0
    q0 = np.searchsorted(qbatch, np.arange(nbatches + 1))  # first query of each batch
    bchunk = _dense(before_q[q0[:-1]] // CHUNK_ROWS)  # the chunk of each batch
    bb = qbatch[bq]
    order = np.lexsort((bstart, brun, bb))  # within a batch: run by run, top to bottom
    bq, brun, bstart, blen, bb = bq[order], brun[order], bstart[order], blen[order], bb[order]
    # Adjacent blocks of one run that follow each other in it are sliced once.
    new = np.ones(len(bq), dtype=bool)
    new[1:] = (
        (bb[1:] != bb[:-1]) | (brun[1:] != brun[:-1]) | (bstart[1:] != bstart[:-1] + blen[:-1])
    )
    heads = np.flatnonzero(new)
    s_len = np.add.reduceat(blen, heads) if len(heads) else blen
    slices = list(zip(brun[heads].tolist(), bstart[heads].tolist(), s_len.tolist(), strict=True))
    s_cut = np.searchsorted(bb[heads], np.arange(nbatches + 1)).tolist()
    b_cut = np.searchsorted(bb, np.arange(nbatches + 1))  # blocks of each batch
    c_cut = np.searchsorted(bchunk, np.arange((int(bchunk[-1]) + 2) if nbatches else 1)).tolist()
    parts: list[Fused] = []
    for c in range(len(c_cut) - 1):
        b_lo, b_hi = c_cut[c], c_cut[c + 1]  # the chunk's batches
        lo, hi = int(b_cut[b_lo]), int(b_cut[b_hi])  # and blocks
        cq, crun, clen = bq[lo:hi], brun[lo:hi], blen[lo:hi]
        offset = np.cumsum(clen) - clen
        rank = np.arange(int(clen.sum()), dtype=np.int64) - np.repeat(offset, clen)
        run = np.repeat(crun, clen)
        key = np.repeat(cq, clen)  # the query code for now; the pair key below
        row_at = np.r_[0, np.cumsum(clen)][b_cut[b_lo : b_hi + 1] - lo]
        base, ndocs, doc_at, names, next_key, next_doc = [], [], [], [], 0, 0
        for b in range(b_lo, b_hi):
            docs = [
                chunk
                for r, s, n in slices[s_cut[b] : s_cut[b + 1]]
                for chunk in blocks[r].docs.slice(s, n).chunks
            ]
            enc = pc.dictionary_encode(docs[0] if len(docs) == 1 else pa.concat_arrays(docs))
            nd = len(enc.dictionary)
            part = key[row_at[b - b_lo] : row_at[b - b_lo + 1]]
            part -= q0[b]
            part *= nd
            part += to_np(enc.indices)
            part += next_key
            base.append(next_key)
            ndocs.append(nd)
            doc_at.append(next_doc)
            next_key += int(q0[b + 1] - q0[b]) * nd
            next_doc += nd
            names.append(enc.dictionary)
        cdocs = pa.concat_arrays(names)
        naming = (np.array(base), q0[b_lo:b_hi], np.array(ndocs), np.array(doc_at))
        pkeys, fused, tiebreak, bad = rrf_sum(key.copy(), rank, run, len(blocks), k)
        if bad >= 0:  # name one pair that run lists twice
            uniq, counts = np.unique(key[run == bad], return_counts=True)
            q, d = _decode(uniq[counts > 1][:1], naming)
            empty = np.zeros(0, dtype=np.int64)
            return Fused(empty, cdocs[:0], empty, np.zeros(0), (bad, int(q[0]), str(cdocs[d[0]])))
        q_of, d_of = _decode(pkeys, naming)
        rows, rk = _rank_fused(q_of, fused, tiebreak, depth)
        parts.append(Fused(q_of[rows], cdocs.take(from_np(d_of[rows])), rk, fused[rows]))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return Fused(empty, pa.array([], type=pa.string()), empty, np.zeros(0))
    return Fused(
        np.concatenate([p.qcode for p in parts]),
        pa.concat_arrays([p.docs for p in parts]),
        np.concatenate([p.rank for p in parts]),
        np.concatenate([p.score for p in parts]),
    )


def _decode(
    keys: np.ndarray, naming: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """(query codes, indices into the chunk's documents) of pair keys."""
    base, q0, ndocs, doc_at = naming
    b = np.searchsorted(base, keys, side="right") - 1
    local = keys - base[b]
    nd = ndocs[b]
    return q0[b] + local // nd, doc_at[b] + local % nd


def _rank_fused(
    qcode: np.ndarray, fused: np.ndarray, tiebreak: np.ndarray, depth: int
) -> tuple[np.ndarray, np.ndarray]:
    """rank_within_ties for fused pairs (qcode nondecreasing, tiebreaks distinct within a
    query): one argsort of (query, fused rank, tiebreak) packed in an int64 when they fit."""
    if not len(qcode):
        return rank_within_ties(qcode, fused, tiebreak, depth)
    desc = _dense(-fused)
    ql = qcode - qcode[0]
    tb, fb = int(tiebreak.max()).bit_length(), int(desc.max()).bit_length()
    if int(ql.max()).bit_length() + fb + tb > 63:
        return rank_within_ties(qcode, fused, tiebreak, depth)
    order = np.argsort((ql << (fb + tb)) | (desc << tb) | tiebreak)
    starts = np.r_[0, np.flatnonzero(qcode[1:] != qcode[:-1]) + 1]
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    keep = rank < depth
    return order[keep], rank[keep]


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


def rrf_sum(
    key: np.ndarray, rank: np.ndarray, run: np.ndarray, nruns: int, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """RRF over rows given as (pair key, 0-based rank, run index); ``key`` is overwritten.

    Returns (pair key per fused pair, ascending; fused score; first appearance as the
    (run, rank) of the earliest run listing it, packed in one integer; the index of a run
    listing a pair twice, or -1). One sort of (key, rank, run) codes does all of it: each
    pair adds, for its ranks in ascending order, (runs placing it at that rank) /
    (k + rank), starting from 0, so equal multisets of ranks give bit-identical sums; the
    additions run position by position within the pairs (as many steps as the most runs
    listing one pair), so the cost does not grow with the depth. For two pairs of one
    query, the earliest run and the rank in it order them as their first appearance over
    the runs read in turn does."""
    n = len(key)
    if not n:
        empty = np.zeros(0, dtype=np.int64)
        return empty, np.zeros(0), empty, -1
    span = int(rank.max()) + 1
    top = int(key.max()) + 1
    # (key, rank, run) packed in bit fields of one int64, so decoding is shifts and masks;
    # built and decoded in place (these arrays are the largest the fusion holds).
    rbits, sbits = max(nruns - 1, 1).bit_length(), max(span - 1, 1).bit_length()
    named = None
    if top.bit_length() + sbits + rbits > 62:  # too wide: number the pairs first
        named, key = np.unique(key, return_inverse=True)
        key = key.reshape(-1).astype(np.int64)
    codes = key
    np.left_shift(codes, sbits + rbits, out=codes)
    codes |= np.left_shift(rank.astype(np.int64, copy=False), rbits)
    codes |= run
    codes.sort()
    run = codes & ((1 << rbits) - 1)
    codes >>= rbits  # now key and rank
    rest = codes
    rstart = np.r_[0, np.flatnonzero(rest[1:] != rest[:-1]) + 1]
    rank = rest & ((1 << sbits) - 1)
    rest >>= sbits  # now the key
    key = rest
    pstart = np.r_[0, np.flatnonzero(key[1:] != key[:-1]) + 1]
    pkeys = key[pstart] if named is None else named[key[pstart]]
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
