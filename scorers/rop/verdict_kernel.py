"""Compiled (Numba) record verdicts for the commonest declaration: one selected key per
record (`selection.field`) and `any` membership, straight from the scan's byte spans.

The rules are those of `scorers.rop.membership.assign_verdicts`, in Table 11 order:
a missing, non-string or empty selected key is SELECTOR_ERROR; a key the resolver
does not know is RESOLUTION_ERROR; a missing or malformed returned-ID list is
UNVERIFIABLE; else PASS when one of the first `cutoff` returned ids (duplicates keep
their slots) resolves to the selected key's object, FAIL otherwise.

The scan only vouches for values without escapes, so a value's bytes are its UTF-8
text and two values are equal exactly when their bytes are. A returned id resolves
to object o exactly when it equals one of o's raw ids: for objects with few raw ids
those are compared directly, for the others the id is looked up in a hash table of
every raw id.

Kept apart from `scorers.rop.scan_kernel`: nothing here calls into it (Numba's cache
only tracks a function's own file; see that module).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
DIRECT_MAX = 8  # objects with more raw ids than this are matched through the hash table


@njit(cache=True, nogil=True, inline="always")
def _hash(buf: np.ndarray, a: int, e: int) -> np.uint64:
    """FNV-1a of buf[a:e]."""
    h = _FNV_OFFSET
    for x in range(a, e):
        h = (h ^ np.uint64(buf[x])) * _FNV_PRIME
    return h


@njit(cache=True, nogil=True, inline="always")
def word(buf: np.ndarray, a: int, e: int) -> np.uint64:
    """The first (up to) eight bytes of buf[a:e], little-endian, zero-padded."""
    w = np.uint64(0)
    for x in range(min(e - a, 8)):
        w |= np.uint64(buf[a + x]) << np.uint64(8 * x)
    return w


@njit(cache=True, nogil=True, inline="always")
def _equal(
    buf: np.ndarray, a: int, e: int, w: np.uint64, keys: np.ndarray, rec: np.ndarray, k: int
) -> bool:
    """buf[a:e] (whose `word` is w) equals key record k: (word, length, offset) of a key."""
    n = e - a
    if rec[k, 1] != n or np.uint64(rec[k, 0]) != w:
        return False
    at = rec[k, 2]
    # Only ids longer than eight bytes have bytes left to check (no generators here).
    for x in range(8, n):  # noqa: SIM110
        if buf[a + x] != keys[at + x]:
            return False
    return True


@njit(cache=True, nogil=True)
def build_table(keys: np.ndarray, key_off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(slots, records) for `find`: an open-addressing table (a power of two, at most half
    full) of key numbers, -1 empty, and per key its (word, length, offset) -- one cache
    line holds what a probe compares. Keys are distinct (they are a dict's keys)."""
    n = key_off.shape[0] - 1
    size = 16
    while size < 2 * n:
        size *= 2
    slots = np.full(size, -1, dtype=np.int32)
    rec = np.zeros((n, 3), dtype=np.int64)
    mask = np.uint64(size - 1)
    for k in range(n):
        a, e = key_off[k], key_off[k + 1]
        rec[k, 0] = np.int64(word(keys, a, e))
        rec[k, 1] = e - a
        rec[k, 2] = a
        at = _hash(keys, a, e) & mask
        while slots[at] >= 0:
            at = (at + np.uint64(1)) & mask
        slots[at] = k
    return slots, rec


@njit(cache=True, nogil=True, inline="always")
def find(
    buf: np.ndarray, a: int, e: int, keys: np.ndarray, rec: np.ndarray, slots: np.ndarray
) -> int:
    """Number of the key equal to buf[a:e], or -1."""
    mask = np.uint64(slots.shape[0] - 1)
    at = _hash(buf, a, e) & mask
    w = word(buf, a, e)
    while True:
        k = slots[at]
        if k < 0:
            return -1
        if _equal(buf, a, e, w, keys, rec, k):
            return k
        at = (at + np.uint64(1)) & mask


@njit(cache=True, nogil=True)
def any_verdicts(
    buf: np.ndarray,
    rows: np.ndarray,
    sel_type: np.ndarray,
    sel_start: np.ndarray,
    sel_end: np.ndarray,
    li_type: np.ndarray,
    li_bad: np.ndarray,
    li_count: np.ndarray,
    el_start: np.ndarray,
    el_end: np.ndarray,
    keys: np.ndarray,
    rec: np.ndarray,
    key_canon: np.ndarray,
    slots: np.ndarray,
    group_off: np.ndarray,
    group_rec: np.ndarray,
    cutoff: int,
    string: int,
    codes: np.ndarray,
) -> np.ndarray:
    """One verdict code per row of a scanned block (rows: its line numbers, increasing).

    Per line of the block: `sel_*` the selected key's value (type, span), `li_*` the
    returned-ID list (type, bad element seen, elements); line i owns the next
    li_count[i] element spans. Keys: `rec` and `slots` from `build_table`, `key_canon`
    each key's object; group_rec[group_off[o]:group_off[o + 1]] are the records of the
    raw ids resolving to object o, side by side (few cache lines per record). `string`
    is the scan's STRING type; `codes` holds SELECTOR_ERROR, RESOLUTION_ERROR,
    UNVERIFIABLE, PASS, FAIL.
    """
    out = np.empty(rows.shape[0], dtype=np.int8)
    r = 0
    j = 0  # first element span of line i
    for i in range(li_count.shape[0]):
        if r == rows.shape[0]:
            break
        if rows[r] != i:
            j += li_count[i]
            continue
        if sel_type[i] != string or sel_end[i] <= sel_start[i]:
            out[r] = codes[0]
        else:
            key = find(buf, sel_start[i], sel_end[i], keys, rec, slots)
            if key < 0:
                out[r] = codes[1]
            elif li_type[i] != string or li_bad[i] != 0:
                out[r] = codes[2]
            else:
                target = key_canon[key]
                g0, g1 = group_off[target], group_off[target + 1]
                hit = False
                for k in range(j, j + min(li_count[i], cutoff)):
                    a, e = el_start[k], el_end[k]
                    w = word(buf, a, e)
                    if g1 - g0 <= DIRECT_MAX:
                        n = e - a
                        for g in range(g0, g1):
                            # length and word tested together, without a branch between
                            # them: on real ids their outcomes are unpredictable, and
                            # mispredicted branches cost more than the tests (2x here)
                            alike = (group_rec[g, 1] == n) & (np.uint64(group_rec[g, 0]) == w)
                            if alike and (n <= 8 or _equal(buf, a, e, w, keys, group_rec, g)):
                                hit = True
                    else:
                        m = find(buf, a, e, keys, rec, slots)
                        hit = m >= 0 and key_canon[m] == target
                    if hit:
                        break
                out[r] = codes[3] if hit else codes[4]
        j += li_count[i]
        r += 1
    return out
