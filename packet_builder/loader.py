"""`evaudit load`: validate a benchmark against the corpus and store it in one transaction.

Cross-checks (each reported as file:line): unknown query or document ids,
grades outside 0..n, evidence for unknown conditions or pages outside the
document, run lines for unknown queries or documents. Nothing is written
unless every file is valid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from campaign import store, store_load
from campaign.project import Project
from formats.classic import CONDITION_ID, ClassicBenchmark, audit_grades
from formats.qrels import read_qrels
from formats.readers import read_evidence, read_queries, read_run, row_line
from formats.records import Query
from vocabulary.errors import InputError


@dataclass
class LoadResult:
    queries: int
    conditions: int
    qrels: int
    evidence: int  # evidence records: (query, document, condition) lines of evidence.jsonl
    evidence_pages: int  # their page rows (one per listed page)
    runs: dict[str, int]
    graded: dict[str, Any] | None = None  # classic benchmarks: the grade scale and row counts
    check: dict[str, int] | None = None  # counts of `evaudit check` on what was stored
    require_cross_page: bool = False  # the benchmark's requirement, as recorded
    explained_by_cross_page: int = 0  # grade mismatches that requirement would explain

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "queries": self.queries,
            "conditions": self.conditions,
            "qrels": self.qrels,
            "evidence": self.evidence,
            "evidence_pages": self.evidence_pages,
            "runs": self.runs,
        }
        if self.graded is not None:
            out["graded"] = self.graded
        if self.check is not None:
            out["check"] = self.check
            out["require_cross_page"] = self.require_cross_page
            out["explained_by_cross_page"] = self.explained_by_cross_page
        return out


def _corpus(project: Project) -> dict[str, int]:
    with store.connect(project.store_path, read_only=True) as con:
        return store_load.page_counts(con)


def _stored_queries(project: Project) -> dict[str, tuple[int, set[str]]]:
    with store.connect(project.store_path, read_only=True) as con:
        n, rows = store_load.query_conditions(con)
    conds: dict[str, set[str]] = {q: set() for q in n}
    for q, c in rows:
        conds[q].add(c)
    return {q: (n[q], conds[q]) for q in n}


def _first_bad(mask: pd.Series) -> int | None:
    idx = mask.to_numpy().nonzero()[0]
    return int(idx[0]) if len(idx) else None


def _check_ids(df: pd.DataFrame, path: Path, qinfo: dict[str, Any], docs: dict[str, int]) -> None:
    checks = [
        ("query_id", qinfo, "unknown query id", "it is not in the queries file"),
        ("doc_id", docs, "unknown document id", "ingest the document first, or fix the id"),
    ]
    for column, known, what, hint in checks:
        i = _first_bad(~df[column].isin(list(known)))
        if i is not None:
            raise InputError(
                f"{what} {df[column].iloc[i]!r}", file=path, line=row_line(path, i), hint=hint
            )


def _check_graded_docs(classic: ClassicBenchmark, docs: dict[str, int]) -> None:
    """A classic qrels row for a document the corpus lacks, named by its own file line."""
    bad = ~classic.graded["doc_id"].isin(list(docs))
    if bad.any():
        row = classic.graded[bad].iloc[0]
        raise InputError(
            f"unknown document id {row['doc_id']!r}",
            file=classic.qrels_path,
            line=int(row["line"]),
            hint="ingest the corpus first (`evaudit ingest --beir/--trec-docs`), or fix the id",
        )


def load_benchmark(
    project: Project,
    *,
    queries: Path | None = None,
    qrels: Path | None = None,
    evidence: Path | None = None,
    runs: dict[str, Path] | None = None,
    classic: ClassicBenchmark | None = None,
    require_cross_page: bool | None = None,
) -> LoadResult:
    """Load n-Clue files (queries, qrels, evidence) or a classic benchmark, and runs.

    A classic benchmark replaces queries, qrels and evidence: each relevant pair gets
    construction evidence on every page of its document (a classic label names the
    document, not a page). `require_cross_page` records the benchmark's requirement
    (None keeps the recorded one); the label check then runs exactly as `evaudit check`."""
    runs = runs or {}
    docs = _corpus(project)
    if not docs:
        raise InputError(
            "the corpus is empty", file=project.store_path, hint="run `evaudit ingest` first"
        )
    if classic is not None and (queries or qrels or evidence):
        raise InputError(
            "a BEIR or TREC benchmark brings its own queries and qrels",
            hint="drop --queries, --qrels and --evidence",
        )
    query_list: list[Query] | None = read_queries(queries) if queries is not None else None
    if classic is not None:
        query_list = classic.queries
    if query_list is not None:
        qinfo = {q.query_id: (q.n, {c.condition_id for c in q.conditions}) for q in query_list}
    else:
        qinfo = _stored_queries(project)
        if not qinfo:
            raise InputError("no queries loaded yet", hint="pass --queries Q.jsonl")
        if qrels is None and evidence is None and not runs and require_cross_page is None:
            raise InputError(
                "nothing to load",
                hint="pass --queries, --qrels, --evidence, --run or --require-cross-page",
            )

    qrel_df = None
    if qrels is not None:
        qrel_df = read_qrels(qrels)
        _check_ids(qrel_df, qrels, qinfo, docs)
        n = qrel_df["query_id"].map(lambda q: qinfo[q][0])
        i = _first_bad((qrel_df["grade"] < 0) | (qrel_df["grade"] > n))
        if i is not None:
            raise InputError(
                f"grade {qrel_df['grade'].iloc[i]} is outside 0..{n.iloc[i]} for query "
                f"{qrel_df['query_id'].iloc[i]!r}",
                file=qrels,
                line=row_line(qrels, i),
                hint="grade is the number of conditions the document satisfies",
            )
        qrel_df = qrel_df[qrel_df["grade"] > 0].reset_index(drop=True)

    ev_rows: list[tuple[str, str, str, int]] = []
    if classic is not None:
        _check_graded_docs(classic, docs)
        qrel_df = audit_grades(classic.graded, classic.scale.relevant_from, classic.qrels_path)
        ev_rows = [
            (q, d, CONDITION_ID, p)
            for q, d in zip(qrel_df["query_id"], qrel_df["doc_id"], strict=True)
            for p in range(1, docs[d] + 1)
        ]
    if evidence is not None:
        seen: dict[tuple[str, str, str], int] = {}
        for lineno, ev in read_evidence(evidence):
            if ev.query_id not in qinfo:
                raise InputError(f"unknown query id {ev.query_id!r}", file=evidence, line=lineno)
            if ev.doc_id not in docs:
                raise InputError(f"unknown document id {ev.doc_id!r}", file=evidence, line=lineno)
            if ev.condition_id not in qinfo[ev.query_id][1]:
                raise InputError(
                    f"query {ev.query_id!r} has no condition {ev.condition_id!r}",
                    file=evidence,
                    line=lineno,
                )
            key = (ev.query_id, ev.doc_id, ev.condition_id)
            if key in seen:
                raise InputError(
                    f"duplicate evidence for {key} (first on line {seen[key]})",
                    file=evidence,
                    line=lineno,
                )
            seen[key] = lineno
            n_pages = docs[ev.doc_id]
            for p in ev.pages:
                if p < 1 or p > n_pages:
                    raise InputError(
                        f"page {p} is outside document {ev.doc_id!r} (pages 1..{n_pages})",
                        file=evidence,
                        line=lineno,
                    )
            ev_rows.extend((*key, p) for p in sorted(set(ev.pages)))

    run_frames: dict[str, pd.DataFrame] = {}
    for name, rpath in sorted(runs.items()):
        df = read_run(rpath)
        _check_ids(df, rpath, qinfo, docs)
        df.insert(0, "run_name", name)
        df["position"] = range(len(df))
        run_frames[name] = df

    with store.transaction(project.store_path) as con:
        if query_list is not None:
            _replace_queries(con, query_list)
        if qrel_df is not None:
            store_load.replace_qrels(con, qrel_df[["query_id", "doc_id", "grade"]])
        if query_list is not None or qrel_df is not None:
            _replace_graded(con, classic)
        if evidence is not None or classic is not None:
            store_load.replace_evidence(
                con,
                pd.DataFrame(ev_rows, columns=["query_id", "doc_id", "condition_id", "page"])
                if ev_rows
                else None,
            )
        for name, df in run_frames.items():
            store_load.replace_run(con, name, df)
        if require_cross_page is not None:
            store_load.set_require_cross_page(con, require_cross_page)
    from packet_builder.label_check import check

    # `evaudit check` itself on what is now stored (never refuses the load), so the two
    # report the same counts.
    checked = check(project)
    return LoadResult(
        check=checked.to_json()["counts"],
        require_cross_page=checked.require_cross_page,
        explained_by_cross_page=checked.explained_by_cross_page,
        queries=len(query_list) if query_list is not None else 0,
        conditions=sum(q.n for q in query_list) if query_list is not None else 0,
        qrels=0 if qrel_df is None else len(qrel_df),
        evidence=len({(q, d, c) for q, d, c, _p in ev_rows}),
        evidence_pages=len(ev_rows),
        runs={k: len(v) for k, v in run_frames.items()},
        graded=None if classic is None else _graded_counts(classic),
    )


def _graded_counts(classic: ClassicBenchmark) -> dict[str, Any]:
    grades = classic.graded["grade"]
    return {
        **classic.scale.to_json(),
        "rows": len(grades),
        "by_grade": {str(g): int((grades == g).sum()) for g in classic.scale.grades},
    }


def _replace_graded(con: Any, classic: ClassicBenchmark | None) -> None:
    """The original graded qrels and their scale; cleared when n-Clue files replace them."""
    if classic is None:
        store_load.replace_graded(con, None, None)
    else:
        store_load.replace_graded(
            con,
            classic.graded[["query_id", "doc_id", "grade"]],
            json.dumps(classic.scale.to_json()),
        )


def _replace_queries(con: Any, query_list: list[Query]) -> None:
    q_df = pd.DataFrame(
        [(q.query_id, q.text, q.release, q.source, q.n, i) for i, q in enumerate(query_list)],
        columns=["query_id", "text", "release", "source", "n", "position"],
    )
    c_df = pd.DataFrame(
        [
            (
                q.query_id,
                c.condition_id,
                pos,
                c.name,
                c.requirement,
                json.dumps(list(c.counts), ensure_ascii=False),
                json.dumps(list(c.does_not_count), ensure_ascii=False),
                c.note,
                json.dumps(list(c.aliases), ensure_ascii=False),
            )
            for q in query_list
            for pos, c in enumerate(q.conditions, start=1)
        ],
        columns=[
            "query_id",
            "condition_id",
            "position",
            "name",
            "requirement",
            "counts",
            "does_not_count",
            "note",
            "aliases",
        ],
    )
    store_load.replace_queries(con, q_df, c_df)


def status(project: Project) -> dict[str, int]:
    """Counts for `evaudit status` (gold = grade n, subset = 1..n-1). `pages` are the stored
    pages; with extraction records, the page kinds `ingest` and `gate` report follow it
    (source_gate.page_kinds: pages_expected, pages_extracted, pages_empty, pages_skipped,
    summed over sources)."""
    from campaign import store_corpus

    with store.connect(project.store_path, read_only=True) as con:
        counts = store_load.status_counts(con)
        totals = store_corpus.page_totals(con)
    if not totals:
        return counts
    sums = [sum(int(r[i] or 0) for r in totals) for i in range(1, 7)]
    _docs, _skipped_docs, expected, stored, extracted, skipped = sums
    kinds = {
        "pages_expected": expected,
        "pages_extracted": extracted,
        "pages_empty": stored - extracted,
        "pages_skipped": skipped,
    }
    out: dict[str, int] = {}
    for key, value in counts.items():
        out[key] = value
        if key == "pages":
            out.update(kinds)
    return out
