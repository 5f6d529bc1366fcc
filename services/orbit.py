"""`evaudit orbit analyze|diagnostics|coverage`: the finite-orbit interface audit of "Which
Reranking Conclusions Survive the Answer Interface?", one service and report each.

The table is read at the edge (`formats.orbit_table`, `formats.orbit_checks`),
the figures come from the pure `scorers.orbit`; a report's `to_json()` is what `--json`
prints and `table()` the CLI's whole text (ending in a newline, printed as it is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formats.orbit_checks import InputChecks, has_check_columns, read_input_checks
from formats.orbit_table import load_orbit_data
from scorers.orbit.analysis import Options, OrbitAnalysis
from scorers.orbit.analysis import analyze as run_analysis
from scorers.orbit.decisions import Thresholds
from scorers.orbit.report import render_report
from vocabulary.progress import Progress, no_progress
from vocabulary.tables import table

DIAGNOSTICS = "diagnostics"
COVERAGE = "coverage"
# The JSON key of each input check's section.
_SECTION_KEYS = {DIAGNOSTICS: "generation_diagnostics", COVERAGE: "coverage"}


def _get(key: str) -> Callable[[dict[str, Any]], Any]:
    return lambda r: r[key]


# (header, cell of a row) of each section's table, in order.
_DIAGNOSTICS_COLUMNS: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
    ("environment", _get("environment")),
    ("ranker", lambda r: r["ranker"] or "both"),
    ("rows", _get("rows")),
    ("invalidity", _get("invalidity")),
    ("disagreement", _get("disagreement")),
]
_COVERAGE_COLUMNS: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
    ("dataset", _get("dataset")),
    ("claims", _get("claims")),
    ("coverage", _get("coverage")),
    ("coverage +", _get("coverage_plus")),
    ("coverage -", _get("coverage_minus")),
    ("meets", lambda r: "n/a" if r["meets_requirement"] is None else str(r["meets_requirement"])),
]


def _section(
    title: str,
    records: list[dict[str, Any]],
    columns: list[tuple[str, Callable[[dict[str, Any]], Any]]],
) -> list[str]:
    """A section of the input checks: its title, then one table row per record."""
    cells = [[cell(r) for _, cell in columns] for r in records]
    return [title, table(cells, [header for header, _ in columns])]


def checks_text(checks: InputChecks, sections: Sequence[str] = (DIAGNOSTICS, COVERAGE)) -> str:
    """The generation diagnostics and coverage pre-check as text tables."""
    out = []
    data = checks.to_json()
    diag = data["generation_diagnostics"]
    if diag is not None and DIAGNOSTICS in sections:
        out += _section(
            "Generation diagnostics (greedy generation is diagnostic only)",
            diag["by_environment"] + diag["by_ranker"],
            _DIAGNOSTICS_COLUMNS,
        )
        out.append(
            f"invalidity {diag['invalidity_range'][0]:.2%} to {diag['invalidity_range'][1]:.2%}, "
            f"disagreement {diag['disagreement_range'][0]:.2%} to "
            f"{diag['disagreement_range'][1]:.2%} over environments"
        )
    cov = data["coverage"]
    if cov is not None and COVERAGE in sections:
        out += _section(
            "Evidence-coverage pre-check (complete gold evidence within the pool)",
            cov["datasets"],
            _COVERAGE_COLUMNS,
        )
    return "\n".join(out) + ("\n" if out else "")


@dataclass(frozen=True)
class OrbitReport:
    """`orbit analyze`: the four questions, plus the input checks when the table has their
    columns (`--json` then has `generation_diagnostics` and `coverage`, null when the table
    has no check column)."""

    analysis: OrbitAnalysis
    checks: InputChecks | None

    def to_json(self) -> dict[str, Any]:
        out = self.analysis.to_json()
        if self.checks is not None:
            out.update(self.checks.to_json())
        else:
            out.update({"generation_diagnostics": None, "coverage": None})
        return out

    def table(self) -> str:
        text = render_report(self.to_json())
        if self.checks is not None:
            text += "\n5. Input checks\n" + checks_text(self.checks)
        return text


def orbit_analyze(
    table_file: str | Path,
    *,
    base: str,
    variant: str,
    positive: str | None = None,
    bootstrap: int = 10_000,
    seed: int = 0,
    threshold: float = 0.015,
    max_error: float = 0.03,
    margin: float = 0.005,
    min_disagreement: float = 0.10,
    confirmatory: list[str] | None = None,
    splits: int = 200,
    validation_fraction: float = 0.4,
    canonical: str = "+++",
    h2b_negligible: int | None = None,
    h2b_signs: int | None = None,
    coverage_required: float | None = None,
    drop_incomplete: bool = False,
    progress: Progress = no_progress,
) -> OrbitReport:
    """Read FILE, run the audit (the bootstrap loop reports to `progress`) and, when the
    table has a check column, the input checks."""
    data = load_orbit_data(
        table_file, base=base, variant=variant, positive=positive, drop_incomplete=drop_incomplete
    )
    options = Options(
        bootstrap=bootstrap,
        seed=seed,
        thresholds=Thresholds(
            material=threshold,
            max_error=max_error,
            margin=margin,
            min_disagreement=min_disagreement,
            h2b_negligible=h2b_negligible,
            h2b_signs=h2b_signs,
        ),
        confirmatory=confirmatory,
        splits=splits,
        validation_fraction=validation_fraction,
        canonical=canonical,
    )
    result = run_analysis(data, options, progress=progress)
    checks = None
    if has_check_columns(table_file):
        checks = read_input_checks(
            table_file, positive=positive, rankers=(base, variant), required=coverage_required
        )
    return OrbitReport(result, checks)


@dataclass(frozen=True)
class OrbitChecksReport:
    """`orbit diagnostics` or `orbit coverage`: one input check of the table."""

    checks: InputChecks
    section: str  # DIAGNOSTICS or COVERAGE

    def to_json(self) -> dict[str, Any] | None:
        section: dict[str, Any] | None = self.checks.to_json()[_SECTION_KEYS[self.section]]
        return section

    def table(self) -> str:
        return checks_text(self.checks, (self.section,))


def orbit_diagnostics(table_file: str | Path, *, positive: str | None = None) -> OrbitChecksReport:
    """Generation invalidity and disagreement (needs the `generated` column)."""
    checks = read_input_checks(table_file, positive=positive, need="generated")
    return OrbitChecksReport(checks, DIAGNOSTICS)


def orbit_coverage(
    table_file: str | Path, *, positive: str | None = None, required: float | None = None
) -> OrbitChecksReport:
    """The evidence-coverage pre-check (needs the `evidence_covered` column)."""
    checks = read_input_checks(
        table_file, positive=positive, required=required, need="evidence_covered"
    )
    return OrbitChecksReport(checks, COVERAGE)
