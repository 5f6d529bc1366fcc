"""The inputs of `evaudit score`: queries, qrels, page counts, conditions, evidence, runs.

Read at this edge from files (readers) or a project's campaign store (`campaign.store`
owns the SQL), then bound and scored with `scorers.runs`. Shared by the score services
(services/score.py, score_robust.py, score_trec.py).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress
from vocabulary.runspec import RunSpec, claim_run_name

if TYPE_CHECKING:
    import pandas as pd

    from scorers.runs import BoundQrels, PerQuery


@dataclass(frozen=True)
class ScoreSource:
    """What every score command reads: queries (a file or a project), the runs, a tie rule."""

    queries: Path | None
    project: Path | None
    runs: tuple[RunSpec, ...]
    ties: str = "file"

    @classmethod
    def from_options(
        cls, queries: Path | None, project: Path | None, runs: Sequence[str], ties: str
    ) -> ScoreSource:
        """The source of a command's options: --run values (NAME=FILE or FILE) parsed here."""
        from vocabulary.runspec import parse_run_spec

        return cls(queries, project, tuple(parse_run_spec(r) for r in runs), ties)


class ScoreReport(Protocol):
    """What every score service returns: the `--json` object, its table, the CLI's text."""

    def to_json(self) -> dict[str, Any]: ...

    def rows(self) -> list[dict[str, Any]]: ...

    def table(self) -> str: ...


def store_path(project: Path) -> Path:
    from campaign.project import open_project

    return open_project(project).store_path


def project_qrels(project: Path) -> pd.DataFrame:
    import pandas as pd

    from campaign import store

    rows = store.qrels_rows(store_path(project))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"])


def load_queries(queries: Path | None, project: Path | None) -> tuple[list[str], list[int]]:
    """(query ids, n conditions each) from a queries.jsonl or the project's store."""
    if queries is not None and project is not None:
        raise InputError("give either --queries or --project, not both")
    if queries is not None:
        from formats.readers import read_queries

        qs = read_queries(queries)
        return [q.query_id for q in qs], [q.n for q in qs]
    if project is not None:
        from campaign import store

        rows = store.query_sizes(store_path(project))
        if not rows:
            raise InputError(
                "the project has no queries", file=project, hint="load the benchmark into it first"
            )
        return [r[0] for r in rows], [r[1] for r in rows]
    raise InputError("no queries given", hint="pass --queries queries.jsonl or --project DIR")


def load_qrels(path: Path | None, project: Path | None, option: str) -> tuple[pd.DataFrame, str]:
    """Qrels and their source (the file, or the project's store) for error messages."""
    from formats.readers import read_qrels

    if path is not None:
        return read_qrels(path), str(path)
    if project is not None:
        return project_qrels(project), str(Path(project) / "audit.duckdb")
    raise InputError("no qrels given", hint=f"pass {option} FILE or --project DIR")


def bind(qids: list[str], n: list[int], qrels: pd.DataFrame, source: str, k: int) -> BoundQrels:
    """Check grades against each query's n (naming the file line), then bind."""
    import numpy as np

    from formats.readers import row_line
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


def score_run_files(
    runs: Sequence[RunSpec], bounds: list[BoundQrels], ties: str,
    progress: Progress = no_progress, page_runs: Any = None,
) -> list[dict[str, PerQuery]]:  # fmt: skip
    """Read and score each run file under every bound qrel copy; name runs by tag or NAME=.

    Two worker threads: pyarrow's reader and hash kernels release the GIL, so
    reading one file overlaps scoring another. Returns one {tag: PerQuery} per bound.
    """
    from formats.readers import read_run
    from scorers.runs import measure, rank_run

    def work(item: RunSpec) -> tuple[str, list[PerQuery]]:
        name, path = item
        df = read_run(path)
        if page_runs is not None:  # score nclue: a page-level run as its document run
            df = page_runs.collapse(path, df)
        cols = (df["query_id"], df["doc_id"], df["score"])
        scored = [measure(b, rank_run(b, *cols, ties=ties)) for b in bounds]  # type: ignore[arg-type]
        return name or str(df["tag"].iloc[0]), scored

    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = pool.map(work, runs)
        results = list(progress(jobs, total=len(runs), desc="scoring runs"))
    out: list[dict[str, PerQuery]] = [{} for _ in bounds]
    seen: dict[str, Path] = {}
    for (_, path), (tag, scored) in zip(runs, results, strict=True):
        claim_run_name(seen, tag, path)
        for i, pq in enumerate(scored):
            out[i][tag] = pq
    return out


def write_per_query(path: Path, bound: BoundQrels, scored: Any) -> None:
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


def query_attrs(queries: Path | None, project: Path | None) -> tuple[list[str], list[str]]:
    """(release, source) per query, in the order load_queries returns the queries."""
    if queries is not None:
        from formats.readers import read_queries

        qs = read_queries(queries)
        return [q.release for q in qs], [q.source for q in qs]
    assert project is not None
    from campaign import store

    rows = store.query_strata(store_path(project))
    return [r[0] for r in rows], [r[1] for r in rows]


def page_counts(pages: Path | None, project: Path | None) -> dict[str, int]:
    """Pages per document: a pages.jsonl (distinct pages per doc_id) or the store's documents."""
    if pages is not None:
        from vocabulary.jsonlines import json_lines

        seen: dict[str, set[Any]] = {}
        for lineno, obj in json_lines(pages):
            doc = obj.get("doc_id")
            if not isinstance(doc, str) or "page" not in obj:
                raise InputError(
                    "expected {\"doc_id\", \"page\", ...}", file=pages, line=lineno,
                    hint="give the corpus pages.jsonl",
                )  # fmt: skip
            seen.setdefault(doc, set()).add(obj["page"])
        return {d: len(p) for d, p in seen.items()}
    if project is not None:
        from campaign import store

        return store.document_pages(store_path(project))
    raise InputError(
        "--by lmin needs page counts", hint="pass --pages pages.jsonl or --project DIR"
    )


def conditions(queries: Path | None, project: Path | None) -> dict[str, list[str]]:
    """Condition ids of every query, in position order."""
    if queries is not None:
        from formats.readers import read_queries

        return {q.query_id: [c.condition_id for c in q.conditions] for q in read_queries(queries)}
    assert project is not None
    from campaign import store

    out: dict[str, list[str]] = {}
    with store.connect(store_path(project), read_only=True) as con:
        for q, c, *_ in store.condition_rows(con):
            out.setdefault(str(q), []).append(str(c))
    return out


def evidence_by_pair(
    path: Path | None, project: Path | None
) -> dict[tuple[str, str], dict[str, list[int]]]:
    """Construction evidence: (query, doc) -> condition -> pages (a file or the store's)."""
    out: dict[tuple[str, str], dict[str, list[int]]] = {}
    if path is not None:
        from formats.readers import read_evidence

        for _lineno, ev in read_evidence(path):
            out.setdefault((ev.query_id, ev.doc_id), {}).setdefault(ev.condition_id, []).extend(
                ev.pages
            )
        return out
    if project is None:
        raise InputError(
            "no evidence given", hint="pass --evidence evidence.jsonl or --project DIR"
        )
    from campaign import store

    with store.connect(store_path(project), read_only=True) as con:
        for q, d, c, page in store.evidence_rows(con):
            out.setdefault((str(q), str(d)), {}).setdefault(str(c), []).append(int(page))
    return out


def read_categories(path: Path, tags: list[str]) -> tuple[dict[str, str], set[str]]:
    """Lines `RUN CATEGORY [privileged]` (whitespace-separated; blank and # lines skipped)."""
    cats: dict[str, str] = {}
    privileged: set[str] = set()
    known = set(tags)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise InputError("category file not found", file=path) from exc
    for lineno, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) not in (2, 3) or (len(fields) == 3 and fields[2] != "privileged"):
            raise InputError(
                "expected `RUN CATEGORY` or `RUN CATEGORY privileged`", file=path, line=lineno
            )
        run, cat = fields[0], fields[1]
        if run not in known:
            raise InputError(
                f"run {run!r} is not among the scored runs", file=path, line=lineno,
                hint=f"run names: {', '.join(tags)}",
            )  # fmt: skip
        if run in cats:
            raise InputError(f"run {run!r} is listed twice", file=path, line=lineno)
        cats[run] = cat
        if len(fields) == 3:
            privileged.add(run)
    return cats, privileged
