"""`evaudit score metric-ranking | difficulty | controls | mask-condition`: the construct
diagnostics of Table S5b of the n-Clue supplement.

Thin: parse options, call one service of services/score_diagnostics.py and print its
report. Imported at the end of score.py, which registers these commands on the `score` group.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.commands.score_options import _common_options, _path, emit, score, source

_page_opt = click.option(
    "--page-aggregate", default="max", show_default=True, metavar="max|top3|topk:K",
    help="A page-level run's document score: its best page (MaxSim), or the mean of its "
    "3 (ptop3) or K highest page scores.",
)  # fmt: skip
_evidence_opt = click.option(
    "--evidence", type=_path, help="Construction evidence JSONL; default: the project's."
)


@score.command("metric-ranking")
@_common_options(k=True, seed=False)
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@_page_opt
def metric_ranking_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    as_json: bool, qrels: Path | None, page_aggregate: str,
) -> None:  # fmt: skip
    """Spearman and Kendall between the system rankings under graded NDCG and each gold-only
    measure (Gold-NDCG, n-Clue Score, Gold Hit), and the largest rank shift (Table S5b)."""
    from evaudit.output import progress_bar
    from services.score_diagnostics import score_metric_ranking

    rep = score_metric_ranking(
        source(queries, project, runs, ties),
        qrels=qrels,
        k=k,
        progress=progress_bar(as_json),
        page_aggregate=page_aggregate,
    )
    emit(rep, as_json)


@score.command("difficulty")
@_common_options(k=True, seed=False)
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@_evidence_opt
@click.option(
    "--pages", type=_path,
    help="pages.jsonl giving each document's page count (gold length); default: the project's.",
)  # fmt: skip
@click.option(
    "--metric", type=click.Choice(["nclue", "gold_hit"]), default="nclue", show_default=True,
    help="Per-query success: gold first (n-Clue) or a gold in the top k (Gold Hit).",
)  # fmt: skip
@click.option("--bins", type=click.IntRange(min=1), default=4, show_default=True,
              help="Quantile bins of |D+| (and of L_min) for the matched AUC.")  # fmt: skip
@_page_opt
def difficulty_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    as_json: bool, qrels: Path | None, evidence: Path | None, pages: Path | None, metric: str,
    bins: int, page_aggregate: str,
) -> None:  # fmt: skip
    """Logistic regression of per-query success on condition rarity, condition count, gold
    length and judged-pool size; AUC of more vs fewer conditions, density- and length-matched."""
    from evaudit.output import progress_bar
    from services.score_diagnostics import score_difficulty

    rep = score_difficulty(
        source(queries, project, runs, ties), qrels=qrels, evidence=evidence, pages=pages, k=k,
        metric=metric, bins=bins, progress=progress_bar(as_json), page_aggregate=page_aggregate,
    )  # fmt: skip
    emit(rep, as_json)


@score.command("controls")
@click.option("--queries", type=_path, help="queries.jsonl (n = number of conditions).")
@click.option(
    "--project", type=click.Path(path_type=Path, file_okay=False),
    help="Project folder: queries, qrels and evidence come from its campaign store.",
)  # fmt: skip
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@_evidence_opt
@click.option("--k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Rank cutoff.")  # fmt: skip
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

    emit(score_controls(queries, project, qrels=qrels, evidence=evidence, k=k,
                        out_dir=out_dir), as_json)  # fmt: skip


@score.command("mask-condition")
@_common_options(k=True)
@click.option("--qrels", type=_path, help="Qrels of the full query; default: the project's.")
@click.option(
    "--mask", "masks", multiple=True, required=True, metavar="NAME:POS=FILE",
    help="The run of system NAME (a --run name) with condition POS (1-based) masked "
    "(repeatable).",
)  # fmt: skip
@click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Exact-family bootstrap replicates of each change.")  # fmt: skip
@_page_opt
def mask_condition_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, masks: tuple[str, ...], bootstrap: int,
    page_aggregate: str,
) -> None:  # fmt: skip
    """Graded NDCG, Gold-NDCG, Gold Hit and n-Clue change per masked position, against the
    full query's qrels: is each position load-bearing (Table S5b; beside `drop-condition`)."""
    from evaudit.output import progress_bar
    from services.score_diagnostics import score_mask_condition

    rep = score_mask_condition(
        source(queries, project, runs, ties), qrels=qrels, masks=masks, k=k,
        bootstrap=bootstrap, seed=seed, progress=progress_bar(as_json),
        page_aggregate=page_aggregate,
    )  # fmt: skip
    emit(rep, as_json)
