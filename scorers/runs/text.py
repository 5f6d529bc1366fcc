"""Point, interval and p formatting for the robustness reports' text tables (in the style of the n-Clue supplement's tables).

`table` is the shared one of vocabulary/tables.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from vocabulary.tables import table

__all__ = ["interval", "pts", "pvalue", "table"]


def pts(x: float | None, signed: bool = False) -> str:
    """A fraction as points x100 with one decimal ("-" when undefined)."""
    if x is None or x != x:
        return "-"
    return f"{100 * x:+.1f}" if signed else f"{100 * x:.1f}"


def interval(ci: Sequence[float] | None, signed: bool = True, digits: int = 2) -> str:
    """[lo, hi] in points, as the n-Clue supplement's tables print paired intervals."""
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
