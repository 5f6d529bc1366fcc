"""`evaudit score nclue | compare | impact`: one service each, one typed report each.

A service reads its inputs (services/score_inputs.py), binds the qrels, scores the run
files (progress injected) and calls the pure reports of `scorers.runs`. A report holds
the scorers' typed reports and what the service adds (the tie rule, Gold+Support,
categories, forms, blocks, slices); `to_json()` rebuilds the released `--json` object
from them key for key (key order too); `table()` is the CLI's text: the tie rule line,
then the scorers' tables.
JSON values are fractions in [0, 1]; the text tables print points (x100), like the
supplement to "Do Current Retrievers Cover All the Evidence?".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from services.score_inputs import (
    ScoreSource,
    bind,
    load_qrels,
    load_queries,
    query_attrs,
    read_categories,
    score_run_files,
    write_per_query,
)
from services.score_pages import support_report, support_text
from services.score_reports import bind_source, page_runs_for
from services.score_specs import parse_blocks, parse_pairs, slices_for
from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress

if TYPE_CHECKING:
    from scorers.form_matrix import FormMatrix
    from scorers.gold_support import SupportReport
    from scorers.runs import PerQuery
    from scorers.runs.categories import CategoryReport
    from scorers.runs.impact_extra import ImpactExtras
    from scorers.runs.report import CompareScores, ImpactScores, NclueScores
    from scorers.runs.selection import SelectionReport
    from scorers.runs.slices import SliceReport
    from scorers.trec_measures import TrecImpact
    from services.impact_classic import ClassicImpactReport
    from services.score_manifest import ManifestRequest

METRIC_NAMES = ("nclue", "gold_hit", "gold_ndcg", "ndcg")

TIE_NOTES = {
    "file": "equal scores in run-file order",
    "trec_eval": "equal scores by document id descending, as trec_eval",
}


def tie_line(ties: str) -> str:
    """The header line every NDCG output carries: which tie rule ordered the runs."""
    return f"ties: {ties} ({TIE_NOTES[ties]})"


# ---- score nclue --------------------------------------------------------------------------


@dataclass(frozen=True)
class NclueReport:
    """Every run's n-Clue Score, Gold Hit, Gold-NDCG and NDCG with their family-bootstrap CIs;
    Gold+Support of page-level runs (with the page aggregate that scored them), the
    category ranking and slices when asked for."""

    scores: NclueScores
    ties: str
    support: SupportReport | None = None
    page_aggregate: str = "max"
    page_top: int = 1
    categories: CategoryReport | None = None
    slices: SliceReport | None = None

    def to_json(self) -> dict[str, Any]:
        rep = self.scores.to_json()
        if self.support is not None:
            rep["gold_support"] = self.support.to_json()
            rep["page_aggregate"], rep["page_top"] = self.page_aggregate, self.page_top
        if self.categories is not None:
            rep.update(self.categories.to_json())
        if self.slices is not None:
            rep["slices"] = self.slices.to_json()
        rep["ties"] = self.ties
        return rep

    def rows(self) -> list[dict[str, Any]]:
        """One dict per run, best n-Clue Score first (fractions, as in the JSON)."""
        runs = sorted(self.scores.runs.items(), key=lambda kv: -kv[1]["nclue"])
        out = []
        for tag, r in runs:
            ci = r["ci95"]["nclue"] or [None, None]
            out.append(
                {"run": tag, **{m: r[m] for m in METRIC_NAMES},
                 "nclue ci95 lo": ci[0], "nclue ci95 hi": ci[1], **r["outcomes"]}
            )  # fmt: skip
        return out

    def table(self) -> str:
        text = self.scores.table()
        if self.support is not None:
            text += "\n\n" + support_text(self.support, self.page_top)
        if self.categories is not None:  # the category blocks replace the plain ranking
            text = text.split("\n", 1)[0] + "\n" + self.categories.to_text(self.to_json())
        if self.slices is not None:
            text += "\n\n" + self.slices.to_text()
        return tie_line(self.ties) + "\n" + text


def score_nclue(
    src: ScoreSource, *, qrels: Path | None, k: int, bootstrap: int, seed: int,
    per_query: Path | None = None, by: tuple[str, ...] = (), pages: Path | None = None,
    category: Path | None = None, evidence: Path | None = None, support_pages: int = 3,
    progress: Progress = no_progress, page_aggregate: str = "max", plot: Path | None = None,
    manifest: ManifestRequest | None = None,
) -> NclueReport:  # fmt: skip
    """`score nclue`: writes `per_query` (TSV) when given; `page_aggregate` (max, top3,
    topk:K) scores page-level runs' documents (services/score_pages.py); `plot` writes
    Figure 2(a) of the n-Clue supplement (services/figures.py: PNG or SVG by suffix);
    `manifest` (--manifest-out) the reproduction manifest with the printed report, its
    paths checked before anything is scored (services/score_manifest.py)."""
    from scorers.runs import nclue_report
    from services.score_manifest import (
        check_score_manifest,
        manifest_inputs,
        write_score_manifest,
    )

    inputs = manifest_inputs(
        src.project, [src.queries, qrels, pages, category, evidence], [p for _, p in src.runs]
    )
    if manifest is not None:
        check_score_manifest(manifest.path, inputs, per_query)
    if plot is not None:
        from services.figures import check_plot_path

        check_plot_path(plot)

    qids, n, frame, bound = bind_source(src, qrels, k)
    page_runs = page_runs_for(frame, page_aggregate)
    (scored,) = score_run_files(src.runs, [bound], src.ties, progress, page_runs)
    scores = nclue_report(bound, scored, bootstrap=bootstrap, seed=seed)
    tagged = list(zip(scored, [path for _, path in src.runs], strict=True))
    support = support_report(page_runs, tagged, frame, dict(zip(qids, n, strict=True)),
                             queries=src.queries, project=src.project, evidence=evidence, k=k,
                             pages=support_pages)  # fmt: skip
    cats = None
    if category is not None:
        from scorers.runs.categories import category_report

        cats = category_report(scores.to_json(), *read_categories(category, list(scored)))
    sl = None
    if by:
        sl = slices_for(by, bound, scored, [], queries=src.queries, project=src.project,
                        pages=pages, bootstrap=bootstrap, seed=seed)  # fmt: skip
    if per_query is not None:
        write_per_query(per_query, bound, scored)
    report = NclueReport(scores, src.ties, support, page_aggregate, page_runs.top, cats, sl)
    if plot is not None:
        from services.figures import fair_scatter, save_figure

        save_figure(fair_scatter(report.to_json())[0], plot)
    if manifest is not None:
        write_score_manifest(manifest.path, manifest.argv, manifest.printed(report), inputs,
                             per_query)  # fmt: skip
    return report


# ---- score compare ------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareReport:
    """Declared contrasts: paired differences, sign-flip p, family CIs, common support; the
    form matrix (--form, with the scored runs it reads), selection-adjusted blocks (--block)
    and slices (--by) when asked."""

    scores: CompareScores
    ties: str
    has_pairs: bool
    forms: FormMatrix | None = None
    scored: dict[str, PerQuery] = field(default_factory=dict)
    selection: SelectionReport | None = None
    slices: SliceReport | None = None

    def to_json(self) -> dict[str, Any]:
        rep = self.scores.to_json()
        if self.forms is not None:
            rep["forms"] = self.forms.to_json(self.scored, rep)
        if self.selection is not None:
            rep["blocks"] = self.selection.to_json()["blocks"]
        if self.slices is not None:
            rep["slices"] = self.slices.to_json()
        rep["ties"] = self.ties
        return rep

    def rows(self) -> list[dict[str, Any]]:
        """One dict per declared pair: the differences, raw p and pairs-Holm p (n-Clue)."""
        return [
            {"base": pr["base"], "variant": pr["variant"],
             **{f"d{m}": pr["diff"][m] for m in METRIC_NAMES},
             "p": pr["p"]["nclue"], "p_holm": pr["p_holm"]["nclue"]}
            for pr in self.scores.pairs
        ]  # fmt: skip

    def table(self) -> str:
        parts = [self.scores.table()] if self.has_pairs else []
        if self.forms is not None:
            parts.append(self.forms.to_text(self.scored, self.to_json()))
        if self.selection is not None:
            parts.append(self.selection.to_text())
        if self.slices is not None:
            parts.append(self.slices.to_text())
        return tie_line(self.ties) + "\n" + "\n\n".join(parts)


def score_compare(
    src: ScoreSource, *, qrels: Path | None, k: int, pairs: tuple[str, ...], draws: int,
    bootstrap: int, seed: int, blocks: tuple[str, ...] = (), by: tuple[str, ...] = (),
    pages: Path | None = None, forms: tuple[str, ...] = (), progress: Progress = no_progress,
    plot: Path | None = None,
) -> CompareReport:  # fmt: skip
    """`score compare`: `pairs`, `blocks`, `forms` as given to --pair, --block, --form;
    writes `plot` (Figure 2(b) of the n-Clue supplement, the declared pairs) when given."""
    from scorers.runs import compare_report

    if not pairs and not blocks and not forms:
        raise InputError("no contrast given", hint="pass --pair BASE:VARIANT or --block ...")
    if plot is not None:
        from services.figures import check_plot_path

        check_plot_path(plot)
    bound = bind_source(src, qrels, k).qrels
    (scored,) = score_run_files(src.runs, [bound], src.ties, progress)
    fm = None
    if forms:
        from scorers.form_matrix import form_matrix, parse_forms

        fm = form_matrix(parse_forms(forms, list(scored)), list(scored), pairs)
    pair_list = list(fm.run_pairs) if fm else parse_pairs(pairs, list(scored))
    has_pairs = bool(pair_list)
    scores = compare_report(bound, scored, pair_list, draws=draws, bootstrap=bootstrap, seed=seed)
    sel = None
    if blocks:
        from scorers.runs.selection import selection_report

        block_list = parse_blocks(blocks, list(scored))
        sel = selection_report(bound, scored, block_list, draws=draws, bootstrap=bootstrap,
                               seed=seed)  # fmt: skip
        pair_list = pair_list + [
            (b, v) for _, b, vs in block_list for v in vs if (b, v) not in pair_list
        ]
    sl = None
    if by:
        sl = slices_for(by, bound, scored, pair_list, queries=src.queries, project=src.project,
                        pages=pages, bootstrap=bootstrap, seed=seed)  # fmt: skip
    report = CompareReport(scores, src.ties, has_pairs, fm, scored if fm else {}, sel, sl)
    if plot is not None:
        from services.figures import delta_plane, save_figure

        save_figure(delta_plane(report.to_json())[0], plot)
    return report


# ---- score impact -------------------------------------------------------------------------


@dataclass(frozen=True)
class ImpactReport:
    """Every run before and after a qrels revision, ordering agreement, pair tests, the
    extras (per source, rank movement) and the trec_eval measures when asked for."""

    scores: ImpactScores
    extras: ImpactExtras
    ties: str
    trec: TrecImpact | None = None

    def to_json(self) -> dict[str, Any]:
        rep = self.scores.to_json()
        # the extras follow the scores; `k` and `labels_changed` keep the scores' place
        rep.update(self.extras.to_json() | {"labels_changed": rep["labels_changed"]})
        rep["ties"] = self.ties
        if self.trec is not None:
            rep["trec_measures"] = self.trec.to_json()
        return rep

    def rows(self) -> list[dict[str, Any]]:
        """One dict per run, by rank after: ranks and every metric before and after."""
        order = self.scores.ordering
        runs = sorted(self.scores.runs.items(), key=lambda kv: order["rank_after"][kv[0]])
        return [
            {"run": tag, "rank before": order["rank_before"][tag],
             "rank after": order["rank_after"][tag],
             **{f"{m} {when}": r[when][m] for m in METRIC_NAMES for when in ("before", "after")}}
            for tag, r in runs
        ]  # fmt: skip

    def table(self) -> str:
        text = tie_line(self.ties) + "\n" + self.scores.table() + "\n\n" + self.extras.to_text()
        if self.trec is not None:
            text += "\n\n" + self.trec.to_text()
        return text


@dataclass(frozen=True)
class TrecImpactReport:
    """`score impact --trec-measures` on a classic benchmark before the classic analysis
    (services/impact_classic.py) replaced it: only the trec_eval measures before and after."""

    impact: TrecImpact

    def to_json(self) -> dict[str, Any]:
        return {"trec_measures": self.impact.to_json()}

    def rows(self) -> list[dict[str, Any]]:
        """One dict per run and measure: mean before, after and the change."""
        return [
            {"run": tag, "measure": m, **v}
            for tag, by_m in self.impact.to_json()["runs"].items()
            for m, v in by_m.items()
        ]

    def table(self) -> str:
        return self.impact.to_text()


def score_impact(
    src: ScoreSource, *, qrels_before: Path | None, qrels_after: Path | None, k: int,
    pairs: tuple[str, ...], draws: int, metric: str, keep_removed: bool, bootstrap: int,
    seed: int, trec_measures: tuple[str, ...] = (), trec_ties: str = "trec_eval",
    progress: Progress = no_progress, all_pairs: bool = False, plot: Path | None = None,
    top: int = 20,
) -> ImpactReport | ClassicImpactReport:  # fmt: skip
    """`score impact`. A classic benchmark (BEIR, TREC: `trec_measures` and no n-Clue
    queries file, or a BEIR/TREC project) gets the classic analysis of
    services/impact_classic.py; an n-Clue one the n-Clue report (with `trec_measures`
    beside it when asked)."""
    from scorers.runs import impact_report, label_changes, removed_queries
    from scorers.runs.impact_extra import impact_extras, source_slices
    from services.score_trec import measures_of, trec_measures_impact

    ms = measures_of(trec_measures) if trec_measures else []  # a bad name fails before any work
    if _classic_route(src, bool(ms)):
        from services.impact_classic import ClassicOptions, classic_impact

        opts = ClassicOptions(
            measures=trec_measures or ("ndcg_cut_10",), k=k, ties=trec_ties, pairs=pairs,
            all_pairs=all_pairs, draws=draws, bootstrap=bootstrap, seed=seed, top=top,
        )  # fmt: skip
        return classic_impact(project=src.project, qrels_before=qrels_before,
                              qrels_after=qrels_after, runs=src.runs, queries=src.queries,
                              options=opts, plot=plot, progress=progress)  # fmt: skip
    if all_pairs or plot is not None:
        raise InputError("--all-pairs and --plot apply to a classic (BEIR/TREC) benchmark",
                         hint="give --measure (or --trec-measures) without an n-Clue --queries")  # fmt: skip
    if qrels_after is None:
        raise InputError("no revised qrels", hint="pass --qrels-after FILE")
    qids, n = load_queries(src.queries, src.project)
    fb, sb = load_qrels(qrels_before, src.project, "--qrels-before")
    fa, sa = load_qrels(qrels_after, None, "--qrels-after")
    gone = set() if keep_removed else removed_queries(qids, fb, fa)
    kept = [(q, m) for q, m in zip(qids, n, strict=True) if q not in gone]
    before = bind(qids, n, fb, sb, k)
    after = bind([q for q, _ in kept], [m for _, m in kept], fa, sa, k)
    sc_b, sc_a = score_run_files(src.runs, [before, after], src.ties, progress)
    pair_list = parse_pairs(pairs, list(sc_b))
    labels = label_changes(qids, n, fb, fa)
    scores = impact_report(
        before, after, sc_b, sc_a, labels, pair_list, metric=metric, draws=draws, seed=seed
    )
    by_source = None
    if pair_list:
        src_of = dict(zip(qids, query_attrs(src.queries, src.project)[1], strict=True))
        by_source = source_slices(before, after, sc_b, sc_a, src_of, pair_list,
                                  bootstrap=bootstrap, seed=seed)  # fmt: skip
    extra = impact_extras(before, after, sc_b, sc_a, by_source)
    imp = None
    if ms:
        imp = trec_measures_impact(src, qrels_before, qrels_after, ms, trec_ties,
                                   before=set(qids), after={q for q, _ in kept})  # fmt: skip
    return ImpactReport(scores, extra, src.ties, imp)


def _classic_route(src: ScoreSource, measures: bool) -> bool:
    """A classic benchmark: a BEIR/TREC project, files without queries, or measures asked
    for with a queries file that is not n-Clue's (a BEIR queries.jsonl or TREC topics
    only filter the queries)."""
    if src.project is not None:
        from services.impact_inputs import is_classic

        return is_classic(src.project)
    if src.queries is None:
        return True  # no n-Clue queries: nothing but qrels and runs (default ndcg_cut_10)
    if not measures:
        return False
    from vocabulary.jsonlines import json_lines

    try:
        first = next(iter(json_lines(src.queries)), None)
    except InputError:
        return True  # not JSONL: TREC topics
    return first is not None and "conditions" not in first[1]
