"""`evaudit score sensitivity | bound | drop-condition`: robustness of a contrast.

Thin: parse options, call one service of services/score_robust.py and print its report.
Imported at the end of score.py, which registers these commands on the `score` group.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.commands.score_options import _common_options, _path, emit, score, source
from vocabulary.errors import InputError

# ---- score sensitivity --------------------------------------------------------------------


@score.command("sensitivity")
@_common_options(k=True)
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@click.option(
    "--membership", type=click.Choice(["gold", "judged"]), default="gold", show_default=True,
    help="Query-document memberships: gold documents, or every judged gold/partial document.",
)  # fmt: skip
@click.option("--draws", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Crossed and one-query-per-document draws.")  # fmt: skip
@click.option("--remove-top", type=click.IntRange(min=0), default=20, show_default=True,
              help="Remove the queries of this many highest-degree documents.")  # fmt: skip
@click.option("--metric", type=click.Choice(["nclue", "gold_hit", "gold_ndcg", "ndcg"]),
              default="nclue", show_default=True, help="Per-query measure of the gap.")  # fmt: skip
def sensitivity_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, membership: str, draws: int, remove_top: int,
    metric: str,
) -> None:  # fmt: skip
    """Shared-document sensitivity of VARIANT - BASE (the first --run is BASE, the second VARIANT)."""
    from evaudit.output import progress_bar
    from services.score_robust import score_sensitivity

    rep = score_sensitivity(
        source(queries, project, runs, ties), qrels=qrels, k=k, seed=seed,
        membership=membership, draws=draws, remove_top=remove_top, metric=metric,
        progress=progress_bar(as_json),
    )  # fmt: skip
    emit(rep, as_json)


# ---- score bound --------------------------------------------------------------------------


def _budgets(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        ks = []
    if not ks or any(x < 0 for x in ks):
        raise InputError(f"--k {text!r} is not a list of promotion budgets", hint="e.g. --k 1,2,3")
    return ks


@score.command("bound")
@_common_options(k=False, seed=False)
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@click.option("--pair", "pairs", multiple=True, metavar="BASE:VARIANT", required=True,
              help="A contrast to bound (repeatable).")  # fmt: skip
@click.option("--k", "budgets", default="1,2,3", show_default=True, metavar="K1,K2,...",
              help="Promotion budgets: at most k judged subsets per query become gold.")  # fmt: skip
@click.option("--cutoff", type=click.IntRange(min=1), default=10, show_default=True,
              help="Rank cutoff of n-Clue Score and of the top-k union.")  # fmt: skip
def bound_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], ties: str,
    as_json: bool, qrels: Path | None, pairs: tuple[str, ...], budgets: str, cutoff: int,
) -> None:  # fmt: skip
    """Exact min and max of variant - base n-Clue Score after promoting judged subsets to gold."""
    from evaudit.output import progress_bar
    from services.score_robust import score_bound

    ks = _budgets(budgets)
    rep = score_bound(
        source(queries, project, runs, ties), qrels=qrels, pairs=pairs, budgets=ks,
        cutoff=cutoff, progress=progress_bar(as_json),
    )  # fmt: skip
    emit(rep, as_json)


# ---- score drop-condition -----------------------------------------------------------------


@score.command("drop-condition")
@_common_options(k=True)
@click.option("--qrels", type=_path, help="Qrels of the full runs; default: the project's.")
@click.option("--evidence", type=_path, help="Construction evidence; default: the project's.")
@click.option(
    "--drop", "drops", multiple=True, required=True, metavar="NAME:POS=FILE",
    help="The run of system NAME (a --run name) with condition POS (1-based) dropped "
    "(repeatable).",
)  # fmt: skip
@click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Exact-family bootstrap replicates of each change.")  # fmt: skip
def drop_condition_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, evidence: Path | None, drops: tuple[str, ...],
    bootstrap: int,
) -> None:  # fmt: skip
    """Gold-NDCG@k change after dropping one condition (grades recomputed from the evidence)."""
    from evaudit.output import progress_bar
    from services.score_robust import score_drop_condition

    rep = score_drop_condition(
        source(queries, project, runs, ties), qrels=qrels, evidence=evidence, drops=drops, k=k,
        bootstrap=bootstrap, seed=seed, progress=progress_bar(as_json),
    )  # fmt: skip
    emit(rep, as_json)
