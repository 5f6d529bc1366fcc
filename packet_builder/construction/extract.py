"""Page text extraction with PyMuPDF, in parallel, order-preserving (deterministic)."""

from __future__ import annotations

import hashlib
import multiprocessing as mp
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from packet_builder.textnorm import normalize


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
    norm_pages: tuple[str, ...]  # packet_builder.textnorm.normalize of each page
    headings: tuple[str, ...]  # PDF outline (bookmark) titles, in outline order
    sha256: str


def _extract(spec: DocSpec) -> DocText:
    import pymupdf  # imported here so worker start-up stays cheap for callers that never extract

    data = Path(spec.path).read_bytes()
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        pages = tuple(page.get_text() for page in doc)
        toc = doc.get_toc(simple=True)
    headings = tuple(str(entry[1]) for entry in toc)
    return DocText(
        doc_id=spec.doc_id,
        source=spec.source,
        pages=pages,
        norm_pages=tuple(normalize(p) for p in pages),
        headings=headings,
        sha256=hashlib.sha256(data).hexdigest(),
    )


def extract_corpus(
    specs: Sequence[DocSpec],
    workers: int = 1,
    progress: Callable[[Iterable[DocText], int], Iterator[DocText]] | None = None,
) -> list[DocText]:
    """Extract every PDF; the result is in the order of `specs` whatever `workers` is."""
    if workers <= 1:
        it: Iterable[DocText] = map(_extract, specs)
        return list(progress(it, len(specs)) if progress else it)
    # 'spawn' avoids forking a parent that may hold threads (tqdm, DuckDB) or open MuPDF state.
    with mp.get_context("spawn").Pool(workers) as pool:
        it = pool.imap(_extract, specs, chunksize=4)
        return list(progress(it, len(specs)) if progress else it)
