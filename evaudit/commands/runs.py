"""`evaudit runs`: fuse runs (RRF, CombSUM, CombMNZ), compose per-condition runs, Gold+Support.

Each command parses its options, calls one service (services/runs_ops.py: files read and
written there, rules in scorers.fusion, scorers.compose, scorers.gold_support;
docs/runs.md) and prints its report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

_path = click.Path(path_type=Path, dir_okay=False)


def _print(report: Any, as_json: bool) -> None:
    from evaudit.output import emit_json

    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())


@click.group("runs")
def runs() -> None:
    """Operate on runs: fusion (RRF, CombSUM, CombMNZ), per-condition composition, Gold+Support."""


@runs.command("fuse")
@click.option(
    "--method", type=click.Choice(["rrf", "combsum", "combmnz"]), default="rrf",
    show_default=True,
    help="rrf: sum of 1/(k+rank); combsum/combmnz: sum of min-max scores (x runs listing it).",
)  # fmt: skip
@click.option("--k", type=click.IntRange(min=0), default=60, show_default=True,
              help="RRF constant k (rrf only).")  # fmt: skip
@click.option("--depth", type=click.IntRange(min=1), default=100, show_default=True,
              help="Documents taken from each run per query, and kept in the fused run.")  # fmt: skip
@click.option("--run", "run_specs", multiple=True, required=True, metavar="[NAME=]FILE",
              help="TREC run to fuse (repeatable, at least two; equal weights).")  # fmt: skip
@click.option("--out", type=_path, required=True, help="Fused TREC run to write.")
@click.option("--tag", default=None, help="Tag column of the fused run (default: METHOD_fused).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def fuse_cmd(
    method: str, k: int, depth: int, run_specs: tuple[str, ...], out: Path, tag: str | None,
    as_json: bool,
) -> None:  # fmt: skip
    """Fuse runs with equal weights; ties keep first appearance over the runs in the order given."""
    from services.runs_ops import fuse_runs

    _print(fuse_runs(run_specs, out, method=method, k=k, depth=depth, tag=tag), as_json)


@runs.command("compose")
@click.option("--queries", "queries_file", type=_path, required=True,
              help="queries.jsonl: each query's conditions, in order.")  # fmt: skip
@click.option(
    "--method", type=click.Choice(["min", "product", "harmonic", "injective"]), required=True,
    help="Combine min-max condition scores by min, product or harmonic mean; injective: best "
         "distinct-page assignment of page scores (docno doc_id#page).",
)  # fmt: skip
@click.option("--run", "run_file", type=_path, required=True, metavar="FILE",
              help="Per-condition TREC run: query id QUERY_ID::CONDITION_ID.")  # fmt: skip
@click.option("--depth", type=click.IntRange(min=1), default=100, show_default=True,
              help="Entries taken from each condition list, and documents kept per query.")  # fmt: skip
@click.option("--floor", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Score of a condition whose list lacks the document (or that takes no page).")  # fmt: skip
@click.option("--out", type=_path, required=True, help="Composed TREC run to write.")
@click.option(
    "--tag", default=None, help="Tag column of the composed run (default: compose_METHOD)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def compose_cmd(
    queries_file: Path, method: str, run_file: Path, depth: int, floor: float, out: Path,
    tag: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Compose per-condition runs into one document run (min, product, harmonic, injective)."""
    from services.runs_ops import compose_runs

    report = compose_runs(queries_file, run_file, out, method=method, depth=depth, floor=floor,
                          tag=tag)  # fmt: skip
    _print(report, as_json)


@runs.command("support")
@click.option("--queries", "queries_file", type=_path, required=True, help="queries.jsonl.")
@click.option("--qrels", type=_path, required=True, help="Qrels (TREC or JSONL); gold = grade n.")
@click.option("--evidence", type=_path, required=True,
              help="Stored evidence JSONL {query_id, doc_id, condition_id, pages}.")  # fmt: skip
@click.option("--run", "run_specs", multiple=True, required=True, metavar="[NAME=]FILE",
              help="Page-level TREC run, docno doc_id#page (repeatable).")  # fmt: skip
@click.option("--k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Document cutoff of the retrieved golds.")  # fmt: skip
@click.option("--pages", type=click.IntRange(min=1), default=3, show_default=True,
              help="Highest-scoring distinct pages kept per retrieved gold.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def support_cmd(
    queries_file: Path, qrels: Path, evidence: Path, run_specs: tuple[str, ...], k: int,
    pages: int, as_json: bool,
) -> None:  # fmt: skip
    """Gold+Support@k of page-level runs and page coverage given a retrieved gold (Table S5b)."""
    from services.runs_ops import support_runs

    _print(support_runs(queries_file, qrels, evidence, run_specs, k=k, pages=pages), as_json)


COMMANDS: list[click.Command] = [runs]


def _add_baselines() -> None:
    from evaudit.commands.runs_baseline import bm25_cmd, floor_cmd

    runs.add_command(bm25_cmd)
    runs.add_command(floor_cmd)


_add_baselines()
