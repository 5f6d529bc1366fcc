"""Exact prefilter for `fuzz.partial_ratio >= threshold` over many (phrase, page) pairs.

`partial_ratio_matrix(phrases, texts, t)` returns exactly what
`rapidfuzz.process.cdist(phrases, texts, scorer=fuzz.partial_ratio, score_cutoff=t)`
returns (float32, 0 below `t`), but scores with the full `partial_ratio` only
the pages that can reach `t`. Why it is exact:

`partial_ratio(P, page)` (P the shorter string, length L <= 64) is the maximum
of `ratio(P, W) = 200 * LCS(P, W) / (L + m)` over the page's windows W of
length m: every full window (m = L), and the page's prefixes and suffixes
shorter than L. So a window reaches `t` only if LCS(P, W) >= ceil(t (L + m) /
200) = `min_lcs(L, m, t)`; for a full window that is `min_lcs(L, L, t)` (12 of
15 characters at t = 80), for a short edge window at least the minimum of
`min_lcs(L, m, t)` over the m <= L where it is <= m (a short window is at best
a subsequence of P: 10 of 15 characters at t = 80).

Each page is cut into overlapping chunks, once per band of phrase lengths
lo..hi (`band`): a chunk of stride + hi - 1 characters starts every stride =
2 lo characters (`Chunks.cut`). Every window of the page lies inside one chunk
(a full window starting at s inside chunk floor(s / stride), the prefixes in
the first chunk, the suffixes in a chunk that reaches the page end; both kinds
are marked `edge`). LCS grows with the string, so LCS(P, chunk) >= LCS(P, W)
for every window W inside it, and partial_ratio(P, chunk) >= ratio(P, W) (the
chunk's windows include every page window inside it, plus some that are not
page windows, which can only let more pages through).

A page is scored only when one of its chunks passes both
  1. LCS(P, chunk) >= min_lcs(L, L, t), or the edge bound for an edge chunk
     (one cheap bit-parallel LCS per chunk, `LCSseq.similarity`), and
  2. partial_ratio(P, chunk) >= t (a short string, only for chunks passing 1).
A page whose best window reaches `t` has such a chunk (the one holding that
window), so no page at or above `t` is dropped, and the pages that pass are
scored with the same `partial_ratio` call as before. Pages no longer than one
chunk and phrases longer than 64 characters (rapidfuzz then aligns at common
substrings instead) skip the filter. A test compares the result with plain
`cdist` on a corpus with OCR-garbled phrases.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import LCSseq

# rapidfuzz aligns needles longer than this at common substrings, not at every window.
MAX_FILTERED_LEN = 64
# Below this many phrase x page characters a band is scored directly: cutting the pages
# costs more than it saves for a phrase or two on a short document (a cold document).
MIN_FILTER_WORK = 250_000
# Threads pay off only for big LCS matrices (thread start-up per cdist call).
PARALLEL_CELLS = 2_000_000
# Chunk stride in units of L: 1 is tighter but costs more LCS calls; 2 measured fastest.
STRIDE_FACTOR = 2


def min_lcs(length: int, window: int, threshold: float) -> int:
    """Least LCS(P, W) with 200 * LCS / (len(P) + len(W)) >= threshold.

    The small slack keeps an exact-threshold case (score == threshold up to
    rounding) on the safe side: the bound may only be too low, never too high.
    """
    return max(math.ceil(threshold * (length + window) / 200.0 - 1e-6), 0)


@functools.lru_cache(maxsize=1024)
def lcs_bounds(length: int, threshold: float) -> tuple[int, int]:
    """(bound for full windows, bound for the short windows at a page's start and end)."""
    interior = min_lcs(length, length, threshold)
    edge = min(
        (need for m in range(1, length + 1) if (need := min_lcs(length, m, threshold)) <= m),
        default=interior,
    )
    return interior, min(edge, interior)


def band(length: int) -> tuple[int, int]:
    """The band of phrase lengths that share one cut of the pages (ratio of ends <= ~1.25)."""
    for lo, hi in _BANDS:
        if lo <= length <= hi:
            return lo, hi
    return length, length


_BANDS = (
    (1, 5), (6, 7), (8, 9), (10, 12), (13, 15), (16, 19), (20, 24), (25, 30), (31, 38),
    (39, 48), (49, 64),
)  # fmt: skip


@functools.lru_cache(maxsize=64)
def _chunker(stride: int, size: int) -> re.Pattern[str]:
    # Each match consumes `stride` characters (fewer at the end); the lookahead captures the
    # chunk of up to `size` characters starting there. One C-level findall per page.
    return re.compile(rf"(?=(.{{1,{size}}})).{{1,{stride}}}", re.DOTALL)


@dataclass(frozen=True)
class Chunks:
    """The pages of one document cut for phrases of lengths lo..hi (one band)."""

    texts: list[str]  # chunk strings
    page: np.ndarray  # page index (into the texts given) of each chunk
    edge: np.ndarray  # first chunk of its page, or reaches the page end
    direct: list[int]  # pages too short to cut: always scored with partial_ratio

    @classmethod
    def cut(cls, texts: Sequence[str], lo: int, hi: int) -> Chunks:
        """Chunks of length stride + hi - 1 every stride = STRIDE_FACTOR * lo characters.

        A window of length L in lo..hi starting at s lies in the chunk starting
        at floor(s / stride); a page's prefixes lie in its first chunk and its
        suffixes shorter than L in the last chunk starting at or before n - lo,
        which reaches the page end. Chunks starting later are extra (harmless).
        """
        stride = max(STRIDE_FACTOR * lo, 1)
        size = stride + hi - 1
        pattern = _chunker(stride, size)
        chunks: list[str] = []
        counts: list[int] = []
        lengths: list[int] = []
        direct: list[int] = []
        for i, text in enumerate(texts):
            n = len(text)
            if n <= size:
                direct.append(i)
                found: list[str] = []
            else:
                found = pattern.findall(text)
                chunks.extend(found)
            counts.append(len(found))
            lengths.append(n)
        # Pad to a multiple of 8 chunks with empty ones (LCS 0, never pass) so a row of the
        # uint8 LCS matrix can be scanned as uint64 words (`_nonzero_bytes`).
        chunks.extend([""] * (-len(chunks) % 8))
        counts.append(len(chunks) - sum(counts))
        lengths.append(0)
        count = np.asarray(counts, dtype=np.int64)
        page = np.repeat(np.arange(len(texts) + 1, dtype=np.int64), count)  # padding: len(texts)
        first = np.cumsum(count) - count
        start = (np.arange(len(page), dtype=np.int64) - first[page]) * stride
        edge = (start == 0) | (start + size >= np.asarray(lengths, dtype=np.int64)[page])
        edge[page == len(texts)] = False
        return cls(chunks, page, edge, direct)


def partial_ratio_matrix(
    phrases: Sequence[str],
    texts: Sequence[str],
    threshold: float,
    chunk_cache: dict[tuple[int, int], Chunks] | None = None,
    workers: int = 1,
    min_work: int = MIN_FILTER_WORK,
) -> np.ndarray:
    """`cdist(phrases, texts, scorer=partial_ratio, score_cutoff=threshold)`, pages prefiltered.

    `workers` (as in rapidfuzz; -1 = all cores) is used for the LCS bound of
    large documents only (PARALLEL_CELLS); the result does not depend on it.
    Bands with less than `min_work` phrase x page characters and no chunks cut
    yet are scored directly (same result, less set-up for a cold document).

    `chunk_cache` (band -> Chunks of these `texts`) lets calls on the same
    texts share the cut pages.
    """
    out = np.zeros((len(phrases), len(texts)), dtype=np.float32)
    if not phrases or not texts:
        return out
    by_band: dict[tuple[int, int], list[int]] = {}
    for i, p in enumerate(phrases):
        by_band.setdefault(band(len(p)), []).append(i)
    cache = chunk_cache if chunk_cache is not None else {}
    total_chars = sum(map(len, texts))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    for (lo, hi), idx in by_band.items():
        small = (lo, hi) not in cache and len(idx) * total_chars < min_work
        if lo == 0 or hi > MAX_FILTERED_LEN or small:
            out[idx] = process.cdist(
                [phrases[i] for i in idx], texts, scorer=fuzz.partial_ratio, score_cutoff=threshold
            )
            continue
        chunks = cache.get((lo, hi))
        if chunks is None:
            chunks = cache[(lo, hi)] = Chunks.cut(texts, lo, hi)
        r, c = _candidates([phrases[i] for i in idx], chunks, threshold, workers)
        if chunks.direct:
            r = np.concatenate([r, np.repeat(np.arange(len(idx)), len(chunks.direct))])
            c = np.concatenate([c, np.tile(np.asarray(chunks.direct, np.int64), len(idx))])
        rows.append(np.asarray(idx, dtype=np.int64)[r])
        cols.append(c)
    if rows:
        r, c = np.concatenate(rows), np.concatenate(cols)
        if len(r):
            out[r, c] = process.cpdist(
                [phrases[i] for i in r],
                [texts[j] for j in c],
                scorer=fuzz.partial_ratio,
                score_cutoff=threshold,
                dtype=np.float32,
            )
    return out


def _nonzero_bytes(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.nonzero of a C-contiguous uint8 matrix whose rows are a multiple of 8 long.

    The matrix is almost all zeros: scan it as uint64 words, then look inside
    the few nonzero words (8x fewer elements to test than a plain nonzero).
    """
    rows, cols = matrix.shape
    if cols % 8 or not matrix.flags.c_contiguous:
        nz = np.nonzero(matrix)
        return nz[0], nz[1]
    wr, wk = np.nonzero(matrix.view(np.uint64))
    inner = matrix.reshape(rows, cols // 8, 8)[wr, wk]
    br, bk = np.nonzero(inner)
    return wr[br], wk[br] * 8 + bk


def _candidates(
    phrases: list[str], chunks: Chunks, threshold: float, workers: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """(phrase row, page) pairs with a chunk passing both bounds, each pair once."""
    empty = np.zeros(0, dtype=np.int64)
    if not chunks.texts:
        return empty, empty
    # Bound 1, per phrase length (the bounds depend on L): cdist zeroes every cell below the
    # edge bound, so nonzero() yields the few cells to check against the full-window bound.
    by_len: dict[int, list[int]] = {}
    for i, p in enumerate(phrases):
        by_len.setdefault(len(p), []).append(i)
    rs: list[np.ndarray] = []
    ks: list[np.ndarray] = []
    for length, idx in by_len.items():
        interior, edge = lcs_bounds(length, threshold)
        lcs = process.cdist(
            [phrases[i] for i in idx],
            chunks.texts,
            scorer=LCSseq.similarity,
            dtype=np.uint8,  # LCS <= 64 here; a quarter of int32's memory traffic
            score_cutoff=max(edge, 1),
            workers=workers if len(idx) * len(chunks.texts) >= PARALLEL_CELLS else 1,
        )
        r, k = _nonzero_bytes(lcs)
        keep = chunks.edge[k] | (lcs[r, k] >= interior)
        rs.append(np.asarray(idx, dtype=np.int64)[r[keep]])
        ks.append(k[keep])
    r, k = np.concatenate(rs), np.concatenate(ks)
    if not len(r):
        return empty, empty
    # Bound 2: partial_ratio on the chunk, only for the chunks that passed bound 1.
    score = process.cpdist(
        [phrases[i] for i in r],
        [chunks.texts[j] for j in k],
        scorer=fuzz.partial_ratio,
        score_cutoff=threshold,
        dtype=np.float32,
    )
    keep = score >= threshold
    width = int(chunks.page.max()) + 1  # padding chunks never get here
    pairs = np.unique(r[keep] * width + chunks.page[k[keep]])
    return pairs // width, pairs % width
