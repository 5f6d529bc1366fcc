"""`evaudit runs bm25` and `runs floor`: baseline TREC runs made from the ingested corpus.

A team with a corpus and qrels but no runs makes the n-Clue paper's lexical baselines
(BM25 at document and page level, over each query form) and its floors here, then
scores, fuses and audits them like any other run. Units are the project's documents
(their pages' text joined in page order) or its pages with text (`doc_id#page`, the
page-run docno that Gold+Support and page aggregation read). Text is tokenized with the
project's one tokenizer (the BM25 route's: normalization, then \\w+ words; no stemming,
no stop words), so a run is the same on every machine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from campaign import store
from campaign.project import Project
from formats.run_files import PAGE_SEP, write_coded_run
from packet_builder.query_forms import FORMS, render
from packet_builder.query_store import stored_queries
from packet_builder.routes.base import tokenize
from packet_builder.token_codes import token_codes
from scorers.lexical import BM25Index, Ranked, frequency_prior, random_scores, top_units
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress
from vocabulary.tables import table

LEVELS = ("document", "page")


@dataclass(frozen=True)
class RunReport:
    """What one baseline run holds and how it was made."""

    out: str
    tag: str
    kind: str
    level: str
    params: dict[str, Any]
    units: int
    queries: int
    empty_queries: list[str]
    lines: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def rows(self) -> list[dict[str, object]]:
        return [{"run": self.tag, "kind": self.kind, "level": self.level, "units": self.units,
                 "queries": self.queries, "lines": self.lines}]  # fmt: skip

    def table(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.params.items())
        head = table([list(r.values()) for r in self.rows()], list(self.rows()[0]))
        text = f"{head}\nwrote {self.out} ({params})"
        if self.empty_queries:
            shown = ", ".join(self.empty_queries[:10])
            more = (
                f" and {len(self.empty_queries) - 10} more" if len(self.empty_queries) > 10 else ""
            )
            text += (f"\n{len(self.empty_queries)} queries have no line (no query word is in "
                     f"any unit): {shown}{more}")  # fmt: skip
        return text


def corpus_units(project: Project, level: str) -> tuple[list[str], list[str]]:
    """(unit ids, unit texts) in document then page order; pages without text are left out."""
    if level not in LEVELS:
        raise InputError(f"unknown level {level!r}", hint="use document or page")
    ids: list[str] = []
    texts: list[str] = []
    with store.connect(project.store_path, read_only=True) as con:
        for batch in store.page_batches(con):
            for doc_id, page, text in batch:
                if level == "page":
                    if text and text.strip():
                        ids.append(f"{doc_id}{PAGE_SEP}{page}")
                        texts.append(text)
                elif ids and ids[-1] == doc_id:
                    texts[-1] += "\n" + (text or "")
                else:
                    ids.append(str(doc_id))
                    texts.append(text or "")
    if not ids:
        raise InputError("the project has no ingested text", file=project.root,
                         hint="run `evaudit ingest` first")  # fmt: skip
    return ids, texts


def query_texts(project: Project, form: str) -> list[tuple[str, str]]:
    if form not in FORMS:
        raise InputError(f"unknown query form {form!r}", hint=f"use one of {', '.join(FORMS)}")
    queries = stored_queries(project)
    if not queries:
        raise InputError("the project has no queries", file=project.root,
                         hint="run `evaudit load` first")  # fmt: skip
    return [(q.query_id, render(q, form)) for q in queries]


def _write(
    out: Path, tag: str, unit_ids: list[str], ranked: Iterator[tuple[str, Ranked]]
) -> tuple[int, list[str]]:
    qids: list[str] = []
    counts: list[int] = []
    units: list[np.ndarray] = [np.empty(0, np.int64)]
    scores: list[np.ndarray] = [np.empty(0, np.float64)]
    empty: list[str] = []
    for qid, r in ranked:
        if not len(r.units):
            empty.append(qid)
            continue
        qids.append(qid)
        counts.append(len(r.units))
        units.append(r.units)
        scores.append(r.scores)
    if not out.parent.is_dir():
        raise InputError("the output folder does not exist", file=out, hint="create it first")
    # Lines as indices into the query and unit ids: the file is written in one Arrow pass.
    per_query = np.asarray(counts, dtype=np.int64)
    query_of = np.repeat(np.arange(len(qids)), per_query)
    first = np.repeat(np.cumsum(per_query) - per_query, per_query)
    ranks = np.arange(1, len(query_of) + 1) - first
    lines = write_coded_run(out, qids, query_of, unit_ids, np.concatenate(units), ranks,
                            np.concatenate(scores), tag)  # fmt: skip
    return lines, empty


def bm25_run(
    where: ProjectRef, out: Path, *, level: str = "document", form: str = "raw",
    k1: float = 0.9, b: float = 0.4, depth: int = 1000, method: str = "lucene",
    tag: str | None = None, progress: Progress = no_progress,
) -> RunReport:  # fmt: skip
    """Rank the project's units for every query with BM25 and write the TREC run (`where`:
    the project or its folder)."""
    project = project_at(where)
    queries = query_texts(project, form)
    unit_ids, texts = corpus_units(project, level)
    # Every unit's tokens as codes in one pass: a Python string per word was most of the time.
    corpus = token_codes(texts)
    del texts
    index = BM25Index.from_codes(corpus.codes, corpus.offsets, corpus.vocab, k1=k1, b=b,
                                 method=method)  # fmt: skip
    del corpus
    tag = tag or f"bm25_{level}_{form}"

    def ranked() -> Iterator[tuple[str, Ranked]]:
        for qid, text in progress(queries, total=len(queries), desc="bm25"):
            yield qid, index.rank(tokenize(text), depth)

    lines, empty = _write(out, tag, unit_ids, ranked())
    params = {"form": form, "k1": k1, "b": b, "method": method, "depth": depth}
    return RunReport(str(out), tag, "bm25", level, params, len(unit_ids), len(queries), empty,
                     lines)  # fmt: skip


def floor_run(
    where: ProjectRef, out: Path, *, kind: str, seed: int = 0, depth: int = 1000,
    level: str = "document", tag: str | None = None, progress: Progress = no_progress,
) -> RunReport:  # fmt: skip
    """A query-blind floor: `frequency` (units by how many queries judge them relevant)
    or `random` (a seeded permutation per query); `where`: the project or its folder."""
    if kind not in ("frequency", "random"):
        raise InputError(f"unknown floor {kind!r}", hint="use frequency or random")
    if kind == "frequency" and level != "document":
        raise InputError("the frequency floor ranks documents (qrels judge documents)",
                         hint="pass --level document")  # fmt: skip
    project = project_at(where)
    queries = query_texts(project, "raw")
    unit_ids, _ = corpus_units(project, level)
    if kind == "frequency":
        counts = Counter(d for _, d, g in store.qrels_rows(project.store_path) if g >= 1)
        prior = top_units(frequency_prior(unit_ids, counts), depth, keep_zero=True)

    def ranked() -> Iterator[tuple[str, Ranked]]:
        for qid, _text in progress(queries, total=len(queries), desc=kind):
            if kind == "frequency":
                yield qid, prior
            else:
                yield qid, top_units(random_scores(len(unit_ids), seed, qid), depth,
                                     keep_zero=True)  # fmt: skip

    tag = tag or f"{kind}_floor"
    lines, empty = _write(out, tag, unit_ids, ranked())
    params: dict[str, Any] = {"depth": depth}
    if kind == "random":
        params["seed"] = seed
    return RunReport(str(out), tag, kind, level, params, len(unit_ids), len(queries), empty,
                     lines)  # fmt: skip
