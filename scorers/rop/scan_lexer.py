"""Token scanners for the compiled records scan (`scorers.rop.scan_kernel`).

Each returns the position after a JSON token that Python's ``json`` reads the same
way, or -1 when the line parser must decide. No token reads past a newline:
strings refuse control bytes; whitespace, numbers and literals stop there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MAX_NUMBER = 1000  # Python's int() refuses more than 4,300 digits; leave long ones to it

# Bytes that stand for themselves inside a string (printable ASCII but the quote and the
# backslash): one table load per byte in the scan's hot loop.
PLAIN = np.zeros(256, dtype=np.uint8)
PLAIN[32:128] = 1
PLAIN[34] = PLAIN[92] = 0


@njit(cache=True, nogil=True)
def utf8_len(buf: np.ndarray, p: int, end: int) -> int:
    """Length of the valid UTF-8 sequence starting at p (a byte >= 0x80), or 0."""
    c = buf[p]
    if 0xC2 <= c <= 0xDF:
        n, lo, hi = 1, 0x80, 0xBF
    elif c == 0xE0:
        n, lo, hi = 2, 0xA0, 0xBF
    elif c == 0xED:  # U+D800..U+DFFF encoded: Python reads them only with surrogatepass
        n, lo, hi = 2, 0x80, 0x9F
    elif 0xE1 <= c <= 0xEF:
        n, lo, hi = 2, 0x80, 0xBF
    elif c == 0xF0:
        n, lo, hi = 3, 0x90, 0xBF
    elif 0xF1 <= c <= 0xF3:
        n, lo, hi = 3, 0x80, 0xBF
    elif c == 0xF4:
        n, lo, hi = 3, 0x80, 0x8F
    else:
        return 0
    if p + n >= end:
        return 0
    if not (lo <= buf[p + 1] <= hi):
        return 0
    for k in range(2, n + 1):
        if not (0x80 <= buf[p + k] <= 0xBF):
            return 0
    return n + 1


@njit(cache=True, nogil=True, inline="always")
def string_end(buf: np.ndarray, p: int, end: int) -> tuple[int, int]:
    """Scan the string whose opening quote is at p: (position after the closing quote,
    1 if it holds a backslash escape), or (-1, 0) when Python might read it differently."""
    p += 1
    esc = 0
    while p < end:
        c = buf[p]
        if PLAIN[c]:
            p += 1
            continue
        if c == 34:
            return p + 1, esc
        if c == 92:
            esc = 1
            if p + 1 >= end:
                return -1, 0
            d = buf[p + 1]
            if d == 117:  # \uXXXX
                if p + 5 >= end:
                    return -1, 0
                for k in range(2, 6):
                    h = buf[p + k]
                    if not ((48 <= h <= 57) or (65 <= h <= 70) or (97 <= h <= 102)):
                        return -1, 0
                p += 6
            elif d in (34, 92, 47, 98, 102, 110, 114, 116):
                p += 2
            else:
                return -1, 0
        elif c < 32:
            return -1, 0
        elif c >= 128:
            n = utf8_len(buf, p, end)
            if n == 0:
                return -1, 0
            p += n
        else:
            p += 1
    return -1, 0


@njit(cache=True, nogil=True, inline="always")
def number_end(buf: np.ndarray, p: int, end: int) -> int:
    """Position after the JSON number at p, or -1."""
    start = p
    if buf[p] == 45:
        p += 1
    if p >= end:
        return -1
    if buf[p] == 48:
        p += 1
    elif 49 <= buf[p] <= 57:
        while p < end and 48 <= buf[p] <= 57:
            p += 1
    else:
        return -1
    if p < end and buf[p] == 46:
        p += 1
        if p >= end or not (48 <= buf[p] <= 57):
            return -1
        while p < end and 48 <= buf[p] <= 57:
            p += 1
    if p < end and (buf[p] == 101 or buf[p] == 69):
        p += 1
        if p < end and (buf[p] == 43 or buf[p] == 45):
            p += 1
        if p >= end or not (48 <= buf[p] <= 57):
            return -1
        while p < end and 48 <= buf[p] <= 57:
            p += 1
    if p - start > _MAX_NUMBER:
        return -1
    return p


@njit(cache=True, nogil=True, inline="always")
def literal_end(buf: np.ndarray, p: int, end: int) -> int:
    """Position after ``true``, ``false`` or ``null`` at p, or -1."""
    c = buf[p]
    if c == 116 and p + 4 <= end:  # true
        if buf[p + 1] == 114 and buf[p + 2] == 117 and buf[p + 3] == 101:
            return p + 4
    elif c == 102 and p + 5 <= end:  # false
        if buf[p + 1] == 97 and buf[p + 2] == 108 and buf[p + 3] == 115 and buf[p + 4] == 101:
            return p + 5
    elif c == 110 and p + 4 <= end:  # null
        return p + 4 if buf[p + 1] == 117 and buf[p + 2] == 108 and buf[p + 3] == 108 else -1
    return -1


@njit(cache=True, nogil=True, inline="always")
def skip_ws(buf: np.ndarray, p: int, end: int) -> int:
    while p < end and (buf[p] == 32 or buf[p] == 9 or buf[p] == 13):
        p += 1
    return p


@njit(cache=True, nogil=True, inline="always")
def child_node(
    buf: np.ndarray,
    s: int,
    e: int,
    node: int,
    first: np.ndarray,
    key_off: np.ndarray,
    key_len: np.ndarray,
    keys: np.ndarray,
) -> int:
    """The child of `node` whose key is buf[s:e], or -1 (children of n: first[n]..first[n+1])."""
    for c in range(first[node], first[node + 1]):
        if key_len[c] != e - s:
            continue
        same = True
        for k in range(e - s):
            if buf[s + k] != keys[key_off[c] + k]:
                same = False
                break
        if same:
            return c
    return -1
