"""The checks every ROP record parser shares: one wording for a missing id and for a file
without records."""

from __future__ import annotations

from collections.abc import Sized
from typing import Any, TypeVar

from vocabulary.errors import InputError

T = TypeVar("T", bound=Sized)


def text_field(obj: dict[str, Any], key: str, source: str, line: int) -> str:
    """`obj[key]` when it is a non-empty string; otherwise `source:line` names the field."""
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"needs a non-empty string {key!r}", file=source, line=line)
    return value


def some_rows(rows: T, what: str, source: str) -> T:
    """`rows` when the file gave any; an empty file is an error ("no records", say)."""
    if not rows:
        raise InputError(f"no {what}", file=source, hint="one JSON object per line")
    return rows
