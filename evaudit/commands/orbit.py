"""`evaudit orbit`: the finite-orbit interface audit of "Which Reranking Conclusions Survive
the Answer Interface?". Thin CLI: parse the options, call `services.orbit`, print its report.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from evaudit.commands import options as opt


@click.group("orbit")
def orbit() -> None:
    """Finite-orbit audit: does a retrieval conclusion survive the 2^3 answer interfaces?"""


def _split_environments(values: tuple[str, ...]) -> list[str] | None:
    names = [v.strip() for raw in values for v in raw.split(",") if v.strip()]
    return names or None


_table_argument = click.argument("table_file", metavar="FILE", type=click.Path(dir_okay=False))


def _positive_option(help: str) -> opt.Decorator:
    return click.option("--positive", default=None, metavar="LABEL", help=help)


@orbit.command("analyze")
@_table_argument
@click.option("--base", required=True, help="Reference ranker (e.g. BM25); ties go to it.")
@click.option("--variant", required=True, help="Compared ranker (e.g. BGE).")
@_positive_option("Label of column y that means the positive state, when y is not +/-.")
@opt.shown_option("--bootstrap", default=10_000, help="Bootstrap replicates.")
@opt.shown_option("--seed", default=0, help="Seed for resamples and splits.")
@opt.shown_option(
    "--threshold",
    default=0.015,
    help="Materiality threshold for the R norms (balanced-accuracy scale).",
)
@opt.shown_option(
    "--max-error", default=0.03, help="Bound on the held-out first-order maximum error (H2b)."
)
@opt.shown_option(
    "--margin",
    default=0.005,
    help="Delta V interval must lie outside [-margin, margin] to be operational.",
)
@opt.shown_option(
    "--min-disagreement",
    default=0.10,
    help="Selector disagreement rate needed for an operational result.",
)
@opt.many_option(
    "--confirmatory",
    metavar="DATASET:READER,...",
    help="Declared confirmatory environments (default: all). Others are descriptive.",
)
@opt.shown_option("--splits", default=200, help="Validation/test splits.")
@opt.shown_option(
    "--validation-fraction",
    default=0.4,
    help="Share of each state's claims in the validation part of a split.",
)
@opt.shown_option("--canonical", default="+++", help="Interface of the canonical selector.")
@opt.count_option(
    "--h2b-negligible",
    default=None,
    min=0,
    help="Environments with negligible R_high that H2b needs (default: ceil(5E/6) of E).",
)
@opt.count_option(
    "--h2b-signs",
    default=None,
    min=0,
    help="Environments with replicated first-order signs H2b needs (default: ceil(4E/6)).",
)
@opt.share_option(
    "--coverage-required",
    "Required evidence coverage share for the pre-check (column evidence_covered).",
)
@click.option(
    "--drop-incomplete",
    is_flag=True,
    help="Drop (and count) claims missing a ranker or interface instead of failing.",
)
@opt.choice_option(
    "--format",
    "fmt",
    choices=["text", "json"],
    default="text",
    help="Readable report of the four questions, or JSON.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object (same as --format json)."
)
def analyze(
    table_file: str, confirmatory: tuple[str, ...], fmt: str, as_json: bool, **settings: Any
) -> None:
    """Effects g and h per interface, Walsh coefficients, R norms with simultaneous bounds,
    decisions (H1/H2a/H2b, sign classes) and the selector comparison for FILE (CSV or
    Parquet, one row per dataset, reader, claim, ranker and interface)."""
    from evaudit.output import progress_bar
    from services.orbit import orbit_analyze

    # `settings` are the audit's options by the names orbit_analyze takes them (click
    # checked their types); only the environments are parsed here.
    as_json = as_json or fmt == "json"
    report = orbit_analyze(
        table_file,
        confirmatory=_split_environments(confirmatory),
        progress=progress_bar(quiet=as_json),
        **settings,
    )
    opt.print_report(report, as_json, nl=False)


@orbit.command("diagnostics")
@_table_argument
@_positive_option("Label of y meaning +.")
@opt.json_option
def diagnostics_cmd(table_file: str, positive: str | None, as_json: bool) -> None:
    """Generation invalidity and generation-to-score disagreement per environment and ranker,
    from the table's `generated` column (the label greedy generation produced)."""
    from services.orbit import orbit_diagnostics

    opt.print_report(orbit_diagnostics(table_file, positive=positive), as_json, nl=False)


@orbit.command("coverage")
@_table_argument
@_positive_option("Label of y meaning +.")
@opt.share_option(
    "--required",
    "Required complete-evidence coverage share (reports whether each dataset meets it).",
)
@opt.json_option
def coverage_cmd(
    table_file: str, positive: str | None, required: float | None, as_json: bool
) -> None:
    """Evidence-coverage pre-check: how often the base ranker's candidate depth holds the
    complete gold evidence, per dataset and semantic state, from `evidence_covered` (0/1)."""
    from services.orbit import orbit_coverage

    report = orbit_coverage(table_file, positive=positive, required=required)
    opt.print_report(report, as_json, nl=False)


def _numbers(kind: type, text: str, name: str) -> list:  # type: ignore[type-arg]
    try:
        values = [kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a comma-separated list", param_hint=name
        ) from None
    if not values:
        raise click.BadParameter("give at least one value", param_hint=name)
    return values


@orbit.command("calibrate")
@click.argument("project", type=click.Path(path_type=Path, file_okay=False))
@click.option("--depth", "depths", default="50,100,200,500,1000", show_default=True,
              help="Candidate depths K of the grid (comma-separated).")  # fmt: skip
@click.option("--k1", "k1s", default="0.6,0.8,0.9,1.2", show_default=True,
              help="BM25 k1 values of the grid (comma-separated).")  # fmt: skip
@click.option("--b", "bs", default="0.2,0.4,0.75", show_default=True,
              help="BM25 b values of the grid (comma-separated).")  # fmt: skip
@click.option("--target", type=click.FloatRange(0, 1), required=True,
              help="Required complete-evidence coverage share (the paper fixes it before "
              "evaluation and does not print it; choose yours the same way).")  # fmt: skip
@click.option("--relevant-from", type=int, default=1, show_default=True,
              help="A query's evidence: its documents of at least this grade.")  # fmt: skip
@click.option("--form", type=click.Choice(["raw", "clean_v2", "natural"]), default="raw",
              show_default=True, help="Query form.")  # fmt: skip
@click.option("--method", type=click.Choice(["lucene", "robertson", "atire", "bm25l", "bm25+"]),
              default="lucene", show_default=True, help="bm25s variant (docs/runs.md).")  # fmt: skip
@opt.json_option
def calibrate_cmd(
    project: Path, depths: str, k1s: str, bs: str, target: float, relevant_from: int,
    form: str, method: str, as_json: bool,
) -> None:  # fmt: skip
    """BM25 calibration grid (K x k1 x b) against a complete-evidence coverage target.

    As the finite-orbit paper calibrates its reference BM25 before any downstream
    evaluation: a query is covered at K when every document of its evidence is in its
    top K; the report lists every cell's coverage and the shallowest K meeting the
    target (then the highest coverage, then grid order). Exit 1 when no cell meets it.
    """
    from evaudit.output import progress_bar
    from services.orbit_calibrate import calibrate

    report = calibrate(
        project, depths=_numbers(int, depths, "--depth"),
        k1s=_numbers(float, k1s, "--k1"), bs=_numbers(float, bs, "--b"), target=target,
        form=form, method=method, relevant_from=relevant_from,
        progress=progress_bar(as_json),
    )  # fmt: skip
    opt.print_report(report, as_json)
    if report.chosen is None:
        sys.exit(1)


COMMANDS: list[click.Command] = [orbit]
