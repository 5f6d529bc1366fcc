"""Reading JSON from files people give us: too deep a nesting is bad JSON, not a crash.

`json.loads` raises RecursionError on values nested deeper than the interpreter's
recursion limit (about a thousand levels), and a plain ValueError on an integer of more
than 4,300 digits, where every reader of the project expects a `json.JSONDecodeError`
for input it cannot read: the line would end the command with a
traceback instead of the `file:line` error, or stop a records file's evaluation instead
of counting one malformed line.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

TOO_DEEP = "nested deeper than the JSON reader allows"


def json_loads(data: str | bytes | bytearray) -> Any:
    """`json.loads`, with a too-deep value or an over-long integer raised as
    `json.JSONDecodeError` (a ValueError), as every other malformed input is."""
    try:
        return json.loads(data)
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, "", 0) from None
    except json.JSONDecodeError:
        raise
    except UnicodeDecodeError:  # bytes that are not UTF-8: the caller names the encoding
        raise
    except ValueError as exc:  # an integer over Python's digit limit (sys.int_info)
        raise json.JSONDecodeError(f"number too long ({exc})", "", 0) from None


# ---- when a fast reader reads JSON lines as `json.loads` reads each line -------------
# The ROP records decoder (msgspec) and the BEIR corpus reader (Arrow) read whole blocks
# and vouch for them only where these guards hold; anything else goes to `json.loads`,
# line by line, the definition.

_DIGITS = re.compile(rb"[0-9]*")
_DIGIT_CHARS = b"0123456789"


def clean_lines(block: bytes) -> int:
    """The number of lines of `block` (no final newline) when it starts with `{`, ends
    with `}` and every line break is a clean record boundary (`}\\n{` or `}\\r\\n{`); else 0.

    With clean boundaries no value spans two lines (`}` then `{` never occurs inside a
    JSON value), so a reader that yields one record per line read exactly these lines;
    blank lines, a BOM or leading spaces make the block unclean."""
    if not block.startswith(b"{") or not (block.endswith(b"}") or block.endswith(b"}\r")):
        return 0
    breaks = block.count(b"\n")
    # Each pattern holds one line break and the two never share one.
    if block.count(b"}\n{") + block.count(b"}\r\n{") != breaks:
        return 0
    return breaks + 1


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
