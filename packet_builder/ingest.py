"""Corpus ingest: PDFs (PyMuPDF), MinerU output, OCR folders, pages.jsonl, BEIR or TREC
corpora into the store, with each document's extraction record (pages extracted vs
expected, by source) for the extraction gate.

PDFs are read by `packet_builder.ingest_pdf` (text layer, OCR, skips and repairs); the
other formats by this module and `packet_builder.ingest_formats`. Unchanged documents
(same SHA-256) are skipped; a changed one replaces its pages. All store writes happen in
one transaction at the end (none with `strict` and a skipped or repaired file); the
report is `packet_builder.ingest_report.IngestReport`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign import store, store_corpus
from campaign.project import Project, now_iso
from campaign.store_corpus import SKIPPED_SUFFIX
from formats.corpus_manifest import check_manifest
from packet_builder.corpus_pages import DocPages
from packet_builder.ingest_formats import (
    collect_beir,
    collect_mineru,
    collect_trec,
    page_count,
    summary,
)
from packet_builder.ingest_pdf import check_doc_id, collect_pdfs, find_pdfs, ocr_config
from packet_builder.ingest_report import IngestReport, OcrSummary
from packet_builder.source_gate import ExtractionRow, record
from vocabulary.errors import InputError, InputErrors
from vocabulary.jsonread import json_document
from vocabulary.progress import Progress, no_progress


def _known_hashes(project: Project) -> dict[str, str]:
    with store.connect(project.store_path, read_only=True) as con:
        return store_corpus.document_hashes(con)


def _without_ocr(project: Project, *, every_page: bool) -> set[str]:
    with store.connect(project.store_path, read_only=True) as con:
        return store_corpus.docs_without_ocr(con, every_page=every_page)


def _ocr_page_text(obj: Any) -> str:
    """Text of one MinerU-style page JSON: {"text"}, {"blocks"/"content": [...]}, or a list."""
    if isinstance(obj, dict):
        if isinstance(obj.get("text"), str):
            return str(obj["text"])
        for key in ("blocks", "content", "para_blocks", "items"):
            if isinstance(obj.get(key), list):
                return _ocr_page_text(obj[key])
        return ""
    if isinstance(obj, list):
        parts = [_ocr_page_text(x) for x in obj]
        return "\n".join(p for p in parts if p)
    return obj if isinstance(obj, str) else ""


def _page_number(path: Path, obj: Any, fallback: int) -> int:
    if isinstance(obj, dict):
        if isinstance(obj.get("page"), int):
            return int(obj["page"])
        if isinstance(obj.get("page_idx"), int):
            return int(obj["page_idx"]) + 1
    digits = re.findall(r"\d+", path.stem)
    return int(digits[-1]) if digits else fallback


def collect_ocr(ocr_dir: Path, known: dict[str, str]) -> tuple[list[DocPages], int]:
    if not ocr_dir.is_dir():
        raise InputError("OCR folder not found", file=ocr_dir)
    docs: list[DocPages] = []
    unchanged = 0
    doc_dirs = sorted(p for p in ocr_dir.iterdir() if p.is_dir())
    if not doc_dirs:
        raise InputError("no document folders (expected O/<doc_id>/<page>.json)", file=ocr_dir)
    for ddir in doc_dirs:
        check_doc_id(ddir.name, ddir)
        files = sorted(ddir.glob("*.json"), key=lambda p: (len(p.stem), p.stem))
        if not files:
            raise InputError("no page JSON files", file=ddir)
        h = hashlib.sha256()
        pages: dict[int, str] = {}
        for i, f in enumerate(files, start=1):
            raw = f.read_bytes()
            h.update(f.name.encode() + b"\0" + raw)
            obj = json_document(raw, "malformed JSON", f)
            num = _page_number(f, obj, i)
            if num < 1 or num in pages:
                raise InputError(f"page number {num} is not 1-based or repeats", file=f)
            pages[num] = _ocr_page_text(obj)
        sha = h.hexdigest()
        if known.get(ddir.name) == sha:
            unchanged += 1
            continue
        n = max(pages)
        docs.append(
            DocPages(
                ddir.name,
                str(ddir.resolve()),
                "ocr",
                sha,
                [pages.get(p, "") for p in range(1, n + 1)],
            )
        )
    return docs, unchanged


def collect_pages_jsonl(path: Path, known: dict[str, str]) -> tuple[list[DocPages], int]:
    from vocabulary.jsonlines import json_lines

    by_doc: dict[str, dict[int, str]] = {}
    for lineno, obj in json_lines(path):
        doc_id, page, text = obj.get("doc_id"), obj.get("page"), obj.get("text")
        if not isinstance(doc_id, str) or not doc_id:
            raise InputError("missing string 'doc_id'", file=path, line=lineno)
        check_doc_id(doc_id, path)
        if not isinstance(page, int) or isinstance(page, bool) or page < 1:
            raise InputError("'page' must be a 1-based integer", file=path, line=lineno)
        if not isinstance(text, str):
            raise InputError("missing string 'text'", file=path, line=lineno)
        pages = by_doc.setdefault(doc_id, {})
        if page in pages:
            raise InputError(f"duplicate page {page} of {doc_id!r}", file=path, line=lineno)
        pages[page] = text
    if not by_doc:
        raise InputError("no pages in file", file=path)
    docs: list[DocPages] = []
    unchanged = 0
    for doc_id in sorted(by_doc):
        pages = by_doc[doc_id]
        n = max(pages)
        texts = [pages.get(p, "") for p in range(1, n + 1)]
        sha = hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode()).hexdigest()
        if known.get(doc_id) == sha:
            unchanged += 1
            continue
        docs.append(DocPages(doc_id, str(path.resolve()), "pages", sha, texts))
    return docs, unchanged


_BATCH = 50_000  # documents per insert: bounds memory on a million-passage corpus


def _insert_batch(con: Any, docs: list[DocPages], stamp: str, source: str) -> int:
    import pandas as pd

    doc_df = pd.DataFrame(
        [(d.doc_id, d.source_path, d.kind, d.sha256, len(d.pages), stamp) for d in docs],
        columns=["doc_id", "source_path", "kind", "sha256", "n_pages", "ingested_at"],
    )
    page_df = pd.DataFrame(
        [(d.doc_id, i, t, len(t)) for d in docs for i, t in enumerate(d.pages, start=1)],
        columns=["doc_id", "page", "text", "n_chars"],
    )
    store_corpus.replace_documents(con, doc_df, page_df)
    ocr_df = pd.DataFrame(
        [(d.doc_id, i, r["engine"], r["version"], r["lang"], r["confidence"], r["words"])
         for d in docs if d.ocr for i, r in enumerate(d.ocr, start=1) if r is not None],
        columns=["doc_id", "page", "engine", "version", "lang", "confidence", "words"],
    )  # fmt: skip
    store_corpus.replace_page_ocr(con, [d.doc_id for d in docs], ocr_df)
    record(con, [d.extraction(source) for d in docs])
    return len(page_df)


def write_documents(
    project: Project,
    docs: Iterable[DocPages],
    extraction: Iterable[ExtractionRow] = (),
    source: str = "",
    stored: dict[str, int] | None = None,
) -> tuple[int, int, list[ExtractionRow]]:
    """Replace each document's row, pages and extraction record (under `source`) in one
    transaction, `_BATCH` documents at a time, so `docs` may be a stream: a reader error
    in the middle rolls everything back. `extraction` adds records of files that gave
    no document. Returns (documents, pages, every extraction row written); `stored`
    receives each written document's stored page count."""
    it = iter(docs)
    batch = list(itertools.islice(it, _BATCH))
    extra = list(extraction)
    if not batch and not extra:
        return 0, 0, []
    rows: list[ExtractionRow] = list(extra)
    n_docs = n_pages = 0
    stamp = now_iso()
    with store.transaction(project.store_path) as con:
        record(con, extra)
        while batch:
            n_pages += _insert_batch(con, batch, stamp, source)
            n_docs += len(batch)
            rows += [d.extraction(source) for d in batch]
            if stored is not None:
                stored.update((d.doc_id, len(d.pages)) for d in batch)
            batch = list(itertools.islice(it, _BATCH))
    return n_docs, n_pages, rows


@dataclass(frozen=True)
class IngestSpec:
    """One ingest: exactly one source (`pdf_dir`, `ocr_dir`, `pages_file`, `beir_dir`,
    `trec_docs` or `mineru_dir`) and how it is read (see `ingest`)."""

    pdf_dir: Path | None = None
    ocr_dir: Path | None = None
    pages_file: Path | None = None
    beir_dir: Path | None = None
    trec_docs: Path | None = None
    mineru_dir: Path | None = None
    source: str = ""
    workers: int | None = None
    strict: bool = False
    manifest: Path | None = None
    ocr: str = "auto"
    ocr_lang: str = "eng"
    ocr_dpi: int = 300
    ocr_min_confidence: float = 60.0
    recursive: bool = True


def ingest(project: Project, spec: IngestSpec, progress: Progress = no_progress) -> IngestReport:
    """Ingest `spec`'s one source. `strict`: any skipped or repaired file is an error, and then
    nothing is written (the check runs before the one store transaction). `source` names
    the documents' source for the extraction gate (packet_builder.source_gate).
    `manifest`: check the local files against (doc_id, url, sha256) rows first
    (formats.corpus_manifest); with `strict` a finding is an error. `ocr`: how
    PDF pages without a text layer are read (packet_builder.ocr); pages whose OCR
    confidence is under `ocr_min_confidence` are listed (an error with `strict`).
    `recursive`: `pdf_dir`'s subfolders are searched too."""
    pdf_dir, ocr_dir, pages_file = spec.pdf_dir, spec.ocr_dir, spec.pages_file
    beir_dir, trec_docs, mineru_dir = spec.beir_dir, spec.trec_docs, spec.mineru_dir
    source, strict, manifest, recursive = spec.source, spec.strict, spec.manifest, spec.recursive
    given = (pdf_dir, ocr_dir, pages_file, beir_dir, trec_docs, mineru_dir)
    if sum(s is not None for s in given) != 1:
        raise InputError(
            "give exactly one of --pdf-dir, --ocr-dir, --pages, --beir, --trec-docs, --mineru"
        )
    report = IngestReport()
    if manifest is not None:
        # Checked before anything is read or written, so --strict leaves the store as it was.
        given_path = next(s for s in given if s is not None)
        base = given_path if given_path.is_dir() else given_path.parent
        pdf_files = find_pdfs(pdf_dir, recursive) if pdf_dir is not None else None
        report.manifest = check_manifest(manifest, pdf_dir=pdf_dir, base=base, pdf_files=pdf_files)
        if strict and not report.manifest.ok:
            raise InputErrors(
                [
                    InputError(what, file=file, hint="fetch the file again or fix the manifest")
                    for file, what in report.manifest.findings()
                ]
            )
    known = _known_hashes(project)
    docs: Iterable[DocPages]
    if pdf_dir is not None:
        n_workers = spec.workers or max(1, min(os.cpu_count() or 1, 8))
        cfg = ocr_config(spec.ocr, spec.ocr_lang, spec.ocr_dpi)
        if cfg is not None:
            report.ocr = OcrSummary(
                cfg.mode, cfg.lang, spec.ocr_min_confidence, version=cfg.version
            )
            # An unchanged PDF whose pages OCR has not read yet is read again.
            for doc_id in _without_ocr(project, every_page=cfg.mode == "always"):
                known.pop(doc_id, None)
        docs = collect_pdfs(pdf_dir, known, n_workers, progress, report, recursive, cfg)
    elif ocr_dir is not None:
        docs, report.unchanged = collect_ocr(ocr_dir, known)
    elif beir_dir is not None:
        from packet_builder.beir_fast import read_corpus, write_columns

        cols = read_corpus(beir_dir) if beir_dir.is_dir() else None
        if cols is not None:  # Arrow vouched for the whole file: columns, no per-line objects
            w = write_columns(project, beir_dir, cols, known, source)
            report.documents, report.pages, report.unchanged, report.extraction = w
            return report
        # The per-line reader, streamed (it names the first bad line).
        docs = progress(collect_beir(beir_dir, known, report), desc="ingest")
    elif trec_docs is not None:
        docs = progress(collect_trec(trec_docs, known, report), desc="ingest")
    elif mineru_dir is not None:
        docs, report.unchanged = collect_mineru(mineru_dir, known, report)
    else:
        assert pages_file is not None
        docs, report.unchanged = collect_pages_jsonl(pages_file, known)
    if strict and report.problems():
        raise InputErrors(
            [
                InputError(what, file=file, hint="fix or remove it, or ingest without --strict")
                for file, what in report.problems()
            ]
        )
    # A skipped PDF still counts against its source: its pages were expected, none came.
    skipped = [
        (Path(x["file"]).stem, source, page_count(Path(x["file"])), 0, f"pdf {SKIPPED_SUFFIX}")
        for x in report.skipped
        if Path(x["file"]).suffix.lower() == ".pdf"
    ]
    stored: dict[str, int] = {}
    report.documents, report.pages, rows = write_documents(project, docs, skipped, source, stored)
    report.extraction = summary(rows, stored)
    return report
