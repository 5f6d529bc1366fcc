"""Page images of a packet: where each shown page lives, and rendering it (PyMuPDF).

The admin key maps each blinded page key to its document and page; the store maps a
document to its PDF. `page_locations` joins the two (the app's page map is made from
it), `render_png` draws one page (with the quote highlighted, in memory only), and
`render_packet` fills the project's image cache (`campaign.image_cache`) with every
page a packet shows, on every core.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign import image_cache, store
from campaign.packets import read_admin_key
from campaign.project import Project
from vocabulary.progress import Progress, no_progress
from vocabulary.textnorm import find_quote

DPI = 110


def page_locations(project: Project, packet_id: str) -> dict[str, dict[str, object]]:
    """page_key -> {"pdf": path, "page": n} for every page of the packet that a PDF holds."""
    key = read_admin_key(project, packet_id)
    pdfs = store.pdf_sources(project.store_path)
    out: dict[str, dict[str, object]] = {}
    for item in key.get("items", {}).values():
        pdf = pdfs.get(item.get("doc_id"))
        if not pdf or not Path(pdf).is_file():
            continue
        for cond in item.get("conditions", {}).values():
            for page_key, info in cond.get("pages", {}).items():
                out[page_key] = {"pdf": str(pdf), "page": int(info["page"])}
    return out


def _rects_for(page: Any, text: str, span: tuple[int, int]) -> list[Any]:
    """Rectangles of the matched text; searched line by line so line breaks do not matter."""
    needle = text[span[0] : span[1]]
    rects = page.search_for(needle)
    if rects:
        return list(rects)
    out = []
    for part in needle.splitlines():
        if len(part.strip()) >= 3:
            out.extend(page.search_for(part.strip()))
    return out


def render_png(pdf: str, page_no: int, quote: str | None, dpi: int = DPI) -> bytes:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        page = doc[page_no - 1]
        if quote:
            text = page.get_text()
            span = find_quote(quote, text)
            if span is not None:
                for rect in _rects_for(page, text, span):
                    page.add_highlight_annot(rect)  # in memory only; the PDF is never saved
        return bytes(page.get_pixmap(dpi=dpi, annots=True).tobytes("png"))


@dataclass(frozen=True)
class RenderResult:
    packet: str
    pages: int
    rendered: int
    cached: int
    missing: int
    bytes_written: int


def _render_one(job: tuple[str, str, int, int]) -> int:
    root, pdf, page, dpi = job
    key = image_cache.cache_key(pdf, page, dpi)
    if key is None:
        return -1
    png = render_png(pdf, page, None, dpi)
    image_cache.write_cached(Path(root), key, png)
    return len(png)


def render_packet(
    project: Project, packet_id: str, *, workers: int | None = None, dpi: int = DPI,
    progress: Progress = no_progress,
) -> RenderResult:  # fmt: skip
    """Render every page the packet shows into the image cache (pages already cached are
    kept); `workers` processes (default: every core)."""
    where = page_locations(project, packet_id)
    distinct = sorted({(str(w["pdf"]), int(str(w["page"]))) for w in where.values()})
    jobs: list[tuple[str, str, int, int]] = []
    cached = missing = 0
    for pdf, page in distinct:
        key = image_cache.cache_key(pdf, page, dpi)
        if key is None:
            missing += 1
        elif image_cache.cache_path(project.root, key).is_file():
            cached += 1
        else:
            jobs.append((str(project.root), pdf, page, dpi))
    n = workers or os.cpu_count() or 1
    sizes: list[int] = []
    if jobs:
        with ProcessPoolExecutor(max_workers=min(n, len(jobs))) as pool:
            chunk = max(1, len(jobs) // (8 * n))
            sizes = list(progress(pool.map(_render_one, jobs, chunksize=chunk),
                                  total=len(jobs), desc="render"))  # fmt: skip
    rendered = [s for s in sizes if s >= 0]
    return RenderResult(packet_id, len(distinct), len(rendered), cached,
                        missing + len(sizes) - len(rendered), sum(rendered))  # fmt: skip
