"""Corpus readers for `ingest --beir`, `--trec-docs` and `--mineru`, and the per-source
extraction summary an ingest reports."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packet_builder.corpus_pages import DocPages
from packet_builder.source_gate import ExtractionRow
from vocabulary.errors import InputError

if TYPE_CHECKING:
    from packet_builder.ingest_report import IngestReport


def collect_beir(folder: Path, known: dict[str, str], report: IngestReport) -> Iterator[DocPages]:
    """One one-page document per BEIR corpus entry (formats.beir), streamed;
    unchanged entries are counted in `report`."""
    from formats.beir import corpus_pages

    if not folder.is_dir():
        raise InputError(
            "BEIR folder not found", file=folder, hint="give the folder of corpus.jsonl"
        )
    source = str((folder / "corpus.jsonl").resolve())
    for doc_id, text, sha in corpus_pages(folder):
        if known.get(doc_id) == sha:
            report.unchanged += 1
        else:
            yield DocPages(doc_id, source, "beir", sha, [text])


def collect_trec(path: Path, known: dict[str, str], report: IngestReport) -> Iterator[DocPages]:
    """One one-page document per TREC `<DOC>` (or JSONL line) (formats.trec),
    streamed; unchanged documents are counted in `report`."""
    from formats.trec import documents

    for doc_id, text, sha, source in documents(path):
        if known.get(doc_id) == sha:
            report.unchanged += 1
        else:
            yield DocPages(doc_id, source, "trec", sha, [text])


def collect_mineru(
    folder: Path, known: dict[str, str], report: IngestReport
) -> tuple[list[DocPages], int]:
    """One document per MinerU output (formats.mineru), one page per PDF page."""
    from formats.mineru import documents

    docs: list[DocPages] = []
    unchanged = 0
    for d in documents(folder):
        if not d.pages:
            report.skipped.append({"file": d.source_path, "reason": "no pages"})
        elif known.get(d.doc_id) == d.sha256:
            unchanged += 1
        else:
            docs.append(
                DocPages(d.doc_id, d.source_path, "mineru", d.sha256, d.pages, d.expected,
                         f"mineru {d.expected_from}")
            )  # fmt: skip
    return docs, unchanged


def page_count(path: Path) -> int:
    """Pages of a PDF that gave no text (at least 1: an unreadable file expected some)."""
    import pymupdf

    try:
        with pymupdf.open(path) as doc:
            return max(1, int(doc.page_count))
    except Exception:  # damaged beyond repair: the page count is unknown
        return 1


def summary(rows: list[ExtractionRow], stored: Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """Per source, the page kinds of what this ingest wrote (source_gate.page_kinds), from
    its extraction rows and the pages it stored per document."""
    from campaign.store_corpus import SKIPPED_SUFFIX
    from packet_builder.source_gate import page_kinds

    sums: dict[str, list[int]] = {}
    for doc, src, expected, got, expected_from in rows:
        s = sums.setdefault(src, [0, 0, 0, 0, 0, 0])
        if expected_from.endswith(SKIPPED_SUFFIX):
            s[1] += 1
            s[5] += expected
        else:
            s[0] += 1
            s[3] += stored.get(doc, 0)
        s[2] += expected
        s[4] += got
    return {src: page_kinds(*v).to_json() for src, v in sums.items()}
