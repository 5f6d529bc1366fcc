"""Evidence-coverage pre-check of "Which Reranking Conclusions Survive the Answer Interface?".

Before any reader is evaluated, the paper checks that the base ranker's candidate depth
holds the complete gold evidence often enough (its calibration reports 91.2% overall,
92.8% SUPPORTS and 89.6% REFUTES). With an ``evidence_covered`` column (1 when the claim's
candidate pool contains every gold evidence document, else 0; a property of the claim, so
the same on all of its rows in a dataset) this module reports per dataset the number of
claims, the covered share overall and per semantic state, and, with a required share,
whether it is met. Coverage is counted once per (dataset, claim): the pool is shared by
the dataset's readers, rankers and interfaces.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorers.orbit.diagnostics import states
from vocabulary.errors import InputError

COVERED = "evidence_covered"


@dataclass(frozen=True)
class CoverageRow:
    dataset: str
    claims: int
    covered: int
    claims_plus: int
    covered_plus: int
    claims_minus: int
    covered_minus: int
    required: float | None

    def to_json(self) -> dict[str, Any]:
        def rate(a: int, n: int) -> float | None:
            return a / n if n else None

        overall = rate(self.covered, self.claims)
        return {
            "dataset": self.dataset,
            "claims": self.claims,
            "covered": self.covered,
            "coverage": overall,
            "coverage_plus": rate(self.covered_plus, self.claims_plus),
            "coverage_minus": rate(self.covered_minus, self.claims_minus),
            "claims_plus": self.claims_plus,
            "claims_minus": self.claims_minus,
            "required": self.required,
            "meets_requirement": None
            if self.required is None or overall is None
            else overall >= self.required,
        }


@dataclass(frozen=True)
class CoverageReport:
    rows: list[CoverageRow]

    def to_json(self) -> dict[str, Any]:
        return {"datasets": [r.to_json() for r in self.rows]}


def evidence_coverage(
    columns: Mapping[str, NDArray[Any]],
    lines: NDArray[np.int64],
    source: str,
    *,
    positive: str | None = None,
    required: float | None = None,
) -> CoverageReport | None:
    """None when the table has no ``evidence_covered`` column."""
    if COVERED not in columns:
        return None
    cov = columns[COVERED]
    bad = ~np.isin(cov, ["0", "1"])
    if bad.any():
        raise InputError(
            f"column {COVERED} must be 0 or 1",
            file=source,
            line=int(lines[np.flatnonzero(bad)[0]]),
        )
    pos, _, _ = states(columns["y"], lines, source, positive)
    seen: dict[tuple[str, str], tuple[bool, bool, int]] = {}
    for d, c, v, p, line in zip(
        columns["dataset"], columns["claim_id"], cov == "1", pos, lines, strict=True
    ):
        key = (str(d), str(c))
        first = seen.setdefault(key, (bool(v), bool(p), int(line)))
        if first[0] != bool(v):
            raise InputError(
                f"claim {c!r} of {d!r}: {COVERED} differs from line {first[2]}",
                file=source,
                line=int(line),
                hint="coverage is a property of the claim's candidate pool",
            )
    out = []
    for dataset in sorted({d for d, _ in seen}):
        vals = [(v, p) for (d, _), (v, p, _) in seen.items() if d == dataset]
        out.append(
            CoverageRow(
                dataset=dataset,
                claims=len(vals),
                covered=sum(v for v, _ in vals),
                claims_plus=sum(p for _, p in vals),
                covered_plus=sum(v and p for v, p in vals),
                claims_minus=sum(not p for _, p in vals),
                covered_minus=sum(v and not p for v, p in vals),
                required=required,
            )
        )
    return CoverageReport(out)
