"""`evaudit score impact` on a classic (BEIR/TREC) benchmark: does the revision change
the leaderboard, and which labels moved it.

For every measure (`--measure`, trec_eval's names): each run's mean before and after with
the paired bootstrap interval of its change, Judged@k beside it, the rankings with
Kendall's tau, tau-AP and Spearman's rho, rank movement, the declared pairs' paired tests
(randomization, t) with Holm, the pairs whose decision flips and the discriminative
power; then label influence (each changed label applied alone, on the first measure).
The statistics are `scorers.impact`; the per-query values come through the one adapter
`services.impact_inputs.measure_values`.

Queries: a copy of the qrels evaluates the queries it judges that some run retrieves (a
run that misses one of them scores 0 there, as trec_eval -c); with every run retrieving
every query the means are trec_eval's (pytrec_eval's) own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.impact_inputs import (
    QrelRows,
    RunRows,
    inputs,
    measure_names,
    measure_values,
    query_filter,
)
from services.impact_report import ClassicImpactReport
from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress
from vocabulary.runspec import RunSpec

__all__ = ["ClassicImpactReport", "ClassicOptions", "classic_impact"]


@dataclass(frozen=True)
class ClassicOptions:
    measures: tuple[str, ...] = ("ndcg_cut_10",)
    k: int = 10
    ties: str = "trec_eval"
    pairs: tuple[str, ...] = ()
    all_pairs: bool = False
    draws: int = 10_000
    bootstrap: int = 1000
    seed: int = 11
    alpha: float = 0.05
    top: int = 20  # influence rows in the text table


def _by_query(qrels: QrelRows, wanted: set[str] | None) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for q, d, g in qrels:
        if wanted is None or q in wanted:
            out.setdefault(q, {})[d] = g
    return out


def _pairs(opts: ClassicOptions, tags: list[str]) -> list[tuple[int, int]]:
    from scorers.impact.paired import all_pairs
    from services.score_specs import parse_pairs

    if opts.all_pairs:
        if opts.pairs:
            raise InputError("give --pair or --all-pairs, not both",
                             hint="--all-pairs already tests every declared pair")  # fmt: skip
        return all_pairs(len(tags))
    index = {t: i for i, t in enumerate(tags)}
    return [(index[b], index[v]) for b, v in parse_pairs(opts.pairs, tags)]


def _depth(name: str, k: int) -> int:
    tail = name.rsplit("_", 1)[-1]
    return int(tail) if "_" in name and tail.isdigit() else k


def classic_impact(
    *, project: Path | None = None, qrels_before: Path | None = None,
    qrels_after: Path | None = None, runs: Sequence[RunSpec] = (), queries: Path | None = None,
    options: ClassicOptions = ClassicOptions(), plot: Path | None = None,
    progress: Progress = no_progress,
) -> ClassicImpactReport:  # fmt: skip
    """The classic impact analysis; writes `plot` (PNG or SVG, by its suffix) when given."""
    import numpy as np

    from scorers.impact.analysis import Matrices, Settings, analyse

    if plot is not None:
        from services.figures import check_plot_path

        check_plot_path(plot)
    opts = options
    before, after, run_rows, sources = inputs(project=project, qrels_before=qrels_before,
                                              qrels_after=qrels_after, runs=runs)  # fmt: skip
    wanted = query_filter(queries)
    tags = list(run_rows)
    pairs = _pairs(opts, tags)
    jb, ja = _by_query(before, wanted), _by_query(after, wanted)
    retrieved = {q for rows in run_rows.values() for q, _d, _s in rows}
    qb, qa = set(jb) & retrieved, set(ja) & retrieved
    universe = sorted(qb | qa)
    col = {q: i for i, q in enumerate(universe)}
    in_b = np.array([q in qb for q in universe], dtype=bool)
    in_a = np.array([q in qa for q in universe], dtype=bool)
    names: list[str] = []
    values: dict[str, dict[str, np.ndarray]] = {}
    # Judged@d comes from the same engine call as the measures (its `judged_d`), so the
    # run's order, tie rule and evaluated queries are the measures' own.
    depths: list[int] = []
    judged: dict[str, dict[str, dict[str, float | None]]] = {}
    for when, rows, qs in progress([("before", before, qb), ("after", after, qa)], total=2,
                                   desc="scoring runs"):  # fmt: skip
        rows_in = [r for r in rows if r[0] in qs]
        names = measure_names(opts.measures)
        depths = sorted({opts.k, *(_depth(m, opts.k) for m in names)})
        extra = [f"judged_{d}" for d in depths if f"judged_{d}" not in names]
        per_run = measure_values([*opts.measures, *extra], rows_in, run_rows, opts.ties, qs)[1]
        mats = {m: np.zeros((len(tags), len(universe))) for m in names}
        for r, tag in enumerate(tags):
            for q, vals in per_run[tag].items():
                for m in names:
                    mats[m][r, col[q]] = vals[m]
            for dep in depths:
                got = [vals[f"judged_{dep}"] for vals in per_run[tag].values()]
                judged.setdefault(str(dep), {}).setdefault(tag, {})[when] = (
                    float(np.mean(got)) if got else None
                )
        values[when] = mats
    settings = Settings(draws=opts.draws, bootstrap=opts.bootstrap, seed=opts.seed,
                        alpha=opts.alpha)  # fmt: skip
    by_measure = {
        m: analyse(
            tags, Matrices(values["before"][m], values["after"][m], in_b, in_a), pairs, settings
        )
        for m in names
    }
    for m in names:
        d = str(_depth(m, opts.k))
        for t in tags:
            by_measure[m].runs[t]["judged_depth"] = int(d)
            by_measure[m].runs[t]["judged_before"] = judged[d][t]["before"]
            by_measure[m].runs[t]["judged_after"] = judged[d][t]["after"]
    influence = _influence(names[0], opts, tags, values["before"][names[0]][:, in_b],
                           [q for q in universe if q in qb], jb, ja, run_rows, retrieved)  # fmt: skip
    report = ClassicImpactReport(
        qrels=sources,
        ties=opts.ties,
        measures=names,
        k=opts.k,
        draws=opts.draws,
        bootstrap=opts.bootstrap,
        seed=opts.seed,
        alpha=opts.alpha,
        all_pairs=opts.all_pairs,
        queries_before=len(qb),
        queries_after=len(qa),
        removed=sorted(qb - qa),
        added=sorted(qa - qb),
        by_measure=by_measure,
        judged=judged,
        influence_measure=names[0],
        changes=influence,
        top=opts.top,
    )
    if plot is not None:
        from services.figures import impact_figure, save_figure

        save_figure(impact_figure(report.to_json())[0], plot)
        report = dataclasses.replace(report, plot=str(plot))
    return report


def _influence(
    measure: str, opts: ClassicOptions, tags: list[str], values: Any, evaluated: list[str],
    jb: Mapping[str, dict[str, int]], ja: Mapping[str, dict[str, int]],
    run_rows: Mapping[str, RunRows], retrieved: set[str],
) -> list[dict[str, Any]]:  # fmt: skip
    """Every changed label applied alone to the before qrels (see scorers.impact.influence)."""
    import numpy as np

    from scorers.impact.influence import Change, influence_of, most_influential

    changes = [
        Change(q, d, jb.get(q, {}).get(d), ja.get(q, {}).get(d))
        for q in sorted(set(jb) | set(ja))
        for d in sorted(set(jb.get(q, {})) | set(ja.get(q, {})))
        if jb.get(q, {}).get(d) != ja.get(q, {}).get(d)
    ]
    col = {q: i for i, q in enumerate(evaluated)}
    touched = {c.query_id for c in changes}
    rows_of: dict[str, dict[str, RunRows]] = {t: {} for t in tags}
    for t, rows in run_rows.items():
        for r in rows:
            if r[0] in touched:
                rows_of[t].setdefault(r[0], []).append(r)
    # One measure call for all changes: change i is its own query "QUERY\0i", judged as
    # the before qrels with only that label changed, retrieved as QUERY.
    qrows: list[tuple[str, str, int]] = []
    runs_all: dict[str, RunRows] = {t: [] for t in tags}
    alone: list[str | None] = []
    for i, c in enumerate(changes):
        judged = dict(jb.get(c.query_id, {}))
        if c.new_grade is None:
            judged.pop(c.doc_id, None)
        else:
            judged[c.doc_id] = c.new_grade
        if not judged or c.query_id not in retrieved:
            alone.append(None)  # the query is not evaluated with this change alone
            continue
        name = f"{c.query_id}\0{i}"
        alone.append(name)
        qrows += [(name, d, g) for d, g in judged.items()]
        for t in tags:
            runs_all[t] += [(name, d, s) for _q, d, s in rows_of[t].get(c.query_id, [])]
    wanted = {n for n in alone if n is not None}
    per_run = measure_values([measure], qrows, runs_all, opts.ties, wanted)[1] if wanted else {}
    out = []
    for c, key in zip(changes, alone, strict=True):
        new = None
        if key is not None:
            new = np.array([per_run[t].get(key, {}).get(measure, 0.0) for t in tags])
        out.append(influence_of(values, col.get(c.query_id), new, c))
    return [
        {"query_id": i.change.query_id, "doc_id": i.change.doc_id,
         "old_grade": i.change.old_grade, "new_grade": i.change.new_grade,
         "max_abs_delta": i.max_abs_delta, "kendall": i.kendall, "tau_ap": i.tau_ap,
         "max_rank_shift": i.max_rank_shift,
         "delta": {t: float(i.delta[r]) for r, t in enumerate(tags)}}
        for i in most_influential(out)
    ]  # fmt: skip
