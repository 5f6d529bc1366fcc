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
from pathlib import Path
from typing import Any

from vocabulary.errors import InputError

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


def json_problem(exc: json.JSONDecodeError) -> str:
    """The decoder's complaint with its column: `exc.msg` alone can end mid-sentence
    ("Invalid control character at")."""
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"


def json_document(
    data: str | bytes, what: str, file: str | Path, *, hint: str | None = None
) -> Any:
    """The JSON value of a whole file's `data`; malformed JSON is the InputError
    `file:line: WHAT (the decoder's complaint)`, with `hint` as its fix."""
    try:
        return json_loads(data)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{what} ({json_problem(exc)})", file=file, line=exc.lineno, hint=hint
        ) from exc
