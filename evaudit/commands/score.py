"""`evaudit score`: n-Clue Score, Gold Hit, Gold-NDCG and NDCG of runs; paired contrasts; impact.

Commands parse options, load files at this edge (readers, campaign store) and
call one pure function of `scorers.runs`. JSON values are fractions in [0, 1];
the human tables print points (x100), like "Do Current Retrievers Cover All the Evidence?" (supplement).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from evaudit.commands.options import claim_run_name, parse_run_spec
from vocabulary.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from scorers.runs import BoundQrels, PerQuery

METRIC_NAMES = ("nclue", "gold_hit", "gold_ndcg", "ndcg")


def _queries_from_file(path: Path) -> tuple[list[str], list[int]]:
    from packet_builder.readers import read_queries

    qs = read_queries(path)
    return [q.query_id for q in qs], [q.n for q in qs]


def _store_path(project: Path) -> Path:
    from campaign.project import open_project

    return open_project(project).store_path


def _project_queries(project: Path) -> tuple[list[str], list[int]]:
    from campaign import store

    rows = store.query_sizes(_store_path(project))
    if not rows:
        raise InputError(
            "the project has no queries", file=project, hint="load the benchmark into it first"
        )
    return [r[0] for r in rows], [r[1] for r in rows]


def _project_qrels(project: Path) -> pd.DataFrame:
    import pandas as pd

    from campaign import store

    rows = store.qrels_rows(_store_path(project))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"])


def _load_queries(queries: Path | None, project: Path | None) -> tuple[list[str], list[int]]:
    if queries is not None and project is not None:
        raise InputError("give either --queries or --project, not both")
    if queries is not None:
        return _queries_from_file(queries)
    if project is not None:
        return _project_queries(project)
    raise InputError("no queries given", hint="pass --queries queries.jsonl or --project DIR")


def _load_qrels(path: Path | None, project: Path | None, option: str) -> tuple[pd.DataFrame, str]:
    from packet_builder.readers import read_qrels

    if path is not None:
        return read_qrels(path), str(path)
    if project is not None:
        return _project_qrels(project), str(Path(project) / "audit.duckdb")
    raise InputError("no qrels given", hint=f"pass {option} FILE or --project DIR")


def _bind(qids: list[str], n: list[int], qrels: pd.DataFrame, source: str, k: int) -> BoundQrels:
    """Check grades against each query's n (naming the file line), then bind."""
    import numpy as np

    from packet_builder.readers import row_line
    from scorers.runs import bind_qrels

    nmap = dict(zip(qids, n, strict=True))
    qn = qrels["query_id"].map(nmap)
    bad = np.flatnonzero((qn.notna() & (qrels["grade"] > qn.fillna(0))).to_numpy())
    if bad.size:
        i = int(bad[0])
        row = qrels.iloc[i]
        line = row_line(source, i) if Path(source).suffix != ".duckdb" else None
        raise InputError(
            f"grade {row['grade']} for query {row['query_id']!r} exceeds its "
            f"{nmap[row['query_id']]} conditions",
            file=source,
            line=line,
            hint="grades are clue counts 0..n",
        )
    return bind_qrels(qids, n, qrels["query_id"], qrels["doc_id"], qrels["grade"], k=k)


def _score_run_files(
    specs: tuple[str, ...], bounds: list[BoundQrels], ties: str, quiet: bool,
    page_runs: Any = None,
) -> list[dict[str, PerQuery]]:  # fmt: skip
    """Read and score each run file under every bound qrel copy; name runs by tag or NAME=.

    Two worker threads: pyarrow's reader and hash kernels release the GIL, so
    reading one file overlaps scoring another. Returns one {tag: PerQuery} per bound.
    """
    from packet_builder.readers import read_run
    from scorers.runs import measure, rank_run

    parsed = [parse_run_spec(s) for s in specs]

    def work(item: tuple[str | None, Path]) -> tuple[str, list[PerQuery]]:
        name, path = item
        df = read_run(path)
        if page_runs is not None:  # score nclue: a page-level run as its document run
            df = page_runs.collapse(path, df)
        cols = (df["query_id"], df["doc_id"], df["score"])
        scored = [measure(b, rank_run(b, *cols, ties=ties)) for b in bounds]  # type: ignore[arg-type]
        return name or str(df["tag"].iloc[0]), scored

    from evaudit.output import progress

    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = pool.map(work, parsed)
        results = list(progress(jobs, total=len(parsed), desc="scoring runs", quiet=quiet))
    out: list[dict[str, PerQuery]] = [{} for _ in bounds]
    seen: dict[str, Path] = {}
    for (_, path), (tag, scored) in zip(parsed, results, strict=True):
        claim_run_name(seen, tag, path)
        for i, pq in enumerate(scored):
            out[i][tag] = pq
    return out


TIE_NOTES = {
    "file": "equal scores in run-file order",
    "trec_eval": "equal scores by document id descending, as trec_eval",
}


def _tie_line(ties: str) -> str:
    """The header line every NDCG output carries: which tie rule ordered the runs."""
    return f"ties: {ties} ({TIE_NOTES[ties]})"


def _parse_pairs(pairs: tuple[str, ...], tags: list[str]) -> list[tuple[str, str]]:
    """BASE:VARIANT; the split point is the colon that leaves two known run names."""
    out = []
    known = set(tags)
    for spec in pairs:
        cuts = [i for i, ch in enumerate(spec) if ch == ":"]
        found = [(spec[:i], spec[i + 1 :]) for i in cuts if {spec[:i], spec[i + 1 :]} <= known]
        if not found:
            raise InputError(
                f"--pair {spec!r} does not name two runs as BASE:VARIANT",
                hint=f"run names: {', '.join(tags)}",
            )
        out.append(found[0])
    return out


def _write_per_query(path: Path, bound: BoundQrels, scored: Any) -> None:
    """Per-query outcomes as TSV, written to a temp file and renamed (never half-written)."""
    from scorers.runs.report import PER_QUERY_HEADER, per_query_rows

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write("\t".join(PER_QUERY_HEADER) + "\n")
            for row in per_query_rows(bound, scored):
                fh.write("\t".join(str(c) for c in row) + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write per-query file ({exc.strerror})", file=path) from exc


# ---- options shared by the commands -------------------------------------------------------

_path = click.Path(path_type=Path, dir_okay=False)


def _common_options(k: bool = True, seed: bool = True) -> Any:
    """The options every score command shares (`score bound` uses --k for budgets, no seed)."""
    opts = [
        click.option("--queries", type=_path, help="queries.jsonl (n = number of conditions)."),
        click.option(
            "--project", type=click.Path(path_type=Path, file_okay=False),
            help="Project folder: queries and qrels come from its campaign store.",
        ),
        click.option(
            "--run", "runs", multiple=True, required=True, metavar="[NAME=]FILE",
            help="TREC run file (repeatable); named by its tag unless NAME= is given.",
        ),
        *([click.option("--k", type=click.IntRange(min=1), default=10, show_default=True,
                        help="Rank cutoff.")] if k else []),
        click.option(
            "--ties", type=click.Choice(["file", "trec_eval"]), default="file", show_default=True,
            help="Equal scores keep run-file order, or trec_eval's doc id descending order.",
        ),
        *([click.option("--seed", type=int, default=11, show_default=True,
                        help="Seed of the bootstrap and randomization draws.")] if seed else []),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    ]  # fmt: skip

    def apply(f: Any) -> Any:
        for opt in reversed(opts):
            f = opt(f)
        return f

    return apply


_common = _common_options()


_bootstrap_opt = click.option(
    "--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
    help="Exact-family bootstrap replicates (0 = no intervals).",
)  # fmt: skip
_pair_opt = click.option(
    "--pair", "pairs", multiple=True, metavar="BASE:VARIANT",
    help="A declared contrast between two run names (repeatable).",
)  # fmt: skip
_draws_opt = click.option(
    "--draws", type=click.IntRange(min=1), default=10_000, show_default=True,
    help="Sign-flip randomization draws per test.",
)  # fmt: skip

_by_opt = click.option(
    "--by", "by", multiple=True, metavar="n|release|source|lmin:C1,C2|dplus:C1,C2",
    help="Slice by a task factor (repeatable; cut points for lmin and dplus): n-Clue / Gold Hit "
    "per cell, and paired effects per cell in compare.",
)  # fmt: skip
_pages_opt = click.option(
    "--pages", type=_path,
    help="pages.jsonl giving each document's page count for --by lmin (default: the project's).",
)  # fmt: skip


@click.group("score")
def score() -> None:
    """Score runs: n-Clue Score, Gold Hit, Gold-NDCG, NDCG; contrasts; qrel-revision impact;
    robustness (selection-adjusted blocks, slices, shared-document sensitivity, qrel bounds,
    condition drops)."""


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
def nclue_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, bootstrap: int, per_query: Path | None,
    by: tuple[str, ...], pages: Path | None, category: Path | None, manifest_out: Path | None,
    evidence: Path | None, support_pages: int,
) -> None:  # fmt: skip
    """n-Clue Score@k, Gold Hit, Gold-NDCG and NDCG of every run, with family-bootstrap CIs;
    page-level runs (doc_id#page) are scored as their documents' best pages, with Gold+Support."""
    from evaudit.commands.score_pages import PageRuns, support_report, support_text
    from evaudit.output import emit_json
    from scorers.runs import nclue_report
    from scorers.runs.tables import nclue_text

    files = [queries, qrels, pages, category, evidence]
    if manifest_out is not None:
        from evaudit.commands.score_manifest import check_score_manifest

        check_score_manifest(manifest_out, project, files, runs, per_query)
    qids, n = _load_queries(queries, project)
    frame, source = _load_qrels(qrels, project, "--qrels")
    bound = _bind(qids, n, frame, source, k)
    page_runs = PageRuns(set(frame["doc_id"]))
    (scored,) = _score_run_files(runs, [bound], ties, as_json, page_runs)
    rep = nclue_report(bound, scored, bootstrap=bootstrap, seed=seed)
    text = nclue_text(rep) if not as_json else ""
    tagged = list(zip(scored, [parse_run_spec(r)[1] for r in runs], strict=True))
    support = support_report(page_runs, tagged, frame, dict(zip(qids, n, strict=True)),
                             queries=queries, project=project, evidence=evidence, k=k,
                             pages=support_pages)  # fmt: skip
    if support is not None:
        rep["gold_support"] = support.to_json()
        text += "\n\n" + support_text(support) if not as_json else ""
    if category is not None:
        from evaudit.commands.score_robust import read_categories
        from scorers.runs.categories import category_report

        cats = category_report(rep, *read_categories(category, list(scored)))
        if not as_json:
            text = text.split("\n", 1)[0] + "\n" + cats.to_text(rep)
        rep.update(cats.to_json())
    if by:
        from evaudit.commands.score_robust import slices_for

        sl = slices_for(by, bound, scored, [], queries=queries, project=project, pages=pages,
                        bootstrap=bootstrap, seed=seed)  # fmt: skip
        rep["slices"] = sl.to_json()
        text += "\n\n" + sl.to_text()
    if per_query is not None:
        _write_per_query(per_query, bound, scored)
    rep["ties"] = ties
    emit_json(rep) if as_json else click.echo(_tie_line(ties) + "\n" + text)
    if manifest_out is not None:
        from evaudit.commands.score_manifest import write_score_manifest

        printed = rep if as_json else _tie_line(ties) + "\n" + text  # as echoed above
        write_score_manifest(manifest_out, printed, as_json, project=project, files=files,
                             runs=runs, per_query=per_query)  # fmt: skip


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
def compare_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, pairs: tuple[str, ...], draws: int,
    bootstrap: int, blocks: tuple[str, ...], by: tuple[str, ...], pages: Path | None,
    forms: tuple[str, ...],
) -> None:  # fmt: skip
    """Paired differences, sign-flip p (plain Holm across pairs), family CIs, common support;
    with --block, selection-adjusted p (Sel.+Holm); with --by, effects per slice."""
    from evaudit.output import emit_json
    from scorers.runs import compare_report
    from scorers.runs.tables import compare_text

    if not pairs and not blocks and not forms:
        raise InputError("no contrast given", hint="pass --pair BASE:VARIANT or --block ...")
    qids, n = _load_queries(queries, project)
    frame, source = _load_qrels(qrels, project, "--qrels")
    bound = _bind(qids, n, frame, source, k)
    (scored,) = _score_run_files(runs, [bound], ties, as_json)
    fm = None
    if forms:
        from scorers.form_matrix import form_matrix, parse_forms

        fm = form_matrix(parse_forms(forms, list(scored)), list(scored), pairs)
    pair_list = list(fm.run_pairs) if fm else _parse_pairs(pairs, list(scored))
    rep = compare_report(bound, scored, pair_list, draws=draws, bootstrap=bootstrap, seed=seed)
    parts = [compare_text(rep)] if pair_list else []
    if fm:
        rep["forms"] = fm.to_json(scored, rep)
        parts.append(fm.to_text(scored, rep))
    if blocks:
        from evaudit.commands.score_robust import parse_blocks
        from scorers.runs.selection import selection_report

        block_list = parse_blocks(blocks, list(scored))
        sel = selection_report(bound, scored, block_list, draws=draws, bootstrap=bootstrap,
                               seed=seed)  # fmt: skip
        rep["blocks"] = sel.to_json()["blocks"]
        parts.append(sel.to_text())
        pair_list = pair_list + [
            (b, v) for _, b, vs in block_list for v in vs if (b, v) not in pair_list
        ]
    if by:
        from evaudit.commands.score_robust import slices_for

        sl = slices_for(by, bound, scored, pair_list, queries=queries, project=project,
                        pages=pages, bootstrap=bootstrap, seed=seed)  # fmt: skip
        rep["slices"] = sl.to_json()
        parts.append(sl.to_text())
    rep["ties"] = ties
    emit_json(rep) if as_json else click.echo(_tie_line(ties) + "\n" + "\n\n".join(parts))


@score.command("impact")
@_common
@click.option("--qrels-before", type=_path, help="Qrels before revision; default: the project's.")
@click.option("--qrels-after", type=_path, required=True, help="Revised qrels (TREC or JSONL).")
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
    "--trec-measures", "trec_measures", multiple=True, metavar="M1,M2,...",
    help="Also report these trec_eval measures (as in `score trec`) before and after.",
)  # fmt: skip
@click.option(
    "--trec-ties", type=click.Choice(["trec_eval", "file"]), default="trec_eval",
    show_default=True, help="Tie rule of the --trec-measures values.",
)  # fmt: skip
def impact_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels_before: Path | None, qrels_after: Path, pairs: tuple[str, ...],
    draws: int, metric: str, keep_removed: bool, bootstrap: int, trec_measures: tuple[str, ...],
    trec_ties: str,
) -> None:  # fmt: skip
    """Every run under the qrels before and after a revision, ordering agreement, pair tests.

    With --trec-measures and neither --queries nor --project (a classic benchmark without
    conditions: BEIR, TREC), only those measures before and after are reported."""
    from evaudit.commands.score_trec import measures_of
    from evaudit.output import emit_json
    from scorers.runs import impact_report, label_changes, removed_queries
    from scorers.runs.tables import impact_text

    ms = measures_of(trec_measures) if trec_measures else []  # a bad name fails before any work
    if ms and queries is None and project is None:
        # A classic benchmark (no conditions): only the trec_eval measures, before and after.
        from evaudit.commands.score_trec import trec_impact

        if qrels_before is None:
            raise InputError("no qrels before", hint="pass --qrels-before FILE (or --project)")
        imp = trec_impact(qrels_before, qrels_after, runs, ms, trec_ties)
        emit_json({"trec_measures": imp.to_json()}) if as_json else click.echo(imp.to_text())
        return
    qids, n = _load_queries(queries, project)
    fb, sb = _load_qrels(qrels_before, project, "--qrels-before")
    fa, sa = _load_qrels(qrels_after, None, "--qrels-after")
    gone = set() if keep_removed else removed_queries(qids, fb, fa)
    kept = [(q, m) for q, m in zip(qids, n, strict=True) if q not in gone]
    before = _bind(qids, n, fb, sb, k)
    after = _bind([q for q, _ in kept], [m for _, m in kept], fa, sa, k)
    sc_b, sc_a = _score_run_files(runs, [before, after], ties, as_json)
    pair_list = _parse_pairs(pairs, list(sc_b))
    labels = label_changes(qids, n, fb, fa)
    rep = impact_report(
        before, after, sc_b, sc_a, labels, pair_list, metric=metric, draws=draws, seed=seed
    )
    from scorers.runs.impact_extra import impact_extras, source_slices

    by_source = None
    if pair_list:
        from evaudit.commands.score_robust import _query_attrs

        src = dict(zip(qids, _query_attrs(queries, project)[1], strict=True))
        by_source = source_slices(before, after, sc_b, sc_a, src, pair_list,
                                  bootstrap=bootstrap, seed=seed)  # fmt: skip
    extra = impact_extras(before, after, sc_b, sc_a, by_source)
    rep.update(extra.to_json() | {"labels_changed": rep["labels_changed"]})
    rep["ties"] = ties
    text = _tie_line(ties) + "\n" + impact_text(rep) + "\n\n" + extra.to_text()
    if ms:
        from evaudit.commands.score_trec import project_graded, trec_scores
        from packet_builder.any_qrels import read_any_qrels
        from scorers.trec_measures import TrecImpact

        # Original-scale files as they are (BEIR qrels.tsv too), or the project's original grades.
        if qrels_before is not None:
            ob = read_any_qrels(qrels_before)
        else:
            assert project is not None  # _load_qrels refused neither
            ob = project_graded(project)
        tb = trec_scores(ob, runs, ms, trec_ties, set(qids))
        ta = trec_scores(read_any_qrels(qrels_after), runs, ms, trec_ties, {q for q, _ in kept})
        imp = TrecImpact(ties=trec_ties, measures=[m.name for m in ms], before=tb, after=ta)
        rep["trec_measures"] = imp.to_json()
        text += "\n\n" + imp.to_text()
    emit_json(rep) if as_json else click.echo(text)


COMMANDS: list[click.Command] = [score]

# Registers `score sensitivity`, `score bound`, `score trec` on the group (those modules import
# this one).
from evaudit.commands import score_robust as _score_robust  # noqa: E402, F401
from evaudit.commands import score_trec as _score_trec  # noqa: E402, F401
