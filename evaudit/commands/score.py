"""`evaudit score`: n-Clue Score, Gold Hit, Gold-NDCG and NDCG of runs; paired contrasts; impact.

Thin: the commands parse options, call one service of services/score*.py (progress
injected: the tqdm bar, silent under --json) and print its report, `to_json()` under
--json and `table()` otherwise.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.commands.score_options import (
    _bootstrap_opt,
    _by_opt,
    _common,
    _draws_opt,
    _pages_opt,
    _pair_opt,
    _path,
    emit,
    score,
    source,
)
from services.score import METRIC_NAMES


@score.command("nclue")
@_common
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@_bootstrap_opt
@click.option("--per-query", type=_path, help="Write per-query outcomes to this TSV file.")
@_by_opt
@_pages_opt
@click.option(
    "--category", type=_path, metavar="FILE",
    help="Lines `RUN CATEGORY [privileged]`: group the ranking as Tables S1a-S1d; privileged "
    "runs (construction-fact controls) stay unranked.",
)  # fmt: skip
@click.option(
    "--manifest-out", type=_path,
    help="Also write a reproduction manifest (inputs and outputs with SHA-256, this command) "
    "for `evaudit reproduce FILE --verify`; what is printed is saved beside it as NAME.stdout.",
)  # fmt: skip
@click.option(
    "--evidence", type=_path,
    help="Stored evidence JSONL for Gold+Support of page-level runs (doc_id#page docnos); "
    "default: the project's.",
)  # fmt: skip
@click.option(
    "--support-pages", type=click.IntRange(min=1), default=3, show_default=True,
    help="Highest-scoring distinct pages kept per retrieved gold (Gold+Support).",
)  # fmt: skip
@click.option(
    "--page-aggregate", default="max", show_default=True, metavar="max|top3|topk:K",
    help="A page-level run's document score: its best page (MaxSim), or the mean of its "
    "3 (the supplement's ptop3) or K highest page scores.",
)  # fmt: skip
@click.option(
    "--plot", type=_path, metavar="FILE.png|FILE.svg",
    help="Write Figure 2(a) of the n-Clue supplement: every fair run (not marked privileged "
    "by --category) at its Gold Hit and n-Clue Score.",
)  # fmt: skip
def nclue_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, bootstrap: int, per_query: Path | None,
    by: tuple[str, ...], pages: Path | None, category: Path | None, manifest_out: Path | None,
    evidence: Path | None, support_pages: int, page_aggregate: str, plot: Path | None,
) -> None:  # fmt: skip
    """n-Clue Score@k, Gold Hit, Gold-NDCG and NDCG of every run, with family-bootstrap CIs;
    page-level runs (doc_id#page) are scored as their documents (--page-aggregate), with
    Gold+Support."""
    from evaudit.commands.score_manifest import check_score_manifest, write_score_manifest
    from evaudit.output import progress_bar
    from services.score import score_nclue

    src = source(queries, project, runs, ties)
    files = [queries, qrels, pages, category, evidence]
    if manifest_out is not None:
        check_score_manifest(manifest_out, src, files, per_query)
    rep = score_nclue(
        src, qrels=qrels, k=k, bootstrap=bootstrap, seed=seed, per_query=per_query, by=by,
        pages=pages, category=category, evidence=evidence, support_pages=support_pages,
        progress=progress_bar(as_json), page_aggregate=page_aggregate, plot=plot,
    )  # fmt: skip
    emit(rep, as_json)
    if manifest_out is not None:
        write_score_manifest(manifest_out, rep, as_json, src, files, per_query)


@score.command("compare")
@_common
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@_pair_opt
@_draws_opt
@_bootstrap_opt
@click.option(
    "--block", "blocks", multiple=True, metavar="NAME=BASE:VARIANT1,VARIANT2,...",
    help="An endpoint block (repeatable): every tried variant of BASE; its p is the family "
    "max-|T| sign-flip p over all endpoints, then Holm across blocks (Sel.+Holm p).",
)  # fmt: skip
@_by_opt
@_pages_opt
@click.option(
    "--form", "forms", multiple=True, metavar="RUN=FORM",
    help="Label a run with its query form (repeatable); a pair of systems is then compared "
    "within each form (the form matrix, docs/runs.md).",
)  # fmt: skip
@click.option(
    "--plot", type=_path, metavar="FILE.png|FILE.svg",
    help="Write Figure 2(b) of the n-Clue supplement: every --pair in the Gold Hit - n-Clue "
    "Score delta plane, with its family-bootstrap intervals.",
)  # fmt: skip
def compare_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, pairs: tuple[str, ...], draws: int,
    bootstrap: int, blocks: tuple[str, ...], by: tuple[str, ...], pages: Path | None,
    forms: tuple[str, ...], plot: Path | None,
) -> None:  # fmt: skip
    """Paired differences, sign-flip p (plain Holm across pairs), family CIs, common support;
    with --block, selection-adjusted p (Sel.+Holm); with --by, effects per slice."""
    from evaudit.output import progress_bar
    from services.score import score_compare

    rep = score_compare(
        source(queries, project, runs, ties), qrels=qrels, k=k, pairs=pairs, draws=draws,
        bootstrap=bootstrap, seed=seed, blocks=blocks, by=by, pages=pages, forms=forms,
        progress=progress_bar(as_json), plot=plot,
    )  # fmt: skip
    emit(rep, as_json)


@score.command("impact")
@_common
@click.option("--qrels-before", type=_path, help="Qrels before revision; default: the project's.")
@click.option(
    "--qrels-after", type=_path,
    help="Revised qrels (TREC, JSONL, BEIR qrels.tsv); with --project of a BEIR/TREC project, "
    "default: the revision `finalize` computes (its defaults), in the original grades.",
)  # fmt: skip
@_pair_opt
@_draws_opt
@click.option(
    "--metric", type=click.Choice(METRIC_NAMES), default="nclue", show_default=True,
    help="Metric that orders the systems for ranks and rank movement.",
)  # fmt: skip
@click.option(
    "--keep-removed", is_flag=True,
    help="Keep queries the revision removed (no qrels left) in the after scores, as misses.",
)  # fmt: skip
@_bootstrap_opt
@click.option(
    "--trec-measures", "--measure", "trec_measures", multiple=True, metavar="M1,M2,...",
    help="trec_eval measures (as in `score trec`). On a classic benchmark (no n-Clue "
    "--queries, or a BEIR/TREC --project) the full analysis runs on them (the first orders "
    "the systems; default ndcg_cut_10); on an n-Clue one they are reported beside it.",
)  # fmt: skip
@click.option(
    "--trec-ties", type=click.Choice(["trec_eval", "file"]), default="trec_eval",
    show_default=True, help="Tie rule of the --trec-measures values.",
)  # fmt: skip
@click.option(
    "--all-pairs", is_flag=True,
    help="Classic benchmarks: test every pair of runs (Holm across all of them), not only --pair.",
)  # fmt: skip
@click.option(
    "--plot", type=_path, metavar="FILE.png|FILE.svg",
    help="Classic benchmarks: write the ranking slope chart and the change scatter.",
)  # fmt: skip
@click.option(
    "--top", type=click.IntRange(min=1), default=20, show_default=True,
    help="Classic benchmarks: changed labels shown in the label-influence table.",
)  # fmt: skip
def impact_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels_before: Path | None, qrels_after: Path | None,
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
        source(queries, project, runs, ties), qrels_before=qrels_before, qrels_after=qrels_after,
        k=k, pairs=pairs, draws=draws, metric=metric, keep_removed=keep_removed,
        bootstrap=bootstrap, seed=seed, trec_measures=trec_measures, trec_ties=trec_ties,
        progress=progress_bar(as_json), all_pairs=all_pairs, plot=plot, top=top,
    )  # fmt: skip
    emit(rep, as_json)


COMMANDS: list[click.Command] = [score]
