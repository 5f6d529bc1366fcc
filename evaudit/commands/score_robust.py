"""`evaudit score sensitivity | bound | drop-condition`: robustness of a contrast.

Thin: parse options, call one service of services/score_robust.py and print its report.
Imported at the end of score.py, which registers these commands on the `score` group.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.commands import options as opt
from evaudit.commands import score_options as so
from services.score_inputs import ScoreSource

# ---- score sensitivity --------------------------------------------------------------------


@so.score.command("sensitivity")
@so.common_options(k=True)
@so.qrels_opt
@opt.choice_option(
    "--membership", choices=["gold", "judged"], default="gold",
    help="Query-document memberships: gold documents, or every judged gold/partial document.",
)  # fmt: skip
@opt.count_option("--draws", default=1000, min=0, help="Crossed and one-query-per-document draws.")
@opt.count_option(
    "--remove-top", default=20, min=0,
    help="Remove the queries of this many highest-degree documents.",
)  # fmt: skip
@opt.choice_option(
    "--metric", choices=["nclue", "gold_hit", "gold_ndcg", "ndcg"], default="nclue",
    help="Per-query measure of the gap.",
)  # fmt: skip
def sensitivity_cmd(
    src: ScoreSource, k: int, seed: int, as_json: bool, qrels: Path | None, membership: str,
    draws: int, remove_top: int, metric: str,
) -> None:  # fmt: skip
    """Shared-document sensitivity of VARIANT - BASE (the first --run is BASE, the second VARIANT)."""
    from evaudit.output import progress_bar
    from services.score_robust import score_sensitivity

    rep = score_sensitivity(
        src, qrels=qrels, k=k, seed=seed,
        membership=membership, draws=draws, remove_top=remove_top, metric=metric,
        progress=progress_bar(as_json),
    )  # fmt: skip
    so.emit(rep, as_json)


# ---- score bound --------------------------------------------------------------------------


@so.score.command("bound")
@so.common_options(k=False, seed=False)
@so.qrels_opt
@opt.many_option(
    "--pair", "pairs", metavar="BASE:VARIANT", required=True,
    help="A contrast to bound (repeatable).",
)  # fmt: skip
@click.option("--k", "budgets", default="1,2,3", show_default=True, metavar="K1,K2,...",
              help="Promotion budgets: at most k judged subsets per query become gold.")  # fmt: skip
@opt.count_option(
    "--cutoff", default=10, help="Rank cutoff of n-Clue Score and of the top-k union."
)
def bound_cmd(
    src: ScoreSource, as_json: bool, qrels: Path | None, pairs: tuple[str, ...], budgets: str,
    cutoff: int,
) -> None:  # fmt: skip
    """Exact min and max of variant - base n-Clue Score after promoting judged subsets to gold."""
    from evaudit.output import progress_bar
    from services.score_robust import score_bound

    rep = score_bound(
        src, qrels=qrels, pairs=pairs, budgets=budgets,
        cutoff=cutoff, progress=progress_bar(as_json),
    )  # fmt: skip
    so.emit(rep, as_json)


# ---- score drop-condition -----------------------------------------------------------------


@so.score.command("drop-condition")
@so.common_options(k=True)
@so.path_opt("--qrels", help="Qrels of the full runs; default: the project's.")
@so.path_opt("--evidence", help="Construction evidence; default: the project's.")
@so.condition_run_opt("--drop", "drops", "dropped")
@so.change_bootstrap_opt
def drop_condition_cmd(
    src: ScoreSource, k: int, seed: int, as_json: bool, qrels: Path | None,
    evidence: Path | None, drops: tuple[str, ...], bootstrap: int,
) -> None:  # fmt: skip
    """Gold-NDCG@k change after dropping one condition (grades recomputed from the evidence)."""
    from evaudit.output import progress_bar
    from services.score_robust import score_drop_condition

    rep = score_drop_condition(
        src, qrels=qrels, evidence=evidence, drops=drops, k=k,
        bootstrap=bootstrap, seed=seed, progress=progress_bar(as_json),
    )  # fmt: skip
    so.emit(rep, as_json)
