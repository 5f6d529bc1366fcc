"""What every audit-chain report shares: a statistic row and how its figures read.

Labels, the n/a fallback of an undefined figure and integer formatting are written here
once: the CLI prints `Stat.text()`, the admin page shows `Stat.cells()` (its own widget
formats those numbers, counts without decimals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# The admin table's columns of a statistics report, in order.
STAT_COLUMNS = ("statistic", "count", "total", "rate", "wilson95 lo", "wilson95 hi", "value")


def finite(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def num(x: Any) -> str:
    """A statistic; undefined (NaN, None: e.g. a kappa with one category) reads n/a."""
    return f"{x:.3f}" if finite(x) else "n/a"


@dataclass(frozen=True)
class Stat:
    """One row of a statistics table: a proportion, a count pair or a single value."""

    label: str
    count: int | None = None
    total: int | None = None
    rate: float | None = None
    lo: float | None = None
    hi: float | None = None
    value: float | None = None
    proportion: bool = False  # count/total (rate) [Wilson]; else count and total as given
    joiner: str = " / "  # how a plain count pair reads: "21 / 46" or "3 of 4"

    @classmethod
    def of(cls, label: str, prop: dict[str, Any], value: Any = None) -> Stat:
        """A report proportion ({count, total, rate?, wilson95?}); a missing rate is
        count/total, an empty one (nothing counted) None, printed n/a and JSON null."""
        lo, hi = prop.get("wilson95") or (None, None)
        total = prop["total"]
        rate = prop.get("rate", prop["count"] / total if total else None)
        return cls(label, prop["count"], total, rate, lo, hi, value, proportion=True)

    def text(self) -> str:
        if not self.proportion:
            if self.count is None:
                return num(self.value)
            return f"{self.count}{self.joiner}{self.total}"
        ci = ""
        if finite(self.lo) and finite(self.hi):
            assert self.lo is not None and self.hi is not None
            ci = f" [{100 * self.lo:.1f}, {100 * self.hi:.1f}]%"
        rate = f"{100 * self.rate:.1f}%" if self.rate is not None and finite(self.rate) else "n/a"
        return f"{self.count}/{self.total} ({rate}){ci}"

    def cells(self) -> dict[str, Any]:
        """The admin table's row: numbers as they are (None where a figure does not apply)."""
        return {
            "statistic": self.label,
            "count": self.count,
            "total": self.total,
            "rate": self.rate,
            "wilson95 lo": self.lo,
            "wilson95 hi": self.hi,
            "value": self.value,
        }
