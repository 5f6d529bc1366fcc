"""`evaudit runs fuse | compose | support`: fuse runs, compose per-condition runs, Gold+Support.

Files are read and written here (packet_builder readers and run_files); the rules are
pure functions in scorers.fusion, scorers.compose and scorers.gold_support
(docs/runs.md). Each service returns a report wrapping the scorer's typed report, whose
`to_json()` is the `--json` object and `table()` the text the command prints.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vocabulary.errors import InputError
from vocabulary.runspec import claim_run_name, parse_run_spec

if TYPE_CHECKING:
    from scorers.compose import ComposeReport
    from scorers.fusion import FuseReport, RunInput
    from scorers.gold_support import SupportReport


def read_runs(
    specs: tuple[str, ...], check_pairs: bool = True, compact: bool = False
) -> list[RunInput]:
    """Read every run (file order kept); named by NAME= or the tag of its first line.

    The files are parsed two at a time (Arrow's reader leaves the GIL), each on one
    thread; results, names and errors are taken in the order given, so the first bad
    run reported is the one a one-by-one read would report.
    """
    from concurrent.futures import ThreadPoolExecutor

    from formats.run_files import read_run_columns
    from scorers.fusion import RunInput

    parsed = [parse_run_spec(spec) for spec in specs]

    def read(path: Path) -> tuple[Any, Any, Any, str]:
        return read_run_columns(path, check_pairs=check_pairs, compact=compact)

    out: list[RunInput] = []
    seen: dict[str, Path] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for (name, path), (qids, dids, scores, tag) in zip(
            parsed, pool.map(read, [p for _, p in parsed]), strict=True
        ):
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


@dataclass(frozen=True)
class FuseRunsReport:
    """`runs fuse`: the fusion's report (scorers.fusion.FuseReport, with out and tag)."""

    report: FuseReport

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def table(self) -> str:
        r = self.report
        names = ", ".join(x.name for x in r.runs)
        setting = f"k={r.k}, " if r.method == "rrf" else "min-max, "
        return (f"{r.method} ({setting}depth {r.depth}) of {names}: {r.queries} queries, "
                f"{r.rows} rows written to {r.out} (tag {r.tag})")  # fmt: skip


def fuse_runs(
    run_specs: tuple[str, ...], out: Path, *, method: str, k: int, depth: int, tag: str | None
) -> FuseRunsReport:
    """Fuse the runs with equal weights and write the fused run to `out` (atomically)."""
    from formats.run_files import write_run
    from scorers.fusion import RepeatedPair, fuse_columns

    if len(run_specs) < 2:
        raise InputError("fusion needs at least two runs", hint="pass --run twice or more")
    _check_out(out, [parse_run_spec(s)[1] for s in run_specs])
    # RRF finds a repeated (query, document) pair in its own sort; the reader then names
    # the line, as it does for the other methods up front.
    inputs = read_runs(run_specs, check_pairs=method != "rrf", compact=True)
    try:
        fused, report = fuse_columns(inputs, method=method, k=k, depth=depth)
    except RepeatedPair as exc:
        from formats.readers import read_run

        read_run(parse_run_spec(run_specs[exc.run])[1])
        raise
    tag = tag or f"{method}_fused"
    write_run(out, fused.query_id, fused.doc_id, fused.rank, fused.score, tag)
    return FuseRunsReport(replace(report, out=str(out), tag=tag))


@dataclass(frozen=True)
class ComposeRunsReport:
    """`runs compose`: the composition's report (scorers.compose.ComposeReport)."""

    report: ComposeReport

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def table(self) -> str:
        r = self.report
        return (f"{r.method} of {r.condition_lists} condition lists: {r.queries} queries "
                f"({r.queries_without_lists} without lists), {r.rows} rows written to "
                f"{r.out} (tag {r.tag})")  # fmt: skip


def compose_runs(
    queries_file: Path, run_file: Path, out: Path, *, method: str, depth: int, floor: float,
    tag: str | None,
) -> ComposeRunsReport:  # fmt: skip
    """Compose a per-condition run (query ids QUERY_ID::CONDITION_ID) into a document run."""
    from formats.readers import read_queries, read_run, row_line
    from formats.run_files import split_page_ids, write_run
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
    return ComposeRunsReport(replace(report, out=str(out), tag=tag))


def _gold(qrels: Path, nmap: dict[str, int]) -> dict[str, set[str]]:
    """Gold documents (grade = the query's n); a grade above n names its file line."""
    from formats.qrels import read_qrels
    from formats.readers import row_line

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


@dataclass(frozen=True)
class SupportRunsReport:
    """`runs support`: Gold+Support@k per run (scorers.gold_support.SupportReport)."""

    report: SupportReport

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def table(self) -> str:
        from vocabulary.tables import table

        def pct(v: float | None) -> str:
            return "n/a" if v is None else f"{100 * v:.1f}"

        r = self.report
        rows = [(name, pct(s.gold_support), pct(s.gold_hit), pct(s.condition_coverage),
                 pct(s.all_condition_coverage)) for name, s in r.runs.items()]  # fmt: skip
        head = f"Gold+Support@{r.k} ({r.pages} pages per retrieved gold), {r.queries} queries"
        return head + "\n" + table(rows, ["run", "Gold+Support", "Gold Hit",
                                          "cond. coverage | gold", "all-cond. coverage | gold"])  # fmt: skip


def support_runs(
    queries_file: Path, qrels: Path, evidence: Path, run_specs: tuple[str, ...], *, k: int,
    pages: int,
) -> SupportRunsReport:  # fmt: skip
    """Gold+Support@k of page-level runs and page coverage given a retrieved gold."""
    from formats.readers import read_evidence, read_queries
    from formats.run_files import split_page_ids
    from scorers.gold_support import SupportReport, run_support

    parsed = read_queries(queries_file)
    conditions = {q.query_id: [c.condition_id for c in q.conditions] for q in parsed}
    gold = _gold(qrels, {q.query_id: q.n for q in parsed})
    ev: dict[tuple[str, str, str], set[int]] = {}
    for _, e in read_evidence(evidence):
        ev.setdefault((e.query_id, e.doc_id, e.condition_id), set()).update(e.pages)
    specs = [parse_run_spec(s) for s in run_specs]
    scores = {}
    for run, (_, path) in zip(read_runs(run_specs), specs, strict=True):
        docs, page_nos = split_page_ids(run.doc_id.to_pylist(), str(path))
        qids = run.query_id.to_pylist()
        scores[run.name] = run_support(qids, docs.tolist(), page_nos.tolist(), run.score,
                                       conditions, gold, ev, k=k, pages=pages)  # fmt: skip
    return SupportRunsReport(SupportReport(k, pages, len(conditions), scores))
