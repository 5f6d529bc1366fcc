"""`evaudit score trec`: trec_eval's classic measures (pytrec_eval's names and values) on
graded qrels without conditions; its helpers also serve `score impact --trec-measures`.

Thin: read the qrels (BEIR qrels.tsv, TREC, JSONL, or the project's) and runs at this
edge, call `scorers.trec_measures`, print its typed report. Imported at the end of
score.py, which registers the command on the `score` group.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from evaudit.commands.options import claim_run_name, parse_run_spec
from evaudit.commands.score import _path, _project_qrels, _store_path, score
from vocabulary.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from scorers.trec_measures import TrecImpact


def _trec_inputs(qrels: Path | None, project: Path | None) -> tuple[pd.DataFrame, str]:
    if qrels is not None and project is not None:
        raise InputError("give either --qrels or --project, not both")
    if qrels is not None:
        from packet_builder.any_qrels import read_any_qrels

        return read_any_qrels(qrels), str(qrels)
    if project is not None:
        return project_graded(project), str(Path(project) / "audit.duckdb")
    raise InputError("no qrels given", hint="pass --qrels FILE or --project DIR")


def project_graded(project: Path) -> pd.DataFrame:
    """A classic (BEIR/TREC) project's original grades (graded_qrels); else its qrels."""
    import pandas as pd

    from packet_builder.classic import stored_scale

    scale = stored_scale(_store_path(project))
    if scale is None:
        return _project_qrels(project)
    rows = sorted((q, d, g) for (q, d), g in scale[1].items())
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"])


def _query_filter(queries: Path | None) -> set[str] | None:
    """Ids of a BEIR queries.jsonl, TREC topics or n-Clue queries.jsonl (None = no filter)."""
    if queries is None:
        return None
    from packet_builder.any_qrels import read_query_ids

    return read_query_ids(queries)


def trec_scores(
    frame: pd.DataFrame, specs: tuple[str, ...], measures: Any, ties: str, wanted: set[str] | None
) -> dict[str, Any]:
    from packet_builder.readers import read_run
    from scorers.trec_measures import score_run

    qrows = list(zip(frame["query_id"], frame["doc_id"], frame["grade"], strict=True))
    out: dict[str, Any] = {}
    seen: dict[str, Path] = {}
    for name, path in (parse_run_spec(s) for s in specs):
        df = read_run(path)
        tag = name or str(df["tag"].iloc[0])
        claim_run_name(seen, tag, path)
        rrows = zip(df["query_id"], df["doc_id"], df["score"], strict=True)
        out[tag] = score_run(qrows, rrows, measures, ties=ties, queries=wanted)  # type: ignore[arg-type]
    return out


def trec_impact(
    before: Path, after: Path, specs: tuple[str, ...], measures: Any, ties: str
) -> TrecImpact:
    """Measures under the qrels before and after a revision (any of the qrels forms)."""
    from packet_builder.any_qrels import read_any_qrels
    from scorers.trec_measures import TrecImpact

    tb = trec_scores(read_any_qrels(before), specs, measures, ties, None)
    ta = trec_scores(read_any_qrels(after), specs, measures, ties, None)
    return TrecImpact(ties=ties, measures=[m.name for m in measures], before=tb, after=ta)


def measures_of(spec: tuple[str, ...]) -> Any:
    from scorers.trec_measures import parse_measures

    try:
        return parse_measures(spec)
    except ValueError as exc:
        raise InputError(str(exc), hint="e.g. --measure ndcg_cut_10,P_10,map,recall_100") from None


@score.command("trec")
@click.option("--qrels", type=_path, help="Graded qrels: BEIR qrels/<split>.tsv, TREC or JSONL.")
@click.option(
    "--project", type=click.Path(path_type=Path, file_okay=False),
    help="Project folder: its store's qrels (a BEIR/TREC project's original grades).",
)  # fmt: skip
@click.option(
    "--queries", type=_path,
    help="Evaluate only these queries (BEIR queries.jsonl, TREC topics, queries.jsonl).",
)  # fmt: skip
@click.option(
    "--run", "runs", multiple=True, required=True, metavar="[NAME=]FILE",
    help="TREC run file (repeatable); named by its tag unless NAME= is given.",
)  # fmt: skip
@click.option(
    "--measure", "measures", multiple=True, default=("ndcg_cut_10,P_10,map,recall_100",),
    show_default=True, metavar="M1,M2,...",
    help="trec_eval/pytrec_eval names: ndcg, ndcg_cut_K, P_K, recall_K, map, map_cut_K, "
    "recip_rank, Rprec, success_K, num_ret, num_rel, num_rel_ret.",
)  # fmt: skip
@click.option(
    "--ties", type=click.Choice(["trec_eval", "file"]), default="trec_eval", show_default=True,
    help="Equal scores in trec_eval's doc id descending order, or in run-file order.",
)  # fmt: skip
@click.option("--per-query/--no-per-query", default=False, help="Per-query values in --json.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def trec_cmd(
    qrels: Path | None, project: Path | None, queries: Path | None, runs: tuple[str, ...],
    measures: tuple[str, ...], ties: str, per_query: bool, as_json: bool,
) -> None:  # fmt: skip
    """trec_eval's measures on graded qrels without conditions, equal to pytrec_eval.

    A query counts when it has qrels and is in the run (pytrec_eval's rule); means are
    over those queries. Grades >= 1 are relevant; ndcg gains are the grades."""
    from evaudit.output import emit_json
    from scorers.trec_measures import TrecReport

    ms = measures_of(measures)
    frame, source = _trec_inputs(qrels, project)
    scored = trec_scores(frame, runs, ms, ties, _query_filter(queries))
    rep = TrecReport(qrels=source, ties=ties, measures=[m.name for m in ms], runs=scored)
    emit_json(rep.to_json(per_query=per_query)) if as_json else click.echo(rep.to_text())
