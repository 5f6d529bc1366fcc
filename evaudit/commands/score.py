"""`evaudit score`: n-Clue Score, Gold Hit, Gold-NDCG and NDCG of runs; paired contrasts; impact.

Thin: the commands parse options, call one service of services/score*.py (progress
injected: the tqdm bar, silent under --json) and print its report, `to_json()` under
--json and `table()` otherwise.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.commands import options as opt
from evaudit.commands import score_options as so
from services.score import METRIC_NAMES
from services.score_inputs import ScoreSource


@so.score.command("nclue")
@so.common
@so.qrels_opt
@so.bootstrap_opt
@so.path_opt("--per-query", help="Write per-query outcomes to this TSV file.")
@so.by_opt
@so.pages_opt
@so.path_opt(
    "--category", metavar="FILE",
    help="Lines `RUN CATEGORY [privileged]`: group the ranking as Tables S1a-S1d; privileged "
    "runs (construction-fact controls) stay unranked.",
)  # fmt: skip
@so.path_opt(
    "--manifest-out",
    help="Also write a reproduction manifest (inputs and outputs with SHA-256, this command) "
    "for `evaudit reproduce FILE --verify`; what is printed is saved beside it as NAME.stdout.",
)  # fmt: skip
@so.path_opt(
    "--evidence",
    help="Stored evidence JSONL for Gold+Support of page-level runs (doc_id#page docnos); "
    "default: the project's.",
)  # fmt: skip
@opt.count_option(
    "--support-pages", default=3,
    help="Highest-scoring distinct pages kept per retrieved gold (Gold+Support).",
)  # fmt: skip
@so.page_aggregate_opt(
    "A page-level run's document score: its best page (MaxSim), or the mean of its "
    "3 (the supplement's ptop3) or K highest page scores.",
)  # fmt: skip
@so.plot_opt(
    "Write Figure 2(a) of the n-Clue supplement: every fair run (not marked privileged "
    "by --category) at its Gold Hit and n-Clue Score.",
)  # fmt: skip
def nclue_cmd(
    src: ScoreSource, k: int, seed: int, as_json: bool, qrels: Path | None, bootstrap: int,
    per_query: Path | None, by: tuple[str, ...], pages: Path | None, category: Path | None, manifest_out: Path | None,
    evidence: Path | None, support_pages: int, page_aggregate: str, plot: Path | None,
) -> None:  # fmt: skip
    """n-Clue Score@k, Gold Hit, Gold-NDCG and NDCG of every run, with family-bootstrap CIs;
    page-level runs (doc_id#page) are scored as their documents (--page-aggregate), with
    Gold+Support."""
    from evaudit.commands.score_manifest import manifest_request
    from evaudit.output import progress_bar
    from services.score import score_nclue

    rep = score_nclue(
        src, qrels=qrels, k=k, bootstrap=bootstrap, seed=seed, per_query=per_query, by=by,
        pages=pages, category=category, evidence=evidence, support_pages=support_pages,
        progress=progress_bar(as_json), page_aggregate=page_aggregate, plot=plot,
        manifest=manifest_request(manifest_out, as_json),
    )  # fmt: skip
    so.emit(rep, as_json)


@so.score.command("compare")
@so.common
@so.qrels_opt
@so.pair_opt
@so.draws_opt
@so.bootstrap_opt
@opt.many_option(
    "--block", "blocks", metavar="NAME=BASE:VARIANT1,VARIANT2,...",
    help="An endpoint block (repeatable): every tried variant of BASE; its p is the family "
    "max-|T| sign-flip p over all endpoints, then Holm across blocks (Sel.+Holm p).",
)  # fmt: skip
@so.by_opt
@so.pages_opt
@opt.many_option(
    "--form", "forms", metavar="RUN=FORM",
    help="Label a run with its query form (repeatable); a pair of systems is then compared "
    "within each form (the form matrix, docs/runs.md).",
)  # fmt: skip
@so.plot_opt(
    "Write Figure 2(b) of the n-Clue supplement: every --pair in the Gold Hit - n-Clue "
    "Score delta plane, with its family-bootstrap intervals.",
)  # fmt: skip
def compare_cmd(
    src: ScoreSource, k: int, seed: int, as_json: bool, qrels: Path | None,
    pairs: tuple[str, ...], draws: int, bootstrap: int, blocks: tuple[str, ...], by: tuple[str, ...], pages: Path | None,
    forms: tuple[str, ...], plot: Path | None,
) -> None:  # fmt: skip
    """Paired differences, sign-flip p (plain Holm across pairs), family CIs, common support;
    with --block, selection-adjusted p (Sel.+Holm); with --by, effects per slice."""
    from evaudit.output import progress_bar
    from services.score import score_compare

    rep = score_compare(
        src, qrels=qrels, k=k, pairs=pairs, draws=draws,
        bootstrap=bootstrap, seed=seed, blocks=blocks, by=by, pages=pages, forms=forms,
        progress=progress_bar(as_json), plot=plot,
    )  # fmt: skip
    so.emit(rep, as_json)


@so.score.command("impact")
@so.common
@so.path_opt("--qrels-before", help="Qrels before revision; default: the project's.")
@so.path_opt(
    "--qrels-after",
    help="Revised qrels (TREC, JSONL, BEIR qrels.tsv); with --project of a BEIR/TREC project, "
    "default: the revision `finalize` computes (its defaults), in the original grades.",
)  # fmt: skip
@so.pair_opt
@so.draws_opt
@opt.choice_option(
    "--metric", choices=METRIC_NAMES, default="nclue",
    help="Metric that orders the systems for ranks and rank movement.",
)  # fmt: skip
@click.option(
    "--keep-removed", is_flag=True,
    help="Keep queries the revision removed (no qrels left) in the after scores, as misses.",
)  # fmt: skip
@so.bootstrap_opt
@opt.many_option(
    "--trec-measures", "--measure", "trec_measures", metavar="M1,M2,...",
    help="trec_eval measures (as in `score trec`). On a classic benchmark (no n-Clue "
    "--queries, or a BEIR/TREC --project) the full analysis runs on them (the first orders "
    "the systems; default ndcg_cut_10); on an n-Clue one they are reported beside it.",
)  # fmt: skip
@opt.choice_option(
    "--trec-ties", choices=["trec_eval", "file"], default="trec_eval",
    help="Tie rule of the --trec-measures values.",
)  # fmt: skip
@click.option(
    "--all-pairs", is_flag=True,
    help="Classic benchmarks: test every pair of runs (Holm across all of them), not only --pair.",
)  # fmt: skip
@so.plot_opt("Classic benchmarks: write the ranking slope chart and the change scatter.")
@opt.count_option(
    "--top",
    default=20,
    help="Classic benchmarks: changed labels shown in the label-influence table.",
)
def impact_cmd(
    src: ScoreSource, k: int, seed: int, as_json: bool, qrels_before: Path | None, qrels_after: Path | None,
    pairs: tuple[str, ...], draws: int, metric: str, keep_removed: bool, bootstrap: int,
    trec_measures: tuple[str, ...], trec_ties: str, all_pairs: bool, plot: Path | None, top: int,
) -> None:  # fmt: skip
    """Every run under the qrels before and after a revision, ordering agreement, pair tests.

    A classic benchmark (BEIR, TREC: no --queries, --measure with queries that are not an
    n-Clue queries.jsonl, or a BEIR/TREC --project) gets, per measure, each run's change with its paired bootstrap interval and
    Judged@k, Kendall's tau, tau-AP and Spearman's rho of the rankings, rank movement, the
    --pair (or --all-pairs) randomization and t-tests with Holm and their flips,
    discriminative power, and each changed label's influence (docs/scoring.md)."""
    from evaudit.output import progress_bar
    from services.score import score_impact

    rep = score_impact(
        src, qrels_before=qrels_before, qrels_after=qrels_after,
        k=k, pairs=pairs, draws=draws, metric=metric, keep_removed=keep_removed,
        bootstrap=bootstrap, seed=seed, trec_measures=trec_measures, trec_ties=trec_ties,
        progress=progress_bar(as_json), all_pairs=all_pairs, plot=plot, top=top,
    )  # fmt: skip
    so.emit(rep, as_json)


COMMANDS: list[click.Command] = [so.score]
