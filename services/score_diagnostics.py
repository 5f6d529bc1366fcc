"""`evaudit score metric-ranking | difficulty | controls | mask-condition`: the construct
diagnostics of Table S5b of the n-Clue supplement ("Do Current Retrievers Cover All the
Evidence?", section "Construct Diagnostics and Label Examples").

Each service reads its inputs (services/score_inputs.py), binds the qrels, scores the runs
(progress injected) and calls one pure scorer (scorers/runs/metric_ranking.py,
difficulty.py, controls.py, drop_condition.py's masking); its report wraps the scorer's
typed report, whose `to_json()` is the `--json` object. Page-level runs (doc_id#page) are
scored as their documents (`--page-aggregate`, as `score nclue`; services/score_pages.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from services.score_inputs import (
    ScoreSource,
    bind,
    conditions,
    evidence_by_pair,
    load_qrels,
    load_queries,
    page_counts,
    score_run_files,
)
from services.score_reports import ScorerReport, bind_source, page_runs_for
from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress
from vocabulary.runspec import parse_run_spec

if TYPE_CHECKING:
    from scorers.runs.bind import Ties
    from scorers.runs.difficulty import DifficultyReport
    from scorers.runs.drop_condition import MaskReport
    from scorers.runs.metric_ranking import MetricRankingReport


# ---- score metric-ranking -----------------------------------------------------------------


@dataclass(frozen=True)
class ScoreMetricRankingReport(ScorerReport):
    """System orderings under graded NDCG and each gold-only measure."""

    report: MetricRankingReport


def score_metric_ranking(
    src: ScoreSource, *, qrels: Path | None, k: int, progress: Progress = no_progress,
    page_aggregate: str = "max",
) -> ScoreMetricRankingReport:  # fmt: skip
    from scorers.runs import METRICS
    from scorers.runs.metric_ranking import metric_ranking

    if len(src.runs) < 2:
        raise InputError("metric ranking needs at least two runs", hint="pass --run more times")
    b = bind_source(src, qrels, k)
    pages = page_runs_for(b.frame, page_aggregate)
    (scored,) = score_run_files(src.runs, [b.qrels], src.ties, progress, pages)
    means = {
        t: dict(zip(METRICS, (float(x) for x in pq.values().mean(axis=1)), strict=True))
        for t, pq in scored.items()
    }
    return ScoreMetricRankingReport(metric_ranking(means, k=k))


# ---- score difficulty ---------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreDifficultyReport(ScorerReport):
    """Covariate regression and density-matched AUC per system."""

    report: DifficultyReport


def score_difficulty(
    src: ScoreSource, *, qrels: Path | None, evidence: Path | None, pages: Path | None,
    k: int, metric: str, bins: int, progress: Progress = no_progress,
    page_aggregate: str = "max",
) -> ScoreDifficultyReport:  # fmt: skip
    """`score difficulty`: covariates from the qrels, the evidence and the page counts."""
    import numpy as np

    from scorers.runs import METRICS
    from scorers.runs.difficulty import QueryCovariates, difficulty_report, rarity

    qids, n, frame, bound = bind_source(src, qrels, k)
    page_runs = page_runs_for(frame, page_aggregate)
    conds = conditions(src.queries, src.project)
    ev = evidence_by_pair(evidence, src.project)
    if pages is None and src.project is None:
        raise InputError("score difficulty needs page counts for the gold length",
                         hint="pass --pages pages.jsonl or --project DIR")  # fmt: skip
    lengths = page_counts(pages, src.project)
    nmap = dict(zip(qids, n, strict=True))
    pool: dict[str, int] = {}
    golds: dict[str, list[str]] = {}
    for q, d, g in zip(frame["query_id"], frame["doc_id"], frame["grade"], strict=True):
        if q in nmap and g > 0:
            pool[q] = pool.get(q, 0) + 1
            if g == nmap[q]:
                golds.setdefault(q, []).append(d)
    freq: dict[tuple[str, str], int] = {}
    docs = set()
    for (q, d), by_cond in ev.items():
        docs.add(d)
        for c, ps in by_cond.items():
            if ps:
                freq[(q, c)] = freq.get((q, c), 0) + 1
    keep = [i for i, q in enumerate(qids) if golds.get(q)]
    for i in keep:
        missing = [d for d in golds[qids[i]] if d not in lengths]
        if missing:
            raise InputError(f"gold document {missing[0]!r} of query {qids[i]!r} has no page "
                             "count", hint="pass the corpus --pages pages.jsonl")  # fmt: skip
    if len(keep) < 3:
        raise InputError(f"{len(keep)} queries have a gold; the regression needs more")
    cov = QueryCovariates(
        [qids[i] for i in keep], [n[i] for i in keep],
        [rarity([freq.get((qids[i], c), 0) for c in conds.get(qids[i], [])], max(len(docs), 1))
         for i in keep],
        [min(lengths[d] for d in golds[qids[i]]) for i in keep],
        [pool[qids[i]] for i in keep],
    )  # fmt: skip
    (scored,) = score_run_files(src.runs, [bound], src.ties, progress, page_runs)
    j = METRICS.index(metric)
    at = np.asarray(keep, dtype=np.int64)
    success = {t: pq.values()[j][at] for t, pq in scored.items()}
    return ScoreDifficultyReport(difficulty_report(success, cov, k=k, metric=metric, bins=bins))


# ---- score controls -----------------------------------------------------------------------


@dataclass(frozen=True)
class ControlRow:
    control: str
    privileged_input: str
    nclue: float
    gold_hit: float
    gold_ndcg: float
    graded_ndcg: float
    ranked_rows: int
    file: str | None


@dataclass(frozen=True)
class ControlsReport:
    """The fact oracle and the single-page floor scored as runs (Table S1d style)."""

    k: int
    queries: int
    controls: list[ControlRow]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def rows(self) -> list[dict[str, Any]]:
        return [asdict(c) for c in self.controls]

    def table(self) -> str:
        from vocabulary.tables import table

        rows = [[c.control, c.privileged_input, f"{100 * c.nclue:.1f}", f"{100 * c.gold_hit:.1f}",
                 f"{100 * c.gold_ndcg:.1f}", f"{100 * c.graded_ndcg:.1f}", c.file or "-"]
                for c in self.controls]  # fmt: skip
        return "\n".join(
            [
                f"Construction controls (n-Clue supplement Tables S1d, S5b) at k={self.k} over "
                f"{self.queries} queries, points: both read the construction evidence, so "
                "neither is a fair retriever (oracle ~100 = fact access is leakage; floor 0 = "
                "stored gold evidence is cross-page).",
                table(
                    rows,
                    [
                        "control",
                        "privileged input",
                        "n-Clue",
                        "Gold Hit",
                        "Gold-NDCG",
                        "graded NDCG",
                        "run file",
                    ],
                ),
            ]
        )


def score_controls(
    queries: Path | None, project: Path | None, *, qrels: Path | None, evidence: Path | None,
    k: int, out_dir: Path | None, ties: Ties = "file",
) -> ControlsReport:  # fmt: skip
    """`score controls`: build both control runs, write them to `out_dir` when given, score."""
    from formats.run_files import write_run
    from scorers.runs import measure, rank_run
    from scorers.runs.controls import CONTROLS, control_runs

    qids, n = load_queries(queries, project)
    frame, source = load_qrels(qrels, project, "--qrels")
    bound = bind(qids, n, frame, source, k)
    conds = conditions(queries, project)
    runs = control_runs({q: conds.get(q, []) for q in qids}, evidence_by_pair(evidence, project))
    if out_dir is not None and not out_dir.is_dir():
        raise InputError("--out-dir is not a folder", file=out_dir, hint="create it first")
    out = []
    written: list[Path] = []
    for name, rows in runs.items():
        cols = [r[0] for r in rows], [r[1] for r in rows], [r[3] for r in rows]
        v = measure(bound, rank_run(bound, *cols, ties=ties)).values().mean(axis=1)
        file = None
        if out_dir is not None:
            path = out_dir / f"{name}.trec"
            try:
                write_run(path, cols[0], cols[1], [r[2] for r in rows], cols[2], name)
            except InputError:
                for done in written:  # both runs or neither
                    done.unlink(missing_ok=True)
                raise
            written.append(path)
            file = str(path)
        nclue, hit, gold_ndcg, graded = (float(x) for x in v)  # METRICS order
        out.append(ControlRow(name, CONTROLS[name], nclue, hit, gold_ndcg, graded, len(rows),
                              file))  # fmt: skip
    return ControlsReport(k, len(qids), out)


# ---- score mask-condition -----------------------------------------------------------------


@dataclass(frozen=True)
class ScoreMaskReport(ScorerReport):
    """Masked-position runs scored against the full query's qrels."""

    report: MaskReport

    def rows(self) -> list[dict[str, Any]]:
        return [asdict(r) for r in self.report.rows]


def score_mask_condition(
    src: ScoreSource, *, qrels: Path | None, masks: tuple[str, ...], k: int, bootstrap: int,
    seed: int, progress: Progress = no_progress, page_aggregate: str = "max",
) -> ScoreMaskReport:  # fmt: skip
    """`score mask-condition`: masks are NAME:POS=FILE (the run without condition POS)."""
    from scorers.runs.drop_condition import mask_report
    from services.score_specs import parse_drops

    _, _, frame, full = bind_source(src, qrels, k)
    page_runs = page_runs_for(frame, page_aggregate)
    (scored,) = score_run_files(src.runs, [full], src.ties, progress, page_runs)
    try:
        specs = parse_drops(masks, list(scored))
    except InputError as exc:
        raise InputError(exc.message.replace("--drop", "--mask"), hint=exc.hint) from exc
    masked = []
    for system, pos, file in specs:
        if not (full.n >= max(pos, 2)).any():
            raise InputError(f"no query has {max(pos, 2)} or more conditions for --mask "
                             f"{system}:{pos}")  # fmt: skip
        (pq,) = score_run_files((parse_run_spec(file),), [full], src.ties, progress, page_runs)
        masked.append((system, pos, next(iter(pq.values()))))
    return ScoreMaskReport(mask_report(full, scored, masked, bootstrap=bootstrap, seed=seed))
