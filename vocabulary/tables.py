"""The plain aligned text table that every report's text view uses (CLI and scorers alike)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """A plain aligned text table (right-aligned numbers, floats to 4 decimals)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for idx, r in enumerate(cells):
        parts = []
        for i, c in enumerate(r):
            numeric = idx > 0 and _is_number(c)
            parts.append(c.rjust(widths[i]) if numeric else c.ljust(widths[i]))
        out.append("  ".join(parts).rstrip())
        if idx == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return False
    return True
