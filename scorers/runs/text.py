"""Plain aligned text tables for the scorers' reports (no dependency on the command line)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("%").lstrip("+[").rstrip("]"))
    except ValueError:
        return False
    return True


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """Headers, a rule, then rows; numbers right-aligned, text left-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for idx, r in enumerate(cells):
        parts = [
            c.rjust(widths[i]) if idx > 0 and _is_number(c) else c.ljust(widths[i])
            for i, c in enumerate(r)
        ]
        out.append("  ".join(parts).rstrip())
        if idx == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def pts(x: float | None, signed: bool = False) -> str:
    """A fraction as points x100 with one decimal ("-" when undefined)."""
    if x is None or x != x:
        return "-"
    return f"{100 * x:+.1f}" if signed else f"{100 * x:.1f}"


def interval(ci: Sequence[float] | None, signed: bool = True, digits: int = 2) -> str:
    """[lo, hi] in points, as seed tables print paired intervals."""
    if ci is None or any(c != c for c in ci):
        return "-"
    fmt = f"{{:+.{digits}f}}" if signed else f"{{:.{digits}f}}"
    return f"[{fmt.format(100 * ci[0])}, {fmt.format(100 * ci[1])}]"


def pvalue(x: float | None, draws: int) -> str:
    """A randomization p; at its floor 1/(draws+1) it prints as "< 1/(draws+1)"."""
    if x is None or x != x:
        return "n/a"
    if x * (draws + 1) <= 1 + 1e-9:
        return f"< 1/{draws + 1}"
    return f"{x:.3f}"
