"""Compiled (Numba) scan of a block of JSON Lines: validate each line, pick out the needed values.

A line is accepted only when it is, byte for byte, a JSON object that Python's
``json.loads`` reads the same way: RFC 8259 grammar with JSON whitespace (space,
tab, CR), strict UTF-8 without encoded surrogates, no control characters in
strings, at most ``_MAX_DEPTH`` levels, numbers under ``_MAX_NUMBER`` bytes.
Every other line -- blank lines aside -- is marked SLOW and left to the line
parser, which decides whether it is malformed. So are lines where a needed
value or a key on a needed path carries a backslash escape, or a needed key
occurs twice in one object (Python keeps the last one). The kernel never judges
a line malformed itself, so a gap in what it accepts costs speed, not verdicts.

An accepted line without escapes becomes the template for the next lines
(`match_template`): a line that repeats the template's bytes between its value strings
and numbers is accepted after one comparison pass (records written by one
program repeat their layout), and only the spans are read off the holes.

Needed values are described by a small trie of object keys (built in
`scorers.rop.scan_rows`). Node kinds:

* INTERNAL: an object is expected; its keys lead to child nodes.
* SCALAR: a leaf whose value is recorded as (type, start, end) in a scalar slot.
* LIST_PLAIN / LIST_OBJECTS: a leaf whose array is recorded in a list slot; its
  one child is the element node.
* ELEM_PLAIN: an element that must be a non-empty string; ELEM_OBJECT: an
  element that must be an object whose one child (ELEM_ID) is a non-empty string.

Offsets are byte positions in the whole buffer; a string span excludes its quotes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

# Everything compiled lives in this one module on purpose: Numba's on-disk cache of a
# function is invalidated only by changes to the function's own file, so a helper in
# another module could change while a stale compiled caller kept the old code.

# ---------------------------------------------------------------- tokens

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


# ---------------------------------------------------------------- template lines


@intrinsic
def _load_u64(typingctx: Any, arr: Any, idx: Any) -> Any:
    """Bytes arr[idx:idx + 8] as one little-endian uint64 (an unaligned load; the caller
    keeps idx + 8 within the array)."""
    sig = types.uint64(arr, idx)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)

    return sig, codegen


load_u64: Any = _load_u64  # called as load_u64(arr, idx) in compiled code


@intrinsic
def _store_u64(typingctx: Any, arr: Any, idx: Any, value: Any) -> Any:
    """Write `value` to arr[idx:idx + 8], little-endian (an unaligned store; the caller
    keeps idx + 8 within the array)."""
    sig = types.void(arr, idx, types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(64).as_pointer())
        builder.store(args[2], ptr, align=1)
        return context.get_dummy_value()

    return sig, codegen


store_u64: Any = _store_u64  # called as store_u64(arr, idx, value) in compiled code


# SWAR constants: a byte test on eight bytes at once (Bit Twiddling Hacks, "hasless").
_LOW = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_SPACES = np.uint64(0x2020202020202020)  # 32 in every byte
_QUOTES = np.uint64(0x2222222222222222)
_BACKSLASHES = np.uint64(0x5C5C5C5C5C5C5C5C)


@njit(cache=True, nogil=True, inline="always")
def _plain8(x: Any) -> bool:
    """No byte of x is a control byte, >= 128, a quote or a backslash (all stand for
    themselves in a JSON string)."""
    bad = x & _HIGH
    bad |= (x - _SPACES) & ~x & _HIGH  # a byte < 32
    q = x ^ _QUOTES
    bad |= (q - _LOW) & ~q & _HIGH  # a byte == '"'
    b = x ^ _BACKSLASHES
    bad |= (b - _LOW) & ~b & _HIGH  # a byte == '\\'
    return bad == 0


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


@njit(cache=True, nogil=True, inline="always")  # called once per line
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
        n = stop - t
        if p + n > hi:
            return -1
        i = 0
        while i + 8 <= n:  # eight bytes per compare
            if load_u64(buf, p + i) != load_u64(tpl, t + i):
                return -1
            i += 8
        while i < n:
            if buf[p + i] != tpl[t + i]:
                return -1
            i += 1
        p += n
        t = stop
        if h == n_holes:
            break
        width = tpl_holes[h, 1] - t  # the template's own value here
        t = tpl_holes[h, 1]
        a = p
        if tpl_holes[h, 2] == HOLE_NUMBER:
            if p >= hi:
                return -1
            p = number_end(buf, p, hi)
            if p < 0:
                return -1
            continue
        # Most values are as long as the template's: if a quote follows that many bytes
        # that stand for themselves (no quote among them), the string ends there.
        if p + width < hi and buf[p + width] == 34:
            plain = True
            i = 0
            while plain and i + 8 <= width:
                plain = _plain8(load_u64(buf, p + i))
                i += 8
            while plain and i < width:
                plain = PLAIN[buf[p + i]] == 1
                i += 1
            if plain:
                p += width
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


# ---------------------------------------------------------------- lines and blocks

INTERNAL, SCALAR, LIST_PLAIN, LIST_OBJECTS, ELEM_PLAIN, ELEM_OBJECT, ELEM_ID = range(7)
OK, BLANK, SLOW = 0, 1, 2  # line status
ABSENT, STRING, OTHER = 0, 1, 2  # scalar slot type; for list slots STRING means "an array"
_MAX_DEPTH = 64
# Scan results: (line status, line start, line end, scalar type/start/end [line, slot],
# list type/bad/count [line, slot], element start/end [slot, k], number of lines)
Block = tuple[Any, ...]


@njit(cache=True, nogil=True)
def _line(
    buf: np.ndarray,
    p: int,
    end: int,
    row: int,
    kind: np.ndarray,
    slot: np.ndarray,
    first: np.ndarray,
    key_off: np.ndarray,
    key_len: np.ndarray,
    keys: np.ndarray,
    sc_type: np.ndarray,
    sc_start: np.ndarray,
    sc_end: np.ndarray,
    li_type: np.ndarray,
    li_bad: np.ndarray,
    li_count: np.ndarray,
    el_start: np.ndarray,
    el_end: np.ndarray,
    el_fill: np.ndarray,
    seen: np.ndarray,
    st_obj: np.ndarray,
    st_node: np.ndarray,
    holes: np.ndarray,
    meta: np.ndarray,
) -> tuple[int, int]:
    """Parse the line starting at p (up to its newline or `end`); returns (status, end of
    an OK or BLANK line). No token reads past a newline: strings refuse control bytes,
    whitespace, numbers and literals stop there.

    `seen` (per node), `st_obj` and `st_node` (the container stack: object or array,
    and its node) are scratch arrays reused from line to line. Nodes are numbered so
    that the children of node n are first[n]..first[n + 1] - 1.

    The line's value strings and numbers are listed in `holes` (start, end, kind,
    action, slot per row; see `match_template`) and meta = [holes, escapes seen, overflow],
    so that an OK line can become the template for the next ones.
    """
    meta[0] = 0
    meta[1] = 0
    meta[2] = 0
    p = skip_ws(buf, p, end)
    if p == end or buf[p] == 10:
        return BLANK, p
    if buf[p] != 123:  # not an object: the line parser decides
        return SLOW, p
    depth = 0
    ctx = 0  # node of the value about to be read (-1: not needed)
    while True:
        # ---- one value at `ctx`
        if p >= end:
            return SLOW, p
        c = buf[p]
        k = kind[ctx] if ctx >= 0 else -1
        if c == 123 or c == 91:  # { or [
            if depth == _MAX_DEPTH:
                return SLOW, p
            node = -1
            if c == 123:
                if k in (INTERNAL, ELEM_OBJECT):
                    node = ctx
                    for ch in range(first[ctx], first[ctx + 1]):
                        seen[ch] = 0
                elif k == SCALAR:
                    sc_type[row, slot[ctx]] = OTHER
                elif k in (LIST_PLAIN, LIST_OBJECTS):
                    li_type[row, slot[ctx]] = OTHER
                elif k in (ELEM_PLAIN, ELEM_ID):
                    li_bad[row, slot[ctx]] = 1
            else:
                if k in (LIST_PLAIN, LIST_OBJECTS):
                    li_type[row, slot[ctx]] = STRING
                    node = first[ctx]  # the element node
                elif k == SCALAR:
                    sc_type[row, slot[ctx]] = OTHER
                elif k in (ELEM_PLAIN, ELEM_OBJECT, ELEM_ID):
                    li_bad[row, slot[ctx]] = 1
            st_obj[depth] = 1 if c == 123 else 0
            st_node[depth] = node
            depth += 1
            p = skip_ws(buf, p + 1, end)
            if p >= end:
                return SLOW, p
            if (c == 123 and buf[p] == 125) or (c == 91 and buf[p] == 93):
                p += 1  # empty container: fall through to "after a value"
                depth -= 1
                if c == 123 and node >= 0 and kind[node] == ELEM_OBJECT:
                    li_bad[row, slot[node]] = 1  # an element without its id
            elif c == 123:
                ctx = -2  # read a key next
            else:
                ctx = node
                continue
        elif c == 34:
            q, esc = string_end(buf, p, end)
            if q < 0:
                return SLOW, p
            action = 0
            if k == SCALAR:
                action = 1
            elif k in (ELEM_PLAIN, ELEM_ID):
                action = 2
            add_hole(
                holes, meta, p + 1, q - 1, HOLE_STRING, action, slot[ctx] if action else 0, esc
            )
            if k == SCALAR:
                if esc:
                    return SLOW, p
                sc_type[row, slot[ctx]] = STRING
                sc_start[row, slot[ctx]] = p + 1
                sc_end[row, slot[ctx]] = q - 1
            elif k in (ELEM_PLAIN, ELEM_ID):
                if esc:
                    return SLOW, p
                s = slot[ctx]
                if q - 1 == p + 1:
                    li_bad[row, s] = 1
                else:
                    el_start[s, el_fill[s]] = p + 1
                    el_end[s, el_fill[s]] = q - 1
                    el_fill[s] += 1
                    li_count[row, s] += 1
            elif k in (LIST_PLAIN, LIST_OBJECTS):
                li_type[row, slot[ctx]] = OTHER
            elif k == ELEM_OBJECT:
                li_bad[row, slot[ctx]] = 1
            p = q
        else:
            if c == 116 or c == 102 or c == 110:
                q = literal_end(buf, p, end)
            elif c == 45 or (48 <= c <= 57):
                q = number_end(buf, p, end)
                if q >= 0:
                    add_hole(holes, meta, p, q, HOLE_NUMBER, 0, 0, 0)
            else:
                return SLOW, p  # NaN, Infinity, garbage: the line parser decides
            if q < 0:
                return SLOW, p
            if k == SCALAR:
                sc_type[row, slot[ctx]] = OTHER
            elif k in (LIST_PLAIN, LIST_OBJECTS):
                li_type[row, slot[ctx]] = OTHER
            elif k in (ELEM_PLAIN, ELEM_OBJECT, ELEM_ID):
                li_bad[row, slot[ctx]] = 1
            p = q
        # ---- after a value (or an empty container): separators, closes, keys
        while True:
            if ctx != -2:
                p = skip_ws(buf, p, end)
                if depth == 0:
                    if p == end or buf[p] == 10:
                        return OK, p
                    return SLOW, p
                if p >= end:
                    return SLOW, p
                c = buf[p]
                top = depth - 1
                if st_obj[top] == 1:
                    if c == 125:  # }
                        node = st_node[top]
                        if node >= 0 and kind[node] == ELEM_OBJECT and seen[first[node]] == 0:
                            li_bad[row, slot[node]] = 1  # no id in this element
                        depth -= 1
                        p += 1
                        continue
                    if c != 44:
                        return SLOW, p
                    p += 1
                else:
                    if c == 93:  # ]
                        depth -= 1
                        p += 1
                        continue
                    if c != 44:
                        return SLOW, p
                    p = skip_ws(buf, p + 1, end)
                    ctx = st_node[top]
                    break
            # a key, a colon, then the value
            p = skip_ws(buf, p, end)
            if p >= end or buf[p] != 34:
                return SLOW, p
            q, esc = string_end(buf, p, end)
            if q < 0:
                return SLOW, p
            meta[1] |= esc
            node = st_node[depth - 1]
            ctx = -1
            if node >= 0:
                if esc:
                    return SLOW, p  # an escaped key could spell a needed one
                ctx = child_node(buf, p + 1, q - 1, node, first, key_off, key_len, keys)
                if ctx >= 0:
                    if seen[ctx]:
                        return SLOW, p  # a needed key twice: Python keeps the last
                    seen[ctx] = 1
            p = skip_ws(buf, q, end)
            if p >= end or buf[p] != 58:
                return SLOW, p
            p = skip_ws(buf, p + 1, end)
            break


@njit(cache=True, nogil=True)
def scan_block(
    buf: np.ndarray,
    lo: int,
    hi: int,
    n_lines: int,
    cap: int,
    kind: np.ndarray,
    slot: np.ndarray,
    first: np.ndarray,
    key_off: np.ndarray,
    key_len: np.ndarray,
    keys: np.ndarray,
    n_scalar: int,
    n_list: int,
) -> Block:
    """Scan the `n_lines` lines of buf[lo:hi] (lo starts a line; each line ends at a
    newline or at hi): per line its status and span, and the needed values. `cap`
    bounds the number of list elements (half the double quotes will do)."""
    status = np.zeros(n_lines, dtype=np.int8)
    starts = np.zeros(n_lines, dtype=np.int64)
    ends = np.zeros(n_lines, dtype=np.int64)
    ns, nl = max(n_scalar, 1), max(n_list, 1)
    sc_type = np.zeros((n_lines, ns), dtype=np.int8)
    sc_start = np.zeros((n_lines, ns), dtype=np.int64)
    sc_end = np.zeros((n_lines, ns), dtype=np.int64)
    li_type = np.zeros((n_lines, nl), dtype=np.int8)
    li_bad = np.zeros((n_lines, nl), dtype=np.int8)
    li_count = np.zeros((n_lines, nl), dtype=np.int64)
    el_start = np.zeros((nl, cap), dtype=np.int64)
    el_end = np.zeros((nl, cap), dtype=np.int64)
    el_fill = np.zeros(nl, dtype=np.int64)
    mark = np.zeros(nl, dtype=np.int64)
    seen = np.zeros(kind.shape[0], dtype=np.uint8)
    st_obj = np.zeros(_MAX_DEPTH, dtype=np.uint8)
    st_node = np.zeros(_MAX_DEPTH, dtype=np.int64)
    holes = np.zeros((MAX_HOLES, 5), dtype=np.int64)
    meta = np.zeros(3, dtype=np.int64)
    # The template: the last OK line without escapes or bad lists (relative positions).
    tpl = np.zeros(min(hi - lo, MAX_TEMPLATE) + 1, dtype=np.uint8)
    tpl_holes = np.zeros((MAX_HOLES, 5), dtype=np.int64)
    tpl_sc = np.zeros(ns, dtype=np.int8)
    tpl_li = np.zeros(nl, dtype=np.int8)
    n_holes = -1  # no template yet
    tpl_len = 0
    p = lo
    for row in range(n_lines):
        for s in range(nl):
            mark[s] = el_fill[s]
        if n_holes >= 0:
            end = match_template(
                buf, p, hi, row, tpl, tpl_holes, n_holes, tpl_len,
                sc_start, sc_end, li_bad, li_count, el_start, el_end, el_fill,
            )  # fmt: skip
            if end >= 0:
                for s in range(ns):
                    sc_type[row, s] = tpl_sc[s]
                for s in range(nl):
                    li_type[row, s] = tpl_li[s]
                starts[row] = p
                ends[row] = end
                p = end + 1
                continue
            for s in range(nl):
                el_fill[s] = mark[s]
                li_count[row, s] = 0
                li_bad[row, s] = 0
            for s in range(ns):
                sc_start[row, s] = 0
                sc_end[row, s] = 0
        st, end = _line(
            buf, p, hi, row, kind, slot, first, key_off, key_len, keys,
            sc_type, sc_start, sc_end, li_type, li_bad, li_count, el_start, el_end, el_fill,
            seen, st_obj, st_node, holes, meta,
        )  # fmt: skip
        if st == SLOW:  # forget what the line had recorded; find its end
            el_fill[:] = mark
            li_count[row, :] = 0
            end = p
            while end < hi and buf[end] != 10:
                end += 1
        elif st == OK and not (meta[1] or meta[2] or li_bad[row, :].any() or end - p >= tpl.size):
            # this line (no escapes, no bad list, not too long) becomes the template
            tpl_len = end - p
            tpl[:tpl_len] = buf[p:end]
            n_holes = meta[0]
            tpl_holes[:n_holes, :] = holes[:n_holes, :]
            tpl_holes[:n_holes, 0] -= p
            tpl_holes[:n_holes, 1] -= p
            tpl_sc[:] = sc_type[row, :]
            tpl_li[:] = li_type[row, :]
        starts[row] = p
        ends[row] = end
        status[row] = st
        p = end + 1
    return (
        status, starts, ends, sc_type, sc_start, sc_end,
        li_type, li_bad, li_count, el_start, el_end, el_fill,
    )  # fmt: skip


_NEWLINES = np.uint64(0x0A0A0A0A0A0A0A0A)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)


@njit(cache=True, nogil=True, inline="always")
def _count8(x: Any, pattern: Any) -> Any:
    """How many of the eight bytes of x equal the byte repeated in `pattern`."""
    t = x ^ pattern
    zero = ~(((t & _LOW7) + _LOW7) | t | _LOW7)  # exactly the zero bytes' high bits
    return ((zero >> np.uint64(7)) * _LOW) >> np.uint64(56)  # sum of eight 0/1 bytes


@njit(cache=True, nogil=True)
def count_lines(buf: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """(newlines, double quotes) in buf[lo:hi], eight bytes at a time: one pass sizes the
    scan's arrays."""
    newlines = np.uint64(0)
    quotes = np.uint64(0)
    p = lo
    while p + 8 <= hi:
        x = load_u64(buf, p)
        newlines += _count8(x, _NEWLINES)
        quotes += _count8(x, _QUOTES)
        p += 8
    while p < hi:
        newlines += np.uint64(buf[p] == 10)
        quotes += np.uint64(buf[p] == 34)
        p += 1
    return int(newlines), int(quotes)


@njit(cache=True, nogil=True)
def gather(
    buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, counts: np.ndarray, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The spans of the lines where `keep`, laid end to end: (int32 offsets, bytes, spans
    per line, fingerprints). Line i owns `counts[i]` consecutive spans
    buf[starts[j]:ends[j]]. A span's fingerprint is `scorers.rop.prefilter.fingerprints`'
    (its last four bytes, little-endian, XOR its length), taken while the bytes pass."""
    n_spans = 0
    n_bytes = 0
    j = 0
    for i in range(counts.shape[0]):
        if keep[i]:
            n_spans += counts[i]
            for k in range(j, j + counts[i]):
                n_bytes += ends[k] - starts[k]
        j += counts[i]
    offsets = np.zeros(n_spans + 1, dtype=np.int32)
    out = np.empty(n_bytes + 8, dtype=np.uint8)  # room for the last eight-byte store
    per_line = np.zeros(counts.shape[0], dtype=np.int64)
    fp = np.zeros(n_spans, dtype=np.int32)
    size = buf.shape[0]
    j = 0
    s = 0
    b = 0
    for i in range(counts.shape[0]):
        if keep[i]:
            per_line[i] = counts[i]
            for k in range(j, j + counts[i]):
                a, e = starts[k], ends[k]
                # Eight bytes at a time; a store may run past the span, the next span's
                # bytes (or the padding) overwrite it.
                x = a
                while x < e:
                    if x + 8 <= size:
                        store_u64(out, b + x - a, load_u64(buf, x))
                        x += 8
                    else:
                        out[b + x - a] = buf[x]
                        x += 1
                b += e - a
                if e - a >= 4 and e >= 8:  # the last four bytes: the high half of one load
                    word = np.int64(load_u64(buf, e - 8) >> np.uint64(32))
                else:
                    word = np.int64(0)
                    for x in range(max(a, e - 4), e):
                        word |= np.int64(buf[x]) << (8 * (x - max(a, e - 4)))
                fp[s] = (word ^ (e - a)) & 0x7FFFFFFF
                s += 1
                offsets[s] = b
        j += counts[i]
    return offsets, out[:n_bytes], per_line, fp
