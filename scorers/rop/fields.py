"""The field checks every ROP record parser shares: one wording for a missing id."""

from __future__ import annotations

from typing import Any

from vocabulary.errors import InputError


def text_field(obj: dict[str, Any], key: str, source: str, line: int) -> str:
    """`obj[key]` when it is a non-empty string; otherwise `source:line` names the field."""
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"needs a non-empty string {key!r}", file=source, line=line)
    return value
