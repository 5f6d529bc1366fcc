"""`evaudit rop evaluate|validate|schema|targets|from-qrels`: one use case, one report each.

Each service reads its files through `formats.rop_files` (the file edge of the pure
`scorers.rop`) and returns a report whose `to_json()` is what `--json` prints and whose
`table()` is the CLI's text, so the labels and n/a fallbacks live here, not in the CLI.
The study commands (accounting, misses, ...) are in `services.rop_study`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from formats.rop_files import (
    compare_targets_file,
    evaluate_with_envelope,
    rop_from_qrels_files,
    validate_declaration_file,
)
from scorers.rop.declaration import Validation
from scorers.rop.declaration import schema as declaration_schema
from scorers.rop.envelope import EnvelopeReport, envelope_report
from scorers.rop.evaluate import RopResult
from scorers.rop.targets import TargetComparison
from vocabulary.progress import Progress, no_progress
from vocabulary.tables import table

_P = ParamSpec("_P")
_R = TypeVar("_R")
_S = TypeVar("_S")


def file_service(read: Callable[_P, _R], report: Callable[[_R], _S]) -> Callable[_P, _S]:
    """A service that takes what its file reader takes and wraps what it returns in its
    report: the parameters are written once, in the reader (`formats.rop_files`,
    `formats.rop_study_files`)."""

    @functools.wraps(read)
    def service(*args: _P.args, **kwargs: _P.kwargs) -> _S:
        return report(read(*args, **kwargs))

    return service


def list_line(label: str, items: list[str], limit: int = 10) -> str:
    """`label: n [first ten, ... (+rest)]`: an id list that stays one readable line."""
    shown = ", ".join(items[:limit]) + (
        f" ... (+{len(items) - limit})" if len(items) > limit else ""
    )
    return f"{label}: {len(items)}" + (f" [{shown}]" if items else "")


@dataclass(frozen=True)
class EvaluateReport:
    """`rop evaluate`: the evaluator's result as it is (no second pass over the records),
    and whether the declaration's envelope checks applied (`envelope`)."""

    result: RopResult
    envelope: EnvelopeReport = field(default_factory=lambda: envelope_report(None))

    @property
    def exit_code(self) -> int:
        return self.result.exit_code

    def envelope_json(self) -> dict[str, Any]:
        """{"status": valid|invalid|not_applicable, "applied", "note"}."""
        env = self.envelope
        if not env.present:
            note = "the declaration has no envelope: the envelope checks did not apply"
        else:
            differs = [c.check for c in env.checks if c.status != "equal"]
            note = (
                "the envelope equals the instruction sheet on "
                + ", ".join(c.check for c in env.checks)
                if not differs
                else "the envelope differs from the instruction sheet on " + ", ".join(differs)
            )
        return {"status": env.status, "applied": env.present, "note": note}

    def to_json(self) -> dict[str, Any]:
        return {**self.result.to_json(), "envelope": self.envelope_json()}

    def rows(self) -> list[list[Any]]:
        """The verdict histogram: [verdict, records]."""
        return [[k, v] for k, v in self.result.histogram.items()]

    def table(self) -> str:
        r = self.result
        fraction = "n/a" if r.pass_fraction is None else f"{r.pass_fraction:.4f}"
        lines = [
            f"run status: {r.run_status}",
            f"declaration: {r.declaration_id} (mode {r.mode})",
            f"expected records: {r.expected_records}  observed: {r.observed_records}"
            f"  evaluable: {r.evaluable_records}  pass fraction: {fraction}",
            table(self.rows(), ["verdict", "records"]),
        ]
        env = self.envelope_json()
        lines.insert(2, f"envelope checks: {env['status'].replace('_', ' ')} ({env['note']})")
        for label, items in (
            ("missing", r.missing_record_ids),
            ("duplicate", r.duplicate_record_ids),
            ("unexpected", r.unexpected_record_ids),
            ("malformed", r.malformed_record_ids),
        ):
            lines.append(list_line(label, items))
        lines += [f"problem: {problem}" for problem in r.problems]
        return "\n".join(lines)


def evaluate(declaration: str | Path, progress: Progress = no_progress) -> EvaluateReport:
    """`rop evaluate`: `progress` sees the records file's blocks as they are decoded."""
    return EvaluateReport(*evaluate_with_envelope(declaration, progress))


@dataclass(frozen=True)
class ValidateReport:
    """`rop validate`: every schema and cross-file problem of a declaration."""

    check: Validation
    declaration: str

    @property
    def valid(self) -> bool:
        return self.check.valid

    @property
    def exit_code(self) -> int:
        return 0 if self.check.valid else 3

    def to_json(self) -> dict[str, Any]:
        c = self.check
        return {
            "valid": c.valid,
            "declaration_id": c.declaration_id,
            "mode": c.mode,
            "problems": c.problems,
        }

    def table(self) -> str:
        c = self.check
        if c.valid:
            return f"valid: {self.declaration} ({c.declaration_id}, mode {c.mode})"
        lines = [f"problem: {problem}" for problem in c.problems]
        lines.append(f"invalid: {len(c.problems)} problem(s)")
        return "\n".join(lines)


def validate(declaration: str | Path) -> ValidateReport:
    return ValidateReport(validate_declaration_file(declaration), str(declaration))


@dataclass(frozen=True)
class SchemaReport:
    """`rop schema`: the shipped JSON Schema of a v1 declaration (printed indented). The
    schema is a document, not figures, so the report holds it whole."""

    schema: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.schema

    def table(self) -> str:
        return json.dumps(self.schema, indent=2)


def schema() -> SchemaReport:
    return SchemaReport(declaration_schema())


# Columns of the targets table, then the two recalls under their short headers.
_TARGET_COLUMNS = (
    *("stack", "cutoff", "group", "n"),
    *("P1H1", "P1H0", "P0H1", "P0H0", "different_labels"),
)


@dataclass(frozen=True)
class TargetsReport:
    """`rop targets`: joint P/H counts and both recalls per stack and cutoff
    (`scorers.rop.targets.TargetComparison`)."""

    comparison: TargetComparison

    def to_json(self) -> dict[str, Any]:
        return self.comparison.to_json()

    def rows(self) -> list[list[Any]]:
        """One row per stack, cutoff (and group: "all" when ungrouped)."""
        out = []
        for row in self.comparison.table:
            r = row.to_json()
            out.append(
                [r[c] if r[c] is not None else "all" for c in _TARGET_COLUMNS]
                + [r["recall_selected"], r["recall_trace"]]
            )
        return out

    def pair_lines(self) -> list[str]:
        out = []
        for p in self.comparison.pairs:
            line = (
                f"{p.base} -> {p.new} @ {p.cutoff}: change "
                f"{p.change_points:+.1f} points (miss->hit {p.miss_to_hit}, hit->miss "
                f"{p.hit_to_miss})"
            )
            boot = p.bootstrap
            if boot is not None and boot.low is not None and boot.high is not None:
                line += (
                    f", {100 * boot.confidence:g}% cluster bootstrap [{100 * boot.low:.1f}, "
                    f"{100 * boot.high:.1f}] over {boot.clusters} clusters"
                )
            out.append(line)
        return out

    def table(self) -> str:
        c = self.comparison
        head = (
            f"records: {c.records}  usable: {c.usable_records}  distinct: "
            f"{c.distinct_records}  aligned: {c.aligned_records}  scored "
            f"({c.subset}): {c.records_scored}"
        )
        grid = table(self.rows(), [*_TARGET_COLUMNS, "recall_U", "recall_G"])
        return "\n".join([head, grid, *self.pair_lines()])


targets = file_service(compare_targets_file, TargetsReport)


# The id lists of a from-qrels summary, in the order the text prints them.
_FROM_QRELS_LISTS = (
    "queries_without_gold",
    "queries_missing_from_run",
    "run_queries_not_in_queries",
)


@dataclass(frozen=True)
class FromQrelsReport:
    """`rop from-qrels`: what was written and which queries did not fit."""

    queries: int  # the declaration's population
    records: int
    cutoff: int
    queries_without_gold: tuple[str, ...]
    queries_missing_from_run: tuple[str, ...]
    run_queries_not_in_queries: tuple[str, ...]
    files: Mapping[str, str]  # file name -> SHA-256 of what was written
    out_dir: str
    declaration: str  # the declaration.json written

    def to_json(self) -> dict[str, Any]:
        return {
            "queries": self.queries,
            "records": self.records,
            "cutoff": self.cutoff,
            "queries_without_gold": list(self.queries_without_gold),
            "queries_missing_from_run": list(self.queries_missing_from_run),
            "run_queries_not_in_queries": list(self.run_queries_not_in_queries),
            "files": dict(self.files),
            "out_dir": self.out_dir,
            "declaration": self.declaration,
        }

    def table(self) -> str:
        lines = [f"wrote {self.declaration} ({self.queries} queries, k={self.cutoff})"]
        lines += [
            list_line(label.replace("_", " "), list(getattr(self, label)))
            for label in _FROM_QRELS_LISTS
        ]
        return "\n".join(lines)


def from_qrels(
    queries: str | Path, qrels: str | Path, run: str | Path, *, cutoff: int, out_dir: str | Path
) -> FromQrelsReport:
    """Write a hard-mode declaration bundle to `out_dir` (all or nothing)."""
    summary = rop_from_qrels_files(queries, qrels, run, cutoff=cutoff, out_dir=out_dir)
    return FromQrelsReport(
        queries=summary["queries"],
        records=summary["records"],
        cutoff=summary["cutoff"],
        queries_without_gold=tuple(summary["queries_without_gold"]),
        queries_missing_from_run=tuple(summary["queries_missing_from_run"]),
        run_queries_not_in_queries=tuple(summary["run_queries_not_in_queries"]),
        files=summary["files"],
        out_dir=summary["out_dir"],
        declaration=summary["declaration"],
    )
