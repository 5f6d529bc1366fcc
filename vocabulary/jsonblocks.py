"""When Arrow's JSON reader reads a block of JSON lines as `json.loads` reads each line.

Arrow reads a million short JSON lines in about a second and makes no Python object per
value, but it reads some lines `json.loads` refuses: two objects on one line, invalid
UTF-8, integers over Python's digit limit, the constants `Inf`, `-Inf` and `-NaN`, and
any depth of nesting (it parses iteratively, where `json.loads` stops with
RecursionError about a thousand levels down). `vouched_lines` says when none of these can
be in a block; the readers that use Arrow (the ROP records, BEIR corpus ingest, JSONL
qrels) read every other block with their per-line reader, the definition. What it says
of lines no JSON reader accepts does not matter: Arrow refuses those itself.

These guards are C or NumPy passes over the block (about 1 ms per MiB in all, and most
of it lets other threads run), so a block costs little more than Arrow's own read.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

DEEP = 500  # nesting levels; `json.loads` reads about 990 from a shallow call stack

_LF, _CR, _OPEN, _CLOSE = 10, 13, ord("{"), ord("}")
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
# Every byte but `{`, `[` and the line break: deleting them leaves each line's openers.
_NOT_OPENERS = bytes(c for c in range(256) if c not in b"{[\n")
_STEP = np.zeros(256, dtype=np.int8)
_STEP[[ord("{"), ord("[")]] = 1
_STEP[[ord("}"), ord("]")]] = -1
_DIGITS = re.compile(rb"[0-9]*")
_DIGIT_CHARS = b"0123456789"
_DELIMITERS = frozenset(b" \t\r\n,]}")
_BEFORE_VALUE = frozenset(b":[,")


def line_blocks(data: bytes, size: int) -> Iterator[tuple[int, int]]:
    """(start, end) of consecutive blocks of whole lines of about `size` bytes; each end
    is just past a line break, or the end of `data`."""
    start = 0
    while start < len(data):
        cut = data.find(b"\n", start + size)
        end = len(data) if cut < 0 else cut + 1
        yield start, end
        start = end


def vouched_lines(block: bytes) -> int:
    """The number of lines of `block` (whole lines, without the final line break) when,
    if Arrow reads one record per line of it, each record is what `json.loads` reads
    from that line; else 0. The caller must still compare Arrow's row count with it."""
    data = np.frombuffer(block, dtype=np.uint8)
    breaks = clean_breaks(data)
    if breaks is None:
        return 0
    if not block.isascii() and not utf8(block):
        return 0
    if long_integer(block) or arrow_only_constant(block) or nests_deeper(block, data, breaks):
        return 0
    return len(breaks) + 1


def clean_breaks(data: np.ndarray) -> np.ndarray | None:
    """Positions of the line breaks when the block starts with `{`, ends with `}` and every
    line break is a clean record boundary (`}\\n{` or `}\\r\\n{`); else None.

    With clean boundaries no value spans two lines (`}` then `{` never occurs inside a
    JSON value), so a reader that yields one record per line read exactly these lines;
    blank lines, a BOM or leading spaces make the block unclean."""
    n = len(data)
    if n == 0 or data[0] != _OPEN:
        return None
    if not (data[-1] == _CLOSE or (n > 1 and data[-1] == _CR and data[-2] == _CLOSE)):
        return None
    breaks = np.flatnonzero(data == _LF)
    # The first byte is `{` and the last is not a line break: both neighbours exist.
    if not (data[breaks + 1] == _OPEN).all():
        return None
    before = data[breaks - 1]
    cr = before == _CR
    if cr.any():
        if not (data[breaks[cr] - 2] == _CLOSE).all():
            return None
        before = before[~cr]
    return breaks if (before == _CLOSE).all() else None


def utf8(block: bytes) -> bool:
    """Whether `block` is strict UTF-8, as `bytes.decode("utf-8")` decides (Arrow's
    validator: no string is built)."""
    offsets = pa.py_buffer(np.array([0, len(block)], dtype=np.int32))
    text = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(block)])
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def long_integer(block: bytes) -> bool:
    """Could `block` hold an integer `json.loads` refuses (more digits than Python's
    int-conversion limit)? Any run of more than `limit` digits holds a byte at a position
    p with p % limit == limit - 1, so only those bytes start a check."""
    limit = sys.get_int_max_str_digits()
    if limit == 0 or len(block) <= limit:
        return False
    for at in range(limit - 1, len(block), limit):
        if block[at] in _DIGIT_CHARS:
            end = _DIGITS.match(block, at).end()  # type: ignore[union-attr]
            before = block[max(0, at - limit) : at]
            start = at - (len(before) - len(before.rstrip(_DIGIT_CHARS)))
            if end - start > limit:
                return True
    return False


def arrow_only_constant(block: bytes) -> bool:
    """Could `block` hold `Inf`, `-Inf` or `-NaN` as a value? Arrow's JSON reader (RapidJSON
    with its NaN-and-Inf option) reads those three, where `json.loads` reads only `NaN`,
    `Infinity` and `-Infinity`. A token counts where a value may start (after `:`, `[` or
    `,` and blanks) and ends at a delimiter; the same letters inside a string may count too,
    which only sends the block to the per-line reader."""
    for letter, token in ((b"I", b"Inf"), (b"N", b"-NaN")):
        if letter not in block:  # one memchr pass settles most blocks
            continue
        at = block.find(token)
        while at >= 0:
            end = at + len(token)
            if end == len(block) or block[end] in _DELIMITERS:
                start = at - 1 if token == b"Inf" and at and block[at - 1] == 45 else at  # -
                # Blanks are looked through 64 bytes back; a longer run counts as a value.
                before = block[max(0, start - 64) : start].rstrip(b" \t\r\n")
                if not before or before[-1] in _BEFORE_VALUE:
                    return True
            at = block.find(token, at + 1)
    return False


def nests_deeper(block: bytes, data: np.ndarray, breaks: np.ndarray, limit: int = DEEP) -> bool:
    """Whether a line of `block` (bytes `data`, line breaks at `breaks`) may nest objects
    and arrays `limit` levels deep (exact for lines of valid JSON)."""
    # Nesting d levels takes d openers and d closers: a shorter line cannot.
    ends = np.concatenate([breaks, [len(data)]])
    if int(np.diff(ends, prepend=-1).max()) <= 2 * limit:
        return False
    # Nor can a line with fewer `{` and `[` than `limit` (counting those in strings).
    openers = block.translate(None, _NOT_OPENERS)
    if max(map(len, openers.split(b"\n"))) < limit:
        return False
    return deepest(data) >= limit


def deepest(data: np.ndarray) -> int:
    """The deepest nesting of objects and arrays on any line of a block, brackets inside
    strings left out (exact for lines of valid JSON, where each line ends at depth 0)."""
    quotes = np.flatnonzero(data == _QUOTE)
    slashes = np.flatnonzero(data == _BACKSLASH)
    if len(quotes) and len(slashes):
        # A quote is escaped when an odd run of backslashes ends just before it.
        run_start = np.ones(len(slashes), dtype=bool)
        run_start[1:] = slashes[1:] != slashes[:-1] + 1
        starts = np.maximum.accumulate(np.where(run_start, slashes, 0))
        at = np.minimum(np.searchsorted(slashes, quotes - 1), len(slashes) - 1)
        after_run = slashes[at] == quotes - 1
        run_length = np.where(after_run, quotes - starts[at], 0)
        quotes = quotes[run_length % 2 == 0]
    brackets = np.flatnonzero(_STEP[data])
    # Inside a string when an odd number of (unescaped) quotes comes before.
    outside = np.searchsorted(quotes, brackets) % 2 == 0
    steps = _STEP[data[brackets[outside]]].astype(np.int64)
    return int(np.cumsum(steps).max()) if len(steps) else 0
