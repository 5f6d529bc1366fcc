"""The capability matrix grouped as the n-Clue supplement's Tables S1a-S1d.

Every fair run (one that reads only the released query text and pages) is
ranked by n-Clue Score, ties broken by Gold Hit, then Gold-NDCG, then run name,
and the ranking is shown in three consecutive blocks (Tables S1a, S1b and S1c
split the 66 fair rows into ranks 1-22, 23-44 and 45-66). Runs marked
privileged (construction-fact controls, which read the immutable construction
facts) get no rank and are listed apart (Table S1d). Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from scorers.runs.text import table


@dataclass(frozen=True)
class CategoryReport:
    categories: dict[str, str]  # run -> category ("" when the file does not name it)
    privileged: list[str]  # unranked construction-fact controls, by n-Clue Score
    ranking: list[str]  # fair runs, best first
    rank: dict[str, int]  # fair run -> 1-based rank

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def to_text(self, rep: Mapping[str, Any], blocks: int = 3) -> str:
        runs = rep["runs"]

        def pts(x: float) -> str:
            return f"{100 * x:.1f}"

        def ci(c: list[float] | None) -> str:
            return "-" if c is None else f"[{pts(c[0])}, {pts(c[1])}]"

        out = []
        size = max(1, math.ceil(len(self.ranking) / blocks))
        for b in range(0, len(self.ranking), size):
            part = self.ranking[b : b + size]
            rows = [
                [self.rank[t], t, self.categories.get(t, ""), pts(runs[t]["nclue"]),
                 ci(runs[t]["ci95"]["nclue"]), pts(runs[t]["gold_hit"]), pts(runs[t]["gold_ndcg"])]
                for t in part
            ]  # fmt: skip
            label = "S1" + "abcdefghij"[min(b // size, 9)]
            out.append(
                f"\nTable {label}-style block: ranks {b + 1}-{b + len(part)} by n-Clue Score."
            )
            out.append(
                table(
                    rows, ["rank", "run", "category", "n-Clue", "95% CI", "Gold Hit", "Gold-NDCG"]
                )
            )
        if self.privileged:
            rows = [
                [t, self.categories.get(t, ""), pts(runs[t]["nclue"]), pts(runs[t]["gold_hit"]),
                 pts(runs[t]["gold_ndcg"])]
                for t in self.privileged
            ]  # fmt: skip
            out.append(
                "\nUnranked construction-fact controls (Table S1d-style): privileged input, "
                "not fair retrievers."
            )
            out.append(table(rows, ["control", "category", "n-Clue", "Gold Hit", "Gold-NDCG"]))
        return "\n".join(out)


def category_report(
    rep: Mapping[str, Any], categories: Mapping[str, str], privileged: set[str]
) -> CategoryReport:
    """Rank the runs of an nclue report; privileged runs stay unranked."""
    runs = rep["runs"]

    def key(t: str) -> tuple[float, float, float, str]:
        r = runs[t]
        return (-r["nclue"], -r["gold_hit"], -r["gold_ndcg"], t)

    fair = sorted((t for t in runs if t not in privileged), key=key)
    controls = sorted((t for t in runs if t in privileged), key=key)
    return CategoryReport(
        {t: categories.get(t, "") for t in runs},
        controls,
        fair,
        {t: i for i, t in enumerate(fair, start=1)},
    )
