"""`evaudit orbit`: the finite-orbit interface audit of "Which Reranking Conclusions Survive
the Answer Interface?". Thin CLI: parse the options, call `services.orbit`, print its report.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group("orbit")
def orbit() -> None:
    """Finite-orbit audit: does a retrieval conclusion survive the 2^3 answer interfaces?"""


def _split_environments(values: tuple[str, ...]) -> list[str] | None:
    names = [v.strip() for raw in values for v in raw.split(",") if v.strip()]
    return names or None


@orbit.command("analyze")
@click.argument("table_file", metavar="FILE", type=click.Path(dir_okay=False))
@click.option("--base", required=True, help="Reference ranker (e.g. BM25); ties go to it.")
@click.option("--variant", required=True, help="Compared ranker (e.g. BGE).")
@click.option(
    "--positive",
    default=None,
    metavar="LABEL",
    help="Label of column y that means the positive state, when y is not +/-.",
)
@click.option("--bootstrap", default=10_000, show_default=True, help="Bootstrap replicates.")
@click.option("--seed", default=0, show_default=True, help="Seed for resamples and splits.")
@click.option(
    "--threshold",
    default=0.015,
    show_default=True,
    help="Materiality threshold for the R norms (balanced-accuracy scale).",
)
@click.option(
    "--max-error",
    default=0.03,
    show_default=True,
    help="Bound on the held-out first-order maximum error (H2b).",
)
@click.option(
    "--margin",
    default=0.005,
    show_default=True,
    help="Delta V interval must lie outside [-margin, margin] to be operational.",
)
@click.option(
    "--min-disagreement",
    default=0.10,
    show_default=True,
    help="Selector disagreement rate needed for an operational result.",
)
@click.option(
    "--confirmatory",
    multiple=True,
    metavar="DATASET:READER,...",
    help="Declared confirmatory environments (default: all). Others are descriptive.",
)
@click.option("--splits", default=200, show_default=True, help="Validation/test splits.")
@click.option(
    "--validation-fraction",
    default=0.4,
    show_default=True,
    help="Share of each state's claims in the validation part of a split.",
)
@click.option(
    "--canonical", default="+++", show_default=True, help="Interface of the canonical selector."
)
@click.option(
    "--h2b-negligible",
    type=click.IntRange(min=0),
    default=None,
    help="Environments with negligible R_high that H2b needs (default: ceil(5E/6) of E).",
)
@click.option(
    "--h2b-signs",
    type=click.IntRange(min=0),
    default=None,
    help="Environments with replicated first-order signs H2b needs (default: ceil(4E/6)).",
)
@click.option(
    "--coverage-required",
    type=click.FloatRange(0, 1),
    default=None,
    help="Required evidence coverage share for the pre-check (column evidence_covered).",
)
@click.option(
    "--drop-incomplete",
    is_flag=True,
    help="Drop (and count) claims missing a ranker or interface instead of failing.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Readable report of the four questions, or JSON.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object (same as --format json)."
)
def analyze(
    table_file: str,
    base: str,
    variant: str,
    positive: str | None,
    bootstrap: int,
    seed: int,
    threshold: float,
    max_error: float,
    margin: float,
    min_disagreement: float,
    confirmatory: tuple[str, ...],
    splits: int,
    validation_fraction: float,
    canonical: str,
    h2b_negligible: int | None,
    h2b_signs: int | None,
    coverage_required: float | None,
    drop_incomplete: bool,
    fmt: str,
    as_json: bool,
) -> None:
    """Effects g and h per interface, Walsh coefficients, R norms with simultaneous bounds,
    decisions (H1/H2a/H2b, sign classes) and the selector comparison for FILE (CSV or
    Parquet, one row per dataset, reader, claim, ranker and interface)."""
    from evaudit.output import emit_json, progress_bar
    from services.orbit import orbit_analyze

    as_json = as_json or fmt == "json"
    report = orbit_analyze(
        table_file,
        base=base,
        variant=variant,
        positive=positive,
        bootstrap=bootstrap,
        seed=seed,
        threshold=threshold,
        max_error=max_error,
        margin=margin,
        min_disagreement=min_disagreement,
        confirmatory=_split_environments(confirmatory),
        splits=splits,
        validation_fraction=validation_fraction,
        canonical=canonical,
        h2b_negligible=h2b_negligible,
        h2b_signs=h2b_signs,
        coverage_required=coverage_required,
        drop_incomplete=drop_incomplete,
        progress=progress_bar(quiet=as_json),
    )
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table(), nl=False)


@orbit.command("diagnostics")
@click.argument("table_file", metavar="FILE", type=click.Path(dir_okay=False))
@click.option("--positive", default=None, metavar="LABEL", help="Label of y meaning +.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def diagnostics_cmd(table_file: str, positive: str | None, as_json: bool) -> None:
    """Generation invalidity and generation-to-score disagreement per environment and ranker,
    from the table's `generated` column (the label greedy generation produced)."""
    from evaudit.output import emit_json
    from services.orbit import orbit_diagnostics

    report = orbit_diagnostics(table_file, positive=positive)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table(), nl=False)


@orbit.command("coverage")
@click.argument("table_file", metavar="FILE", type=click.Path(dir_okay=False))
@click.option("--positive", default=None, metavar="LABEL", help="Label of y meaning +.")
@click.option(
    "--required",
    type=click.FloatRange(0, 1),
    default=None,
    help="Required complete-evidence coverage share (reports whether each dataset meets it).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def coverage_cmd(
    table_file: str, positive: str | None, required: float | None, as_json: bool
) -> None:
    """Evidence-coverage pre-check: how often the base ranker's candidate depth holds the
    complete gold evidence, per dataset and semantic state, from `evidence_covered` (0/1)."""
    from evaudit.output import emit_json
    from services.orbit import orbit_coverage

    report = orbit_coverage(table_file, positive=positive, required=required)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table(), nl=False)


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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
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
    from evaudit.output import emit_json, progress_bar
    from services.orbit_calibrate import calibrate

    report = calibrate(
        project, depths=_numbers(int, depths, "--depth"),
        k1s=_numbers(float, k1s, "--k1"), bs=_numbers(float, bs, "--b"), target=target,
        form=form, method=method, relevant_from=relevant_from,
        progress=progress_bar(as_json),
    )  # fmt: skip
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())
    if report.chosen is None:
        sys.exit(1)


COMMANDS: list[click.Command] = [orbit]
