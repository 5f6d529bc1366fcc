"""The `evaudit score` group and what its commands share: the source of queries and runs,
the report printer and the option sets (each defined once here; `score.py`,
`score_robust.py`, `score_trec.py` and `score_diagnostics.py` add their commands to the
group, and `evaudit/cli.py` imports all four)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import click

from evaudit.commands import options as opt
from services.score_inputs import ScoreSource


def source(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], ties: str
) -> ScoreSource:
    """The queries, the --run specs (NAME=FILE or FILE) and the tie rule of a command."""
    return ScoreSource.from_options(queries, project, runs, ties)


emit = opt.print_report


# ---- options shared by the commands -------------------------------------------------------

_path = click.Path(path_type=Path, dir_okay=False)

queries_opt = click.option(
    "--queries", type=_path, help="queries.jsonl (n = number of conditions)."
)


def project_opt(help: str) -> opt.Decorator:
    """--project: the folder whose campaign store gives what the other options leave out."""
    return click.option("--project", type=click.Path(path_type=Path, file_okay=False), help=help)


def path_opt(*decls: str, help: str, metavar: str | None = None) -> opt.Decorator:
    """An option naming one file."""
    return click.option(*decls, type=_path, metavar=metavar, help=help)


qrels_opt = path_opt("--qrels", help="Qrels (TREC or JSONL); default: the project's.")


def condition_run_opt(name: str, dest: str, done: str) -> opt.Decorator:
    """--mask / --drop NAME:POS=FILE: a system's run with one condition masked or dropped."""
    return opt.many_option(
        name, dest, required=True, metavar="NAME:POS=FILE",
        help=f"The run of system NAME (a --run name) with condition POS (1-based) {done} "
        "(repeatable).",
    )  # fmt: skip


def plot_opt(help: str) -> opt.Decorator:
    """--plot FILE.png|FILE.svg: the figure a command can draw."""
    return path_opt("--plot", metavar="FILE.png|FILE.svg", help=help)


def page_aggregate_opt(help: str) -> opt.Decorator:
    """--page-aggregate: how a page-level run's pages make its document's score."""
    return click.option(
        "--page-aggregate", default="max", show_default=True, metavar="max|top3|topk:K", help=help
    )


def common_options(k: bool = True, seed: bool = True) -> Any:
    """The options every score command shares (`score bound` uses --k for budgets, no seed).

    The command gets them as one `src: ScoreSource` (queries, project, runs, ties) and,
    as given, `k`, `seed` and `as_json`."""
    options = opt.combine(
        queries_opt,
        project_opt("Project folder: queries and qrels come from its campaign store."),
        opt.many_option(
            "--run", "runs", required=True, metavar="[NAME=]FILE",
            help="TREC run file (repeatable); named by its tag unless NAME= is given.",
        ),
        *([opt.count_option("--k", default=10, help="Rank cutoff.")] if k else []),
        opt.choice_option(
            "--ties", choices=["file", "trec_eval"], default="file",
            help="Equal scores keep run-file order, or trec_eval's doc id descending order.",
        ),
        *([click.option("--seed", type=int, default=11, show_default=True,
                        help="Seed of the bootstrap and randomization draws.")] if seed else []),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    )  # fmt: skip

    def apply(f: Any) -> Any:
        @functools.wraps(f)
        def command(
            queries: Path | None, project: Path | None, runs: tuple[str, ...], ties: str,
            **rest: Any,
        ) -> Any:  # fmt: skip
            return f(source(queries, project, runs, ties), **rest)

        return options(command)

    return apply


common = common_options()


bootstrap_opt = opt.count_option(
    "--bootstrap", default=1000, min=0, help="Exact-family bootstrap replicates (0 = no intervals)."
)
change_bootstrap_opt = opt.count_option(
    "--bootstrap", default=1000, min=0, help="Exact-family bootstrap replicates of each change."
)
pair_opt = opt.many_option(
    "--pair", "pairs", metavar="BASE:VARIANT",
    help="A declared contrast between two run names (repeatable).",
)  # fmt: skip
draws_opt = opt.count_option(
    "--draws", default=10_000, help="Sign-flip randomization draws per test."
)

by_opt = opt.many_option(
    "--by", "by", metavar="n|release|source|lmin:C1,C2|dplus:C1,C2",
    help="Slice by a task factor (repeatable; cut points for lmin and dplus): n-Clue / Gold Hit "
    "per cell, and paired effects per cell in compare.",
)  # fmt: skip
pages_opt = path_opt(
    "--pages",
    help="pages.jsonl giving each document's page count for --by lmin (default: the project's).",
)


@click.group("score")
def score() -> None:
    """Score runs: n-Clue Score, Gold Hit, Gold-NDCG, NDCG; contrasts; qrel-revision impact;
    robustness (selection-adjusted blocks, slices, shared-document sensitivity, qrel bounds,
    condition drops); construct diagnostics (metric ranking, difficulty, controls, masking)."""
