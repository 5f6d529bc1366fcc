"""Page text extraction with PyMuPDF, in parallel, order-preserving (deterministic)."""

from __future__ import annotations

import hashlib
import multiprocessing as mp
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from vocabulary.progress import Progress, no_progress
from vocabulary.textnorm import normalize


@dataclass(frozen=True)
class DocSpec:
    """One input PDF: its doc_id (= file stem), the Debian package it came from, its path."""

    doc_id: str
    source: str
    path: str


@dataclass(frozen=True)
class DocText:
    doc_id: str
    source: str
    pages: tuple[str, ...]  # raw page text, page 1 first
    norm_pages: tuple[str, ...]  # vocabulary.textnorm.normalize of each page
    headings: tuple[str, ...]  # PDF outline (bookmark) titles, in outline order
    sha256: str


class Unusable(Exception):
    """A PDF `evaudit ingest` would skip (packet_builder/ingest.py applies the same tests)."""


def _extract(spec: DocSpec) -> DocText:
    import pymupdf  # imported here so worker start-up stays cheap for callers that never extract

    pymupdf.TOOLS.mupdf_display_errors(False)
    data = Path(spec.path).read_bytes()
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        if doc.needs_pass:
            raise Unusable("encrypted PDF (needs a password)")
        pages = tuple(page.get_text() for page in doc)
        toc = doc.get_toc(simple=True)
    if pages and not any(p.strip() for p in pages):
        # Image-only: ingest skips it ("no text layer"), so the benchmark must not use it.
        raise Unusable("no text layer (image-only PDF; ingest skips it)")
    headings = tuple(str(entry[1]) for entry in toc)
    return DocText(
        doc_id=spec.doc_id,
        source=spec.source,
        pages=pages,
        norm_pages=tuple(normalize(p) for p in pages),
        headings=headings,
        sha256=hashlib.sha256(data).hexdigest(),
    )


def try_extract(spec: DocSpec) -> DocText | str:
    """The document, or why ingest would not keep it (corrupt, encrypted, no pages, no text)."""
    try:
        doc = _extract(spec)
    except Unusable as exc:
        return str(exc)
    except Exception as exc:  # MuPDF raises several types for unreadable files
        return f"{type(exc).__name__}: {exc}"
    return doc if doc.pages else "no pages"


def extract_corpus(
    specs: Sequence[DocSpec],
    workers: int = 1,
    progress: Progress = no_progress,
    skipped: list[tuple[DocSpec, str]] | None = None,
) -> list[DocText]:
    """Extract every PDF; the result is in the order of `specs` whatever `workers` is.

    Unreadable PDFs raise ValueError, unless `skipped` is given: then they are appended
    to it with the reason and left out.
    """
    results: list[DocText | str]
    if workers <= 1:
        it: Iterable[DocText | str] = map(try_extract, specs)
        results = list(progress(it, total=len(specs), desc="extract"))
    else:
        # 'spawn' avoids forking a parent that may hold threads (tqdm, DuckDB) or MuPDF state.
        with mp.get_context("spawn").Pool(workers) as pool:
            it = pool.imap(try_extract, specs, chunksize=4)
            results = list(progress(it, total=len(specs), desc="extract"))
    docs: list[DocText] = []
    for spec, res in zip(specs, results, strict=True):
        if isinstance(res, DocText):
            docs.append(res)
        elif skipped is None:
            raise ValueError(f"{spec.path}: cannot extract text ({res})")
        else:
            skipped.append((spec, res))
    return docs
