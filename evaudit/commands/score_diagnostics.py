"""`evaudit score metric-ranking | difficulty | controls | mask-condition`: the construct
diagnostics of Table S5b of the n-Clue supplement.

Thin: parse options, call one service of services/score_diagnostics.py and print its
report. Imported at the end of score.py, which registers these commands on the `score` group.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.commands import options as opt
from evaudit.commands import score_options as so
from services.score_inputs import ScoreSource

_page_opt = so.page_aggregate_opt(
    "A page-level run's document score: its best page (MaxSim), or the mean of its "
    "3 (ptop3) or K highest page scores."
)
_evidence_opt = so.path_opt(
    "--evidence", help="Construction evidence JSONL; default: the project's."
)


@so.score.command("metric-ranking")
@so.common_options(k=True, seed=False)
@so.qrels_opt
@_page_opt
def metric_ranking_cmd(
    src: ScoreSource, k: int, as_json: bool, qrels: Path | None, page_aggregate: str,
) -> None:  # fmt: skip
    """Spearman and Kendall between the system rankings under graded NDCG and each gold-only
    measure (Gold-NDCG, n-Clue Score, Gold Hit), and the largest rank shift (Table S5b)."""
    from evaudit.output import progress_bar
    from services.score_diagnostics import score_metric_ranking

    rep = score_metric_ranking(
        src,
        qrels=qrels,
        k=k,
        progress=progress_bar(as_json),
        page_aggregate=page_aggregate,
    )
    so.emit(rep, as_json)


@so.score.command("difficulty")
@so.common_options(k=True, seed=False)
@so.qrels_opt
@_evidence_opt
@so.path_opt(
    "--pages",
    help="pages.jsonl giving each document's page count (gold length); default: the project's.",
)  # fmt: skip
@opt.choice_option(
    "--metric", choices=["nclue", "gold_hit"], default="nclue",
    help="Per-query success: gold first (n-Clue) or a gold in the top k (Gold Hit).",
)  # fmt: skip
@opt.count_option(
    "--bins", default=4, help="Quantile bins of |D+| (and of L_min) for the matched AUC."
)
@_page_opt
def difficulty_cmd(
    src: ScoreSource, k: int, as_json: bool, qrels: Path | None, evidence: Path | None,
    pages: Path | None, metric: str, bins: int, page_aggregate: str,
) -> None:  # fmt: skip
    """Logistic regression of per-query success on condition rarity, condition count, gold
    length and judged-pool size; AUC of more vs fewer conditions, density- and length-matched."""
    from evaudit.output import progress_bar
    from services.score_diagnostics import score_difficulty

    rep = score_difficulty(
        src, qrels=qrels, evidence=evidence, pages=pages, k=k,
        metric=metric, bins=bins, progress=progress_bar(as_json), page_aggregate=page_aggregate,
    )  # fmt: skip
    so.emit(rep, as_json)


@so.score.command("controls")
@so.queries_opt
@so.project_opt("Project folder: queries, qrels and evidence come from its campaign store.")
@so.qrels_opt
@_evidence_opt
@opt.count_option("--k", default=10, help="Rank cutoff.")
@click.option(
    "--out-dir", type=click.Path(path_type=Path), default=None,
    help="Write the control runs here as fact_oracle.trec and single_page_floor.trec.",
)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def controls_cmd(
    queries: Path | None, project: Path | None, qrels: Path | None, evidence: Path | None,
    k: int, out_dir: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """The fact-oracle control and the single-page floor built from the construction evidence
    as runs, and their n-Clue Score, Gold Hit, Gold-NDCG and graded NDCG (Tables S1d, S5b)."""
    from services.score_diagnostics import score_controls

    so.emit(score_controls(queries, project, qrels=qrels, evidence=evidence, k=k,
                        out_dir=out_dir), as_json)  # fmt: skip


@so.score.command("mask-condition")
@so.common_options(k=True)
@so.path_opt("--qrels", help="Qrels of the full query; default: the project's.")
@so.condition_run_opt("--mask", "masks", "masked")
@so.change_bootstrap_opt
@_page_opt
def mask_condition_cmd(
    src: ScoreSource, k: int, seed: int, as_json: bool, qrels: Path | None,
    masks: tuple[str, ...], bootstrap: int, page_aggregate: str,
) -> None:  # fmt: skip
    """Graded NDCG, Gold-NDCG, Gold Hit and n-Clue change per masked position, against the
    full query's qrels: is each position load-bearing (Table S5b; beside `drop-condition`)."""
    from evaudit.output import progress_bar
    from services.score_diagnostics import score_mask_condition

    rep = score_mask_condition(
        src, qrels=qrels, masks=masks, k=k,
        bootstrap=bootstrap, seed=seed, progress=progress_bar(as_json),
        page_aggregate=page_aggregate,
    )  # fmt: skip
    so.emit(rep, as_json)
