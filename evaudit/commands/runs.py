"""`evaudit runs`: fuse runs (RRF, CombSUM, CombMNZ), compose per-condition runs, Gold+Support.

Files are read and written here (packet_builder readers and run_files); the
rules are pure functions in scorers.fusion, scorers.compose and
scorers.gold_support (docs/runs.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from vocabulary.errors import InputError
from vocabulary.runspec import claim_run_name, parse_run_spec

if TYPE_CHECKING:
    from scorers.fusion import RunInput

_path = click.Path(path_type=Path, dir_okay=False)


def _read_runs(
    specs: tuple[str, ...], check_pairs: bool = True, compact: bool = False
) -> list[RunInput]:
    """Read every run (file order kept); named by NAME= or the tag of its first line."""
    from packet_builder.run_files import read_run_columns
    from scorers.fusion import RunInput

    out: list[RunInput] = []
    seen: dict[str, Path] = {}
    for spec in specs:
        name, path = parse_run_spec(spec)
        qids, dids, scores, tag = read_run_columns(path, check_pairs=check_pairs, compact=compact)
        name = name or tag
        claim_run_name(seen, name, path)
        out.append(RunInput(name, qids, dids, scores))
    return out


def _check_out(out: Path, inputs: list[Path]) -> None:
    if any(out.resolve() == p.resolve() for p in inputs if p.exists()):
        raise InputError("the output would overwrite an input run", file=out,
                         hint="choose another --out")  # fmt: skip
    if not out.parent.is_dir():
        raise InputError("the output folder does not exist", file=out, hint="create it first")


@click.group("runs")
def runs() -> None:
    """Operate on runs: fusion (RRF, CombSUM, CombMNZ), per-condition composition, Gold+Support."""


@runs.command("fuse")
@click.option(
    "--method", type=click.Choice(["rrf", "combsum", "combmnz"]), default="rrf",
    show_default=True,
    help="rrf: sum of 1/(k+rank); combsum/combmnz: sum of min-max scores (x runs listing it).",
)  # fmt: skip
@click.option("--k", type=click.IntRange(min=0), default=60, show_default=True,
              help="RRF constant k (rrf only).")  # fmt: skip
@click.option("--depth", type=click.IntRange(min=1), default=100, show_default=True,
              help="Documents taken from each run per query, and kept in the fused run.")  # fmt: skip
@click.option("--run", "run_specs", multiple=True, required=True, metavar="[NAME=]FILE",
              help="TREC run to fuse (repeatable, at least two; equal weights).")  # fmt: skip
@click.option("--out", type=_path, required=True, help="Fused TREC run to write.")
@click.option("--tag", default=None, help="Tag column of the fused run (default: METHOD_fused).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def fuse_cmd(
    method: str, k: int, depth: int, run_specs: tuple[str, ...], out: Path, tag: str | None,
    as_json: bool,
) -> None:  # fmt: skip
    """Fuse runs with equal weights; ties keep first appearance over the runs in the order given."""
    from dataclasses import replace

    from evaudit.output import emit_json
    from packet_builder.run_files import write_run
    from scorers.fusion import RepeatedPair, fuse_columns

    if len(run_specs) < 2:
        raise InputError("fusion needs at least two runs", hint="pass --run twice or more")
    _check_out(out, [parse_run_spec(s)[1] for s in run_specs])
    # RRF finds a repeated (query, document) pair in its own sort; the reader then names
    # the line, as it does for the other methods up front.
    inputs = _read_runs(run_specs, check_pairs=method != "rrf", compact=True)
    try:
        ranked, report = fuse_columns(inputs, method=method, k=k, depth=depth)
    except RepeatedPair as exc:
        from packet_builder.readers import read_run

        read_run(parse_run_spec(run_specs[exc.run])[1])
        raise
    tag = tag or f"{method}_fused"
    write_run(out, ranked.query_id, ranked.doc_id, ranked.rank, ranked.score, tag)
    report = replace(report, out=str(out), tag=tag)
    if as_json:
        emit_json(report.to_json())
        return
    names = ", ".join(r.name for r in report.runs)
    setting = f"k={k}, " if method == "rrf" else "min-max, "
    click.echo(f"{method} ({setting}depth {depth}) of {names}: {report.queries} queries, "
               f"{report.rows} rows written to {out} (tag {tag})")  # fmt: skip


@runs.command("compose")
@click.option("--queries", "queries_file", type=_path, required=True,
              help="queries.jsonl: each query's conditions, in order.")  # fmt: skip
@click.option(
    "--method", type=click.Choice(["min", "product", "harmonic", "injective"]), required=True,
    help="Combine min-max condition scores by min, product or harmonic mean; injective: best "
         "distinct-page assignment of page scores (docno doc_id#page).",
)  # fmt: skip
@click.option("--run", "run_file", type=_path, required=True, metavar="FILE",
              help="Per-condition TREC run: query id QUERY_ID::CONDITION_ID.")  # fmt: skip
@click.option("--depth", type=click.IntRange(min=1), default=100, show_default=True,
              help="Entries taken from each condition list, and documents kept per query.")  # fmt: skip
@click.option("--floor", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Score of a condition whose list lacks the document (or that takes no page).")  # fmt: skip
@click.option("--out", type=_path, required=True, help="Composed TREC run to write.")
@click.option(
    "--tag", default=None, help="Tag column of the composed run (default: compose_METHOD)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def compose_cmd(
    queries_file: Path, method: str, run_file: Path, depth: int, floor: float, out: Path,
    tag: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Compose per-condition runs into one document run (min, product, harmonic, injective)."""
    from dataclasses import replace

    from evaudit.output import emit_json
    from packet_builder.readers import read_queries, read_run, row_line
    from packet_builder.run_files import split_page_ids, write_run
    from scorers.compose import compose, split_condition_ids

    _check_out(out, [run_file, queries_file])
    conditions = {q.query_id: [c.condition_id for c in q.conditions]
                  for q in read_queries(queries_file)}  # fmt: skip
    df = read_run(run_file)
    qs, cs, bad = split_condition_ids(df["query_id"].tolist(), conditions)
    if bad is not None:
        raise InputError(
            f"query id {df['query_id'].iloc[bad]!r} is not QUERY_ID::CONDITION_ID of a known "
            "query and condition", file=run_file, line=row_line(run_file, bad),
            hint="name each condition list by its query id, '::' and its condition id",
        )  # fmt: skip
    docs, pages = df["doc_id"].tolist(), None
    if method == "injective":
        doc_arr, page_arr = split_page_ids(docs, str(run_file))
        docs, pages = doc_arr.tolist(), page_arr.tolist()
    ranked, report = compose(qs, cs, docs, df["score"].to_numpy(), conditions, method=method,
                             depth=depth, floor=floor, pages=pages)  # fmt: skip
    tag = tag or f"compose_{method}"
    write_run(out, ranked.query_id, ranked.doc_id, ranked.rank, ranked.score, tag)
    report = replace(report, out=str(out), tag=tag)
    if as_json:
        emit_json(report.to_json())
        return
    click.echo(f"{method} of {report.condition_lists} condition lists: {report.queries} queries "
               f"({report.queries_without_lists} without lists), {report.rows} rows written to "
               f"{out} (tag {tag})")  # fmt: skip


def _gold(qrels: Path, nmap: dict[str, int]) -> dict[str, set[str]]:
    """Gold documents (grade = the query's n); a grade above n names its file line."""
    from packet_builder.readers import read_qrels, row_line

    frame = read_qrels(qrels)
    gold: dict[str, set[str]] = {}
    for i, (q, d, g) in enumerate(zip(frame["query_id"], frame["doc_id"], frame["grade"],
                                      strict=True)):  # fmt: skip
        if q not in nmap:
            continue
        if g > nmap[q]:
            raise InputError(f"grade {g} for query {q!r} exceeds its {nmap[q]} conditions",
                             file=qrels, line=row_line(qrels, i),
                             hint="grades are clue counts 0..n")  # fmt: skip
        if g == nmap[q]:
            gold.setdefault(q, set()).add(d)
    return gold


@runs.command("support")
@click.option("--queries", "queries_file", type=_path, required=True, help="queries.jsonl.")
@click.option("--qrels", type=_path, required=True, help="Qrels (TREC or JSONL); gold = grade n.")
@click.option("--evidence", type=_path, required=True,
              help="Stored evidence JSONL {query_id, doc_id, condition_id, pages}.")  # fmt: skip
@click.option("--run", "run_specs", multiple=True, required=True, metavar="[NAME=]FILE",
              help="Page-level TREC run, docno doc_id#page (repeatable).")  # fmt: skip
@click.option("--k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Document cutoff of the retrieved golds.")  # fmt: skip
@click.option("--pages", type=click.IntRange(min=1), default=3, show_default=True,
              help="Highest-scoring distinct pages kept per retrieved gold.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def support_cmd(
    queries_file: Path, qrels: Path, evidence: Path, run_specs: tuple[str, ...], k: int,
    pages: int, as_json: bool,
) -> None:  # fmt: skip
    """Gold+Support@k of page-level runs and page coverage given a retrieved gold (Table S5b)."""
    from evaudit.output import emit_json
    from packet_builder.readers import read_evidence, read_queries
    from packet_builder.run_files import split_page_ids
    from scorers.gold_support import SupportReport, run_support
    from vocabulary.tables import table

    parsed = read_queries(queries_file)
    conditions = {q.query_id: [c.condition_id for c in q.conditions] for q in parsed}
    gold = _gold(qrels, {q.query_id: q.n for q in parsed})
    ev: dict[tuple[str, str, str], set[int]] = {}
    for _, e in read_evidence(evidence):
        ev.setdefault((e.query_id, e.doc_id, e.condition_id), set()).update(e.pages)
    specs = [parse_run_spec(s) for s in run_specs]
    scores = {}
    for run, (_, path) in zip(_read_runs(run_specs), specs, strict=True):
        docs, page_nos = split_page_ids(run.doc_id.to_pylist(), str(path))
        qids = run.query_id.to_pylist()
        scores[run.name] = run_support(qids, docs.tolist(), page_nos.tolist(), run.score,
                                       conditions, gold, ev, k=k, pages=pages)  # fmt: skip
    report = SupportReport(k, pages, len(conditions), scores)
    if as_json:
        emit_json(report.to_json())
        return

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{100 * v:.1f}"

    rows = [(name, pct(s.gold_support), pct(s.gold_hit), pct(s.condition_coverage),
             pct(s.all_condition_coverage)) for name, s in scores.items()]  # fmt: skip
    click.echo(f"Gold+Support@{k} ({pages} pages per retrieved gold), {len(conditions)} queries")
    click.echo(table(rows, ["run", "Gold+Support", "Gold Hit", "cond. coverage | gold",
                            "all-cond. coverage | gold"]))  # fmt: skip


COMMANDS: list[click.Command] = [runs]


def _add_baselines() -> None:
    from evaudit.commands.runs_baseline import bm25_cmd, floor_cmd

    runs.add_command(bm25_cmd)
    runs.add_command(floor_cmd)


_add_baselines()
