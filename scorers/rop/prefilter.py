"""`any` membership with one target per row, behind an exact fingerprint prefilter.

A returned id can resolve to the row's target object only if it *equals* one of
the raw ids that resolve to that object (its members and its canonical id). Each
string gets a cheap fingerprint read straight from the Arrow buffers (length and
last two bytes); equal strings have equal fingerprints, so an id whose fingerprint
matches none of its target's raw ids cannot match, and only the few remaining
candidates are looked up in the resolver's hash table. Results are exactly those
of resolving every id; the saving is in hash lookups, the dominant cost.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

_MAX_RAW_PER_OBJECT = 8  # beyond this many raw ids per object, resolve everything


def fingerprints(arr: pa.Array) -> np.ndarray | None:
    """int32 per string: min(length, 32767) << 16 | last byte << 8 | second-to-last byte."""
    if not isinstance(arr, pa.Array) or arr.type != pa.string() or arr.null_count:
        return None
    n = len(arr)
    _, off_buf, data_buf = arr.buffers()
    off = np.frombuffer(off_buf, dtype=np.int32)[arr.offset : arr.offset + n + 1]
    if data_buf is None or data_buf.size == 0:
        return np.zeros(n, dtype=np.int32)
    data = np.frombuffer(data_buf, dtype=np.uint8)
    end = off[1:]
    lengths = end - off[:-1]
    last = np.where(lengths >= 1, data[np.clip(end - 1, 0, data.size - 1)], 0)
    prev = np.where(lengths >= 2, data[np.clip(end - 2, 0, data.size - 1)], 0)
    fp = np.minimum(lengths, 32767).astype(np.int32) << 16
    return fp | (last.astype(np.int32) << 8) | prev.astype(np.int32)


def any_hits_single(
    values: pa.Array,
    offsets: np.ndarray,
    target: np.ndarray,
    keys: pa.Array,
    to_canon: np.ndarray,
    lookup: Callable[[pa.Array], np.ndarray],
) -> np.ndarray | None:
    """Rows whose head holds an id resolving to `target[row]` (-2: no target), or None
    when the prefilter does not apply (then the caller resolves every id).

    `keys` are the resolver's raw ids in code order, `to_canon` maps a raw code to
    its canonical code (with a final -1 for unknown), `lookup` gives raw codes.
    """
    elem_fp = fingerprints(values)
    key_fp = fingerprints(keys)
    if elem_fp is None or key_fp is None or len(keys) == 0:
        return None
    n = len(target)
    canon = to_canon[:-1]
    counts = np.bincount(canon)
    width = int(counts.max())
    if width > _MAX_RAW_PER_OBJECT:
        return None
    # table[o] = fingerprints of every raw id of object o, padded with -1 (never a fingerprint)
    order = np.argsort(canon, kind="stable")
    col = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
    table = np.full((len(counts), width), -1, dtype=np.int32)
    table[canon[order], col] = key_fp[order]
    row_fp = np.where((target >= 0)[:, None], table[np.maximum(target, 0)], -1)
    lengths = np.diff(offsets)
    regular = n > 0 and len(elem_fp) == n * int(lengths[0]) and bool(np.all(lengths == lengths[0]))
    if regular:
        k = int(lengths[0])
        grid = elem_fp.reshape(n, k)[:, :, None] == row_fp[:, None, :]
        candidates = np.flatnonzero(grid.any(axis=2))
        rows = candidates // max(k, 1)
    else:
        parents = np.repeat(np.arange(n, dtype=np.int64), lengths)
        candidates = np.flatnonzero((elem_fp[:, None] == row_fp[parents]).any(axis=1))
        rows = parents[candidates]
    codes = lookup(values.take(pa.array(candidates)))
    hit = np.zeros(n, dtype=bool)
    hit[rows[to_canon[codes] == target[rows]]] = True
    return hit
