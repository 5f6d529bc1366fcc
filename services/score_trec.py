"""`evaudit score trec`: trec_eval's measures (its names, parameters and values) on
graded qrels without conditions; its helpers also serve `score impact --trec-measures`.

Reads the qrels (BEIR qrels.tsv, TREC, JSONL, or the project's) and runs at this edge
and calls `scorers.trec_measures`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formats.qrels import qrels_columns
from services.score_inputs import ScoreSource, project_qrels, store_path
from vocabulary.errors import InputError
from vocabulary.runspec import RunSpec, claim_run_name

if TYPE_CHECKING:
    import pandas as pd

    from scorers.trec_measures import TrecImpact, TrecReport


def _trec_inputs(qrels: Path | None, project: Path | None) -> tuple[Any, str]:
    if qrels is not None and project is not None:
        raise InputError("give either --qrels or --project, not both")
    if qrels is not None:
        return qrels_columns(qrels), str(qrels)
    if project is not None:
        return project_graded(project), str(Path(project) / "audit.duckdb")
    raise InputError("no qrels given", hint="pass --qrels FILE or --project DIR")


def project_graded(project: Path) -> pd.DataFrame:
    """A classic (BEIR/TREC) project's original grades (graded_qrels); else its qrels."""
    import pandas as pd

    from formats.classic import stored_scale

    scale = stored_scale(store_path(project))
    if scale is None:
        return project_qrels(project)
    rows = sorted((q, d, g) for (q, d), g in scale[1].items())
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"])


def _query_filter(queries: Path | None) -> set[str] | None:
    """Ids of a BEIR queries.jsonl, TREC topics or n-Clue queries.jsonl (None = no filter)."""
    if queries is None:
        return None
    from formats.queries import read_query_ids

    return read_query_ids(queries)


@dataclass(frozen=True)
class TrecFlags:
    """trec_eval's -c, -l, -J and -M for `score trec` (the engine's `Options`)."""

    complete: bool = False  # -c: every qrels query, one missing from a run scores 0
    level: int = 1  # -l: the lowest relevant grade
    judged_only: bool = False  # -J
    max_docs: int | None = None  # -M

    def given(self) -> dict[str, Any]:
        """The flags that differ from trec_eval's defaults, by trec_eval's letter."""
        out: dict[str, Any] = {}
        if self.complete:
            out["c"] = True
        if self.level != 1:
            out["l"] = self.level
        if self.judged_only:
            out["J"] = True
        if self.max_docs is not None:
            out["M"] = self.max_docs
        return out


def _qrels_of(frame: Any, wanted: set[str] | None, flags: TrecFlags) -> tuple[Any, Any, Any]:
    """The qrels columns; with -c and a query filter only the filter's queries (so -c
    adds no query the filter leaves out)."""
    q, d, g = frame["query_id"], frame["doc_id"], frame["grade"]
    if wanted is None or not flags.complete:
        return q, d, g
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    def arrow(x: Any) -> Any:
        if isinstance(x, pa.Array | pa.ChunkedArray):
            return x.cast(pa.string())
        return pa.array(np.asarray(x, dtype=object), type=pa.string())

    keep = pc.is_in(arrow(q), value_set=pa.array(sorted(wanted), type=pa.string()))
    mask = keep.to_numpy(zero_copy_only=False)
    return arrow(q).filter(keep), arrow(d).filter(keep), np.asarray(g)[mask]


def trec_scores(
    frame: Any, runs: Sequence[RunSpec], measures: Any, ties: str,
    wanted: set[str] | None, score_precision: str = "float64",
    flags: TrecFlags = TrecFlags(),
) -> dict[str, Any]:  # fmt: skip
    """Every run's measures; the qrels are bound once, runs read as Arrow columns.

    Two worker threads, as `score nclue`'s: Arrow's reader and kernels and numpy's
    loops release the GIL, so reading one file overlaps scoring another.
    """
    from concurrent.futures import ThreadPoolExecutor

    from scorers.trec_measures import Options, bind_qrels
    from services.trec_eval import score_run_file

    bound = bind_qrels(*_qrels_of(frame, wanted, flags))
    opts = Options(
        ties=ties, precision=score_precision,  # type: ignore[arg-type]
        level=flags.level, complete=flags.complete, max_docs=flags.max_docs,
        judged_only=flags.judged_only,
    )  # fmt: skip

    def work(spec: RunSpec) -> Any:
        name, path = spec
        return score_run_file(bound, path, measures, opts, wanted, name or "")

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(work, runs))
    out: dict[str, Any] = {}
    seen: dict[str, Path] = {}
    for (_, path), scored in zip(runs, results, strict=True):
        claim_run_name(seen, scored.runid, path)
        out[scored.runid] = scored
    return out


def trec_impact(
    before: Path, after: Path, runs: Sequence[RunSpec], measures: Any, ties: str
) -> TrecImpact:
    """Measures under the qrels before and after a revision (any of the qrels forms)."""
    from scorers.trec_measures import TrecImpact

    tb = trec_scores(qrels_columns(before), runs, measures, ties, None)
    ta = trec_scores(qrels_columns(after), runs, measures, ties, None)
    return TrecImpact(ties=ties, measures=[m.name for m in measures], before=tb, after=ta)


def trec_measures_impact(
    src: ScoreSource, qrels_before: Path | None, qrels_after: Path, measures: Any, ties: str,
    *, before: set[str], after: set[str],
) -> TrecImpact:  # fmt: skip
    """`score impact --trec-measures` beside the n-Clue figures, on the scored query sets.

    Original-scale files as they are (BEIR qrels.tsv too), or the project's original grades.
    """
    from scorers.trec_measures import TrecImpact

    if qrels_before is not None:
        ob = qrels_columns(qrels_before)
    else:
        assert src.project is not None  # load_qrels refused neither
        ob = project_graded(src.project)
    tb = trec_scores(ob, src.runs, measures, ties, before)
    ta = trec_scores(qrels_columns(qrels_after), src.runs, measures, ties, after)
    return TrecImpact(ties=ties, measures=[m.name for m in measures], before=tb, after=ta)


def measures_of(spec: tuple[str, ...]) -> Any:
    from scorers.trec_measures import parse_measures

    try:
        return parse_measures(spec)
    except ValueError as exc:
        raise InputError(
            str(exc), hint="e.g. --measure ndcg_cut_10,P_10,map,recall_100 or P.5,10"
        ) from None


@dataclass(frozen=True)
class TrecScoreReport:
    """`score trec`: every run's trec_eval measures; per-query values in the JSON if asked."""

    report: TrecReport
    per_query: bool = False

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json(per_query=self.per_query)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per run: evaluated queries and the mean of every measure."""
        return [
            {"run": tag, "queries": len(s.qids), **s.mean} for tag, s in self.report.runs.items()
        ]

    def table(self) -> str:
        return self.report.to_text()


def score_trec(
    *, qrels: Path | None, project: Path | None, queries: Path | None,
    runs: Sequence[RunSpec | str], measures: tuple[str, ...], ties: str, per_query: bool = False,
    score_precision: str = "float64", flags: TrecFlags = TrecFlags(),
) -> TrecScoreReport:  # fmt: skip
    """trec_eval's measures on graded qrels without conditions (trec_eval 10's values;
    `flags` its -c, -l, -J and -M). A run is a RunSpec or a `--run [NAME=]FILE` value."""
    from scorers.trec_measures import TrecReport
    from vocabulary.runspec import parse_run_spec

    specs = [parse_run_spec(r) if isinstance(r, str) else r for r in runs]

    ms = measures_of(measures)
    frame, source = _trec_inputs(qrels, project)
    scored = trec_scores(frame, specs, ms, ties, _query_filter(queries), score_precision, flags)
    rep = TrecReport(qrels=source, ties=ties, measures=[m.name for m in ms], runs=scored,
                     score_precision=score_precision, flags=flags.given())  # fmt: skip
    return TrecScoreReport(rep, per_query)
