"""`any` membership with one target per row, behind an exact fingerprint prefilter.

A returned id can resolve to the row's target object only if it *equals* one of
the raw ids that resolve to that object (its members and its canonical id). Each
string gets a cheap fingerprint read straight from the Arrow buffers (its last
four bytes, or all of a shorter one, and its length); equal strings have equal fingerprints, so an id whose fingerprint
matches none of its target's raw ids cannot match, and only the few remaining
candidates are looked up in the resolver's hash table. Results are exactly those
of resolving every id; the saving is in hash lookups, the dominant cost.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from scorers.rop.strings import positions

_MAX_RAW_PER_OBJECT = 8  # beyond this many raw ids per object, resolve everything


def fingerprints(arr: pa.Array) -> np.ndarray | None:
    """int32 per string: its last four bytes (one unaligned word) XOR its length; a
    string shorter than four bytes contributes only its own bytes.

    None unless `arr` is a string array without nulls or empty strings holding four
    bytes or more in all. One gather per string, straight from the Arrow buffers;
    equal strings have equal fingerprints, collisions only cost lookups.
    """
    if not isinstance(arr, pa.Array) or arr.type != pa.string() or arr.null_count:
        return None
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    _, off_buf, data_buf = arr.buffers()
    if data_buf is None or data_buf.size < 4:
        return None
    off = np.frombuffer(off_buf, dtype=np.int32)[arr.offset : arr.offset + n + 1]
    end = off[1:]
    lengths = end - off[:-1]
    width = int(lengths[0])
    if width < 1 or int(lengths.min()) < 1:
        return None
    if width >= 4 and int(off[-1] - off[0]) == n * width and bool((lengths == width).all()):
        # ids of one width (the common case): the last four bytes of each are a column
        # of the (n, width) byte matrix, read as one int32 per row
        first = int(off[0]) + width - 4
        column = np.ndarray((n,), dtype="<i4", buffer=data_buf, offset=first, strides=(width,))
        last: np.ndarray = column.copy()
        np.bitwise_xor(last, width, out=last)  # in place: fresh pages are costly here
        np.bitwise_and(last, 0x7FFFFFFF, out=last)
        return last
    # words[i] = bytes i..i+3 as one little-endian int32 (a strided view, no copy)
    words = np.ndarray(shape=(data_buf.size - 3,), dtype="<i4", buffer=data_buf, strides=(1,))
    start = np.maximum(end - 4, 0)
    fp: np.ndarray = words[start]
    short = np.flatnonzero(lengths < 4)
    if len(short):  # keep only the string's own bytes of the word
        size = lengths[short].astype(np.int64)
        word = fp[short].astype(np.int64) & 0xFFFFFFFF
        shift = 8 * (end[short] - size - start[short])
        fp[short] = ((word >> shift) & ((1 << (8 * size)) - 1)).astype(np.int32)
    fp = (fp ^ lengths) & 0x7FFFFFFF  # never -1, the table's pad
    return fp


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
    if regular:  # every list equally long: an (n, k) grid against one column per raw id
        k = int(lengths[0])
        grid = elem_fp.reshape(n, k)
        hits = grid == row_fp[:, :1]
        for j in range(1, width):
            hits |= grid == row_fp[:, j : j + 1]
        candidates = np.flatnonzero(hits)
        rows = candidates // max(k, 1)
    else:
        parents = np.repeat(np.arange(n, dtype=np.int64), lengths)
        flat = elem_fp == row_fp[parents, 0]
        for j in range(1, width):
            flat |= elem_fp == row_fp[parents, j]
        candidates = np.flatnonzero(flat)
        rows = parents[candidates]
    codes = lookup(values.take(positions(candidates)))
    hit = np.zeros(n, dtype=bool)
    hit[rows[to_canon[codes] == target[rows]]] = True
    return hit
