"""Template lines for the compiled records scan (`scorers.rop.scan_kernel`).

An accepted line without escapes becomes the template for the next lines: its
bytes, with every value string's content and every number as a hole. A line
that repeats the template's bytes between the holes is accepted after one
comparison pass, and its needed values are read off the holes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from scorers.rop.scan_lexer import PLAIN, number_end, utf8_len

HOLE_STRING, HOLE_NUMBER = 0, 1
MAX_HOLES = 4096  # a line with more value strings and numbers gets no template
MAX_TEMPLATE = 1 << 16  # nor does a line longer than this


@njit(cache=True, nogil=True, inline="always")
def add_hole(
    holes: np.ndarray, meta: np.ndarray, a: int, b: int, kind: int, action: int, slot: int, esc: int
) -> None:
    meta[1] |= esc
    n = meta[0]
    if n == holes.shape[0]:
        meta[2] = 1
        return
    holes[n, 0] = a
    holes[n, 1] = b
    holes[n, 2] = kind
    holes[n, 3] = action
    holes[n, 4] = slot
    meta[0] = n + 1


@njit(cache=True, nogil=True)
def match_template(
    buf: np.ndarray,
    p: int,
    hi: int,
    row: int,
    tpl: np.ndarray,
    tpl_holes: np.ndarray,
    n_holes: int,
    tpl_len: int,
    sc_start: np.ndarray,
    sc_end: np.ndarray,
    li_bad: np.ndarray,
    li_count: np.ndarray,
    el_start: np.ndarray,
    el_end: np.ndarray,
    el_fill: np.ndarray,
) -> int:
    """Match the line at p against the template; its end, or -1.

    The template is an OK line without escapes: its bytes (`tpl`) with every value
    string's content and every number cut out as a hole (tpl_holes rows: start and end
    in `tpl`, kind, action 0 none / 1 scalar slot / 2 element of a list slot, slot). A
    line that repeats every byte between the holes and holds escape-free string
    contents (valid UTF-8, no control bytes) and valid numbers in them is valid JSON
    with the template's structure -- the same keys, so the same needed values -- and
    Python reads it so. Only the spans (and empty elements) can differ.
    """
    t = 0
    for h in range(n_holes + 1):
        stop = tpl_holes[h, 0] if h < n_holes else tpl_len
        if p + (stop - t) > hi:
            return -1
        while t < stop:
            if buf[p] != tpl[t]:
                return -1
            p += 1
            t += 1
        if h == n_holes:
            break
        t = tpl_holes[h, 1]
        a = p
        if tpl_holes[h, 2] == HOLE_NUMBER:
            if p >= hi:
                return -1
            p = number_end(buf, p, hi)
            if p < 0:
                return -1
            continue
        while p < hi:
            c = buf[p]
            if PLAIN[c]:
                p += 1
            elif c >= 128:
                n = utf8_len(buf, p, hi)
                if n == 0:
                    return -1
                p += n
            else:
                break
        if p >= hi or buf[p] != 34:
            return -1
        action = tpl_holes[h, 3]
        s = tpl_holes[h, 4]
        if action == 1:
            sc_start[row, s] = a
            sc_end[row, s] = p
        elif action == 2:
            if p == a:
                li_bad[row, s] = 1
            else:
                el_start[s, el_fill[s]] = a
                el_end[s, el_fill[s]] = p
                el_fill[s] += 1
                li_count[row, s] += 1
    if p < hi and buf[p] != 10:
        return -1
    return p
