"""`evaudit score trec`: trec_eval's measures (its names, parameters and values) on
graded qrels without conditions.

Thin: parse options, call services.score_trec.score_trec and print its report. Imported
at the end of score.py, which registers the command on the `score` group.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.commands import options as opt
from evaudit.commands.score_options import emit, path_opt, project_opt, score


@score.command("trec")
@path_opt("--qrels", help="Graded qrels: BEIR qrels/<split>.tsv, TREC or JSONL.")
@project_opt("Project folder: its store's qrels (a BEIR/TREC project's original grades).")
@path_opt(
    "--queries",
    help="Evaluate only these queries (BEIR queries.jsonl, TREC topics, queries.jsonl).",
)
@opt.many_option(
    "--run", "runs", required=True, metavar="[NAME=]FILE",
    help="TREC run file (repeatable); named by its tag unless NAME= is given.",
)  # fmt: skip
@click.option(
    "--measure", "measures", multiple=True, default=("ndcg_cut_10,P_10,map,recall_100",),
    show_default=True, metavar="M1,M2,...",
    help="Any measure of `evaudit trec_eval -m all_trec` by its printed name (P_10, "
    "ndcg_cut_10, iprec_at_recall_0.10) or trec_eval's -m form (P.5,10, ndcg.1=3,2=9, "
    "utility.2,-1,0,0), a nickname (official, all_trec, set), or judged_K (Judged@k). "
    "JSON keys are trec_eval's printed names.",
)  # fmt: skip
@opt.choice_option(
    "--ties", choices=["trec_eval", "file"], default="trec_eval",
    help="Equal scores in trec_eval's doc id descending order, or in run-file order.",
)  # fmt: skip
@opt.score_precision_option
@click.option(
    "-c", "--complete-queries", "complete", is_flag=True,
    help="trec_eval's -c: average over every qrels query; one missing from a run scores 0.",
)  # fmt: skip
@click.option(
    "--relevance-level", "level", type=int, default=1, show_default=True,
    help="trec_eval's -l: the lowest grade that is relevant.",
)  # fmt: skip
@click.option(
    "--judged-only", is_flag=True,
    help="trec_eval's -J: drop unjudged documents before scoring (ranks close up).",
)  # fmt: skip
@click.option(
    "--max-docs", type=int, default=None, metavar="N",
    help="trec_eval's -M: evaluate only the top N documents of each query.",
)  # fmt: skip
@click.option("--per-query/--no-per-query", default=False, help="Per-query values in --json.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def trec_cmd(
    qrels: Path | None, project: Path | None, queries: Path | None, runs: tuple[str, ...],
    measures: tuple[str, ...], ties: str, score_precision: str, complete: bool, level: int,
    judged_only: bool, max_docs: int | None, per_query: bool, as_json: bool,
) -> None:  # fmt: skip
    """trec_eval's measures on graded qrels without conditions (trec_eval 10's values).

    A query counts when it has qrels and is in the run (trec_eval without -c); the
    "all" values are trec_eval's: counts summed, gm_* geometric, the rest means over
    those queries. Grades >= 1 (--relevance-level) are relevant; ndcg gains are the grades. trec_eval's -c,
    -l, -J and -M are --complete-queries, --relevance-level, --judged-only and
    --max-docs, as `evaudit trec_eval` applies them; for its text output use that."""
    from services.score_trec import TrecFlags, score_trec

    flags = TrecFlags(complete=complete, level=level, judged_only=judged_only, max_docs=max_docs)
    rep = score_trec(
        qrels=qrels, project=project, queries=queries, runs=runs,
        measures=measures, ties=ties, per_query=per_query, score_precision=score_precision,
        flags=flags,
    )  # fmt: skip
    emit(rep, as_json)
