"""JSON-safe values for reports: what every `--json` output and `to_json()` may rely on."""

from __future__ import annotations

import json
import math
from typing import Any


def json_safe(value: Any) -> Any:
    """Make numpy scalars, NaN and tuples JSON-safe (NaN and infinities become null)."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (ValueError, TypeError):
            return value
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


# Values the C encoder writes exactly as the indenting (pure-Python) encoder does.
_PLAIN = frozenset({str, int, bool, type(None)})


def _flat(values: Any) -> bool:
    """Every value a plain scalar that `json_safe` leaves as it is (so no walk is needed)."""
    kinds = set(map(type, values))
    if kinds <= _PLAIN:
        return True
    if kinds <= _PLAIN | {float}:
        return all(math.isfinite(v) for v in values if type(v) is float)
    return False


def _indented(value: Any, level: int) -> str:
    outer = "\n" + "  " * level
    pad = outer + "  "
    if isinstance(value, dict):
        if not value:
            return "{}"
        if set(map(type, value)) != {str}:
            value = {str(k): v for k, v in value.items()}  # as json_safe does, ties included
        if _flat(value.values()):
            # The standard library indents only in Python; the C encoder, told to put the
            # line break and indent into its item separator, writes the same text.
            body = json.dumps(value, ensure_ascii=False, separators=("," + pad, ": "))
            return "{" + pad + body[1:-1] + outer + "}"
        items = (
            json.dumps(k, ensure_ascii=False) + ": " + _indented(v, level + 1)
            for k, v in value.items()
        )
        return "{" + pad + ("," + pad).join(items) + outer + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        if _flat(value):
            body = json.dumps(value, ensure_ascii=False, separators=("," + pad, ": "))
            return "[" + pad + body[1:-1] + outer + "]"
        return "[" + pad + ("," + pad).join(_indented(v, level + 1) for v in value) + outer + "]"
    return json.dumps(json_safe(value), ensure_ascii=False)


def dumps_indented(value: Any) -> str:
    """`json.dumps(json_safe(value), indent=2, ensure_ascii=False)`, the same text, faster.

    With `indent` the standard library encodes in pure Python, element by element; a
    `--json` report with a million per-record verdicts spent seconds there. Containers of
    plain scalars go through the C encoder instead (tests/test_jsonsafe.py checks the text
    is identical on generated values).
    """
    return _indented(value, 0)
