"""`evaudit trec_eval`: a drop-in for NIST's trec_eval (its flags, measures and output).

Thin: parse trec_eval's flags, call services.trec_eval.trec_eval, print its report.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.commands import options as opt
from services.trec_eval import NOT_OFFERED

_file = click.Path(path_type=Path, dir_okay=False)


@click.command(
    "trec_eval",
    epilog=f"Not offered: {NOT_OFFERED}; -R, -T, -Z and -D. Queries with qrels but no "
    "ranking are skipped without -c (trec_eval 9 and pytrec_eval; trec_eval 10.0 stops "
    "there). The runid is the first run line's tag.",
)  # fmt: skip
@click.option("-q", "--query_eval_wanted", "query_flag", is_flag=True,
              help="Also print every query's values.")  # fmt: skip
@click.option(
    "-m", "--measure", "measures", multiple=True, metavar="MEASURE[.PARAMS]",
    help="Measure or nickname (official, all_trec, set), repeatable: P.5,10 "
    "ndcg.1=3,2=9 utility.2,-1,0,0 iprec_at_recall..1,.5 judged.10 ... Default: official.",
)  # fmt: skip
@click.option("-c", "--complete_rel_info_wanted", "complete", is_flag=True,
              help="Average over every qrels query; one missing from the run scores 0.")  # fmt: skip
@click.option("-l", "--level_for_rel", "level", type=int, default=1, show_default=True,
              help="Lowest grade that is relevant.")  # fmt: skip
@click.option("-M", "--Max_retrieved_per_topic", "max_docs", type=int, default=None,
              help="Evaluate only the top N documents of each query.")  # fmt: skip
@click.option("-J", "--Judged_docs_only", "judged_only", is_flag=True,
              help="Drop unjudged documents before scoring (condensed lists).")  # fmt: skip
@click.option("-N", "--Number_docs_in_coll", "num_docs", type=int, default=0,
              help="Documents in the collection (utility's fourth coefficient).")  # fmt: skip
@click.option("-n", "--nosummary", "no_summary", is_flag=True, help="No 'all' lines.")
@opt.score_precision_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.argument("qrels", type=_file)
@click.argument("run", type=_file)
def trec_eval_cmd(
    query_flag: bool, measures: tuple[str, ...], complete: bool, level: int,
    max_docs: int | None, judged_only: bool, num_docs: int, no_summary: bool,
    score_precision: str, as_json: bool, qrels: Path, run: Path,
) -> None:  # fmt: skip
    """trec_eval [FLAGS] QRELS RUN: trec_eval's measures and three-column output.

    Every measure of `-m all_trec` with trec_eval 10's definitions: scores sorted
    descending as doubles, ties broken by docno descending; '#' comment and blank
    lines skipped; text after a run line's tag ignored. Plus judged_K (ir_measures'
    Judged@k: the judged share of the top K)."""
    from evaudit.output import emit_json
    from services.trec_eval import trec_eval

    rep = trec_eval(
        qrels, run, measures=measures, query_flag=query_flag, complete=complete,
        max_docs=max_docs, level=level, judged_only=judged_only, num_docs=num_docs,
        summary_flag=not no_summary, score_precision=score_precision,
    )  # fmt: skip
    emit_json(rep.to_json()) if as_json else click.echo(rep.table())


COMMANDS = [trec_eval_cmd]
