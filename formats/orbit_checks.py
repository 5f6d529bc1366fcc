"""File edge of the orbit input checks (generation diagnostics, evidence-coverage pre-check).

Reads the same long table as `evaudit orbit analyze` (`formats.orbit_table`) and
runs the pure checks of `scorers.orbit.diagnostics` and `scorers.orbit.coverage` when the
table has their columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formats.orbit_table import read_orbit_table
from scorers.orbit.coverage import COVERED, CoverageReport, evidence_coverage
from scorers.orbit.diagnostics import GENERATED, GenerationDiagnostics, generation_diagnostics
from vocabulary.errors import InputError


@dataclass(frozen=True)
class InputChecks:
    diagnostics: GenerationDiagnostics | None
    coverage: CoverageReport | None

    def to_json(self) -> dict[str, Any]:
        return {
            "generation_diagnostics": None
            if self.diagnostics is None
            else self.diagnostics.to_json(),
            "coverage": None if self.coverage is None else self.coverage.to_json(),
        }


def has_check_columns(path: str | Path) -> bool:
    """Whether the table's header names a check column (without reading every row)."""
    p = Path(path)
    try:
        if p.suffix.lower() in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            names = set(pq.read_schema(p).names)
        else:
            with p.open(encoding="utf-8", errors="replace") as fh:
                names = {c.strip() for c in fh.readline().rstrip("\r\n").split(",")}
    except OSError:
        return False
    return bool(names & {GENERATED, COVERED})


def read_input_checks(
    path: str | Path,
    *,
    positive: str | None = None,
    rankers: tuple[str, ...] | None = None,
    required: float | None = None,
    need: str | None = None,
) -> InputChecks:
    """Both checks for the columns the table has; ``need`` names a column that must exist."""
    columns, lines = read_orbit_table(path)
    for name in ("dataset", "reader", "claim_id", "y", "ranker", "correct"):
        if name not in columns:
            raise InputError(f"missing column {name!r}", file=path, hint="see docs/orbit.md")
    if need is not None and need not in columns:
        raise InputError(f"missing column {need!r}", file=path, hint="see docs/orbit.md")
    return InputChecks(
        generation_diagnostics(columns, lines, str(path), positive=positive, rankers=rankers),
        evidence_coverage(columns, lines, str(path), positive=positive, required=required),
    )
