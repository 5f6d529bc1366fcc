"""Read the benchmark and the page corpus out of the campaign store (the builder's input edge).

The SQL is `campaign.store`'s; this module turns its rows into the builder's records."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from campaign import store
from formats.records import Condition, Query
from packet_builder.routes.base import Corpus


@dataclass
class Benchmark:
    queries: dict[str, Query]
    qrels: dict[tuple[str, str], int]  # nonzero grades
    evidence: list[tuple[str, str, str, int]]
    files: dict[str, str]  # doc_id -> name of its own PDF / OCR folder (admin key only)
    n_pages: dict[str, int]  # doc_id -> pages in the store


def _json_list(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    value = json.loads(text)
    return tuple(str(v) for v in value) if isinstance(value, list) else (str(value),)


def read_benchmark(con: store.Connection) -> Benchmark:
    conds: dict[str, list[Condition]] = {}
    for row in store.condition_rows(con):
        conds.setdefault(row[0], []).append(
            Condition(
                condition_id=row[1],
                name=row[2] or "",
                requirement=row[3] or "",
                counts=_json_list(row[4]),
                does_not_count=_json_list(row[5]),
                note=row[6] or "",
                aliases=_json_list(row[7]),
            )
        )
    queries = {
        qid: Query(qid, text or "", tuple(conds.get(qid, ())), release or "", source or "")
        for qid, text, release, source in store.query_rows(con)
    }
    qrels = {(q, d): int(g) for q, d, g in store.grade_rows(con) if g}
    evidence = [(q, d, c, int(p)) for q, d, c, p in store.evidence_rows(con)]
    # A PDF file or OCR folder belongs to one document, so its name identifies it; a pages.jsonl
    # is shared by many documents and its name says nothing (and would match the word "pages").
    files: dict[str, str] = {}
    for doc_id, source_path, kind in store.document_sources(con):
        files[doc_id] = Path(source_path).name if source_path and kind != "pages" else ""
    n_pages = {d: int(n) for d, n in store.text_page_counts(con)}
    return Benchmark(queries, qrels, evidence, files, n_pages)


def iter_pages(con: store.Connection) -> Iterator[tuple[str, int, str]]:
    for batch in store.page_batches(con):
        yield from ((d, int(p), t or "") for d, p, t in batch)


def read_corpus(con: store.Connection) -> Corpus:
    """Every page (BM25 statistics are corpus-wide); `Corpus.shown_pages` skips empty ones."""
    return Corpus.from_rows(iter_pages(con))


def read_run(con: store.Connection, run_name: str) -> dict[str, list[str]]:
    """query_id -> doc_ids best first (score descending, then rank, then file order)."""
    out: dict[str, list[str]] = {}
    for q, d in store.run_rows(con, run_name):
        out.setdefault(q, []).append(d)
    return out


def run_names(con: store.Connection) -> list[str]:
    return store.run_names(con)
