"""The `evaudit score` group and what its commands share: the source of queries and runs,
the report printer and the option sets (each defined once here; `score.py`,
`score_robust.py`, `score_trec.py` and `score_diagnostics.py` add their commands to the
group, and `evaudit/cli.py` imports all four)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from services.score_inputs import ScoreReport, ScoreSource
from vocabulary.runspec import parse_run_spec


def source(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], ties: str
) -> ScoreSource:
    """The queries, the --run specs (NAME=FILE or FILE) and the tie rule of a command."""
    return ScoreSource(queries, project, tuple(parse_run_spec(r) for r in runs), ties)


def emit(report: ScoreReport, as_json: bool) -> None:
    from evaudit.output import emit_json

    emit_json(report.to_json()) if as_json else click.echo(report.table())


# ---- options shared by the commands -------------------------------------------------------

_path = click.Path(path_type=Path, dir_okay=False)


def _common_options(k: bool = True, seed: bool = True) -> Any:
    """The options every score command shares (`score bound` uses --k for budgets, no seed)."""
    opts = [
        click.option("--queries", type=_path, help="queries.jsonl (n = number of conditions)."),
        click.option(
            "--project", type=click.Path(path_type=Path, file_okay=False),
            help="Project folder: queries and qrels come from its campaign store.",
        ),
        click.option(
            "--run", "runs", multiple=True, required=True, metavar="[NAME=]FILE",
            help="TREC run file (repeatable); named by its tag unless NAME= is given.",
        ),
        *([click.option("--k", type=click.IntRange(min=1), default=10, show_default=True,
                        help="Rank cutoff.")] if k else []),
        click.option(
            "--ties", type=click.Choice(["file", "trec_eval"]), default="file", show_default=True,
            help="Equal scores keep run-file order, or trec_eval's doc id descending order.",
        ),
        *([click.option("--seed", type=int, default=11, show_default=True,
                        help="Seed of the bootstrap and randomization draws.")] if seed else []),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    ]  # fmt: skip

    def apply(f: Any) -> Any:
        for opt in reversed(opts):
            f = opt(f)
        return f

    return apply


_common = _common_options()


_bootstrap_opt = click.option(
    "--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
    help="Exact-family bootstrap replicates (0 = no intervals).",
)  # fmt: skip
_pair_opt = click.option(
    "--pair", "pairs", multiple=True, metavar="BASE:VARIANT",
    help="A declared contrast between two run names (repeatable).",
)  # fmt: skip
_draws_opt = click.option(
    "--draws", type=click.IntRange(min=1), default=10_000, show_default=True,
    help="Sign-flip randomization draws per test.",
)  # fmt: skip

_by_opt = click.option(
    "--by", "by", multiple=True, metavar="n|release|source|lmin:C1,C2|dplus:C1,C2",
    help="Slice by a task factor (repeatable; cut points for lmin and dplus): n-Clue / Gold Hit "
    "per cell, and paired effects per cell in compare.",
)  # fmt: skip
_pages_opt = click.option(
    "--pages", type=_path,
    help="pages.jsonl giving each document's page count for --by lmin (default: the project's).",
)  # fmt: skip


@click.group("score")
def score() -> None:
    """Score runs: n-Clue Score, Gold Hit, Gold-NDCG, NDCG; contrasts; qrel-revision impact;
    robustness (selection-adjusted blocks, slices, shared-document sensitivity, qrel bounds,
    condition drops); construct diagnostics (metric ranking, difficulty, controls, masking)."""
