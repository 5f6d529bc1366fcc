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
def _same(buf: np.ndarray, a: int, e: int, keys: np.ndarray, ka: int, ke: int) -> bool:
    if e - a != ke - ka:
        return False
    for i in range(e - a):  # noqa: SIM110  (no generators in compiled code)
        if buf[a + i] != keys[ka + i]:
            return False
    return True


@njit(cache=True, nogil=True)
def build_table(keys: np.ndarray, key_off: np.ndarray) -> np.ndarray:
    """Open-addressing table (a power of two, at most half full) of key numbers, -1 empty.
    Keys are distinct (they are a dict's keys)."""
    n = key_off.shape[0] - 1
    size = 16
    while size < 2 * n:
        size *= 2
    slots = np.full(size, -1, dtype=np.int32)
    mask = np.uint64(size - 1)
    for k in range(n):
        at = _hash(keys, key_off[k], key_off[k + 1]) & mask
        while slots[at] >= 0:
            at = (at + np.uint64(1)) & mask
        slots[at] = k
    return slots


@njit(cache=True, nogil=True, inline="always")
def find(
    buf: np.ndarray, a: int, e: int, keys: np.ndarray, key_off: np.ndarray, slots: np.ndarray
) -> int:
    """Number of the key equal to buf[a:e], or -1."""
    mask = np.uint64(slots.shape[0] - 1)
    at = _hash(buf, a, e) & mask
    while True:
        k = slots[at]
        if k < 0:
            return -1
        if _same(buf, a, e, keys, key_off[k], key_off[k + 1]):
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
    key_off: np.ndarray,
    key_canon: np.ndarray,
    slots: np.ndarray,
    group_off: np.ndarray,
    group_keys: np.ndarray,
    cutoff: int,
    string: int,
    codes: np.ndarray,
) -> np.ndarray:
    """One verdict code per row of a scanned block (rows: its line numbers, increasing).

    Per line of the block: `sel_*` the selected key's value (type, span), `li_*` the
    returned-ID list (type, bad element seen, elements); line i owns the next
    li_count[i] element spans. `group_keys[group_off[o]:group_off[o + 1]]` are the raw
    ids (key numbers) resolving to object o, `key_canon` each key's object. `string`
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
            key = find(buf, sel_start[i], sel_end[i], keys, key_off, slots)
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
                    if g1 - g0 <= DIRECT_MAX:
                        for g in range(g0, g1):
                            m = group_keys[g]
                            if _same(buf, a, e, keys, key_off[m], key_off[m + 1]):
                                hit = True
                                break
                    else:
                        m = find(buf, a, e, keys, key_off, slots)
                        hit = m >= 0 and key_canon[m] == target
                    if hit:
                        break
                out[r] = codes[3] if hit else codes[4]
        j += li_count[i]
        r += 1
    return out
