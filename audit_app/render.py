"""Server-side page images with the matched quote highlighted (PyMuPDF).

The admin side (`evaudit serve`, `evaudit demo`) precomputes, per packet, a map
page_key -> (PDF path, page number) from the admin key and the campaign store
into `DIR/render/NAME.json`. The app reads that map in the server process only
and hands the annotator screen an opaque callable `(page_key, quote) -> PNG`;
the browser receives image bytes under a content-hash URL, never a file name
or page number.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from campaign.project import Project, write_json_atomic
from vocabulary.textnorm import find_quote

RENDER_DIR = "render"
DPI = 110


def map_path(root: Path, packet_id: str) -> Path:
    return root / RENDER_DIR / f"{packet_id}.json"


def build_page_map(project: Project, packet_id: str) -> Path | None:
    """Write the page map for one packet (admin side); None when no page comes from a PDF."""
    from campaign import store
    from campaign.packets import read_admin_key

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
    if not out:
        return None
    path = map_path(project.root, packet_id)
    write_json_atomic(path, out)
    return path


def build_all_page_maps(project: Project) -> list[Path]:
    done = []
    from campaign.packets import list_packets

    for row in sorted(list_packets(project), key=lambda r: r.name):
        packet_id = row.name
        if project.key_path(packet_id).is_file() and project.packet_path(packet_id).is_file():
            path = build_page_map(project, packet_id)
            if path is not None:
                done.append(path)
    return done


def _rects_for(page, text: str, span: tuple[int, int]) -> list:  # type: ignore[no-untyped-def]
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


class PageImages:
    """The opaque renderer handed to the annotator screen for one packet."""

    def __init__(self, page_map: dict[str, dict[str, object]]) -> None:
        self._map = page_map
        self._render = lru_cache(maxsize=256)(self._render_uncached)

    def _render_uncached(self, page_key: str, quote: str | None) -> bytes | None:
        where = self._map.get(page_key)
        if where is None:
            return None
        return render_png(str(where["pdf"]), int(str(where["page"])), quote)

    def __call__(self, page_key: str, quote: str | None) -> bytes | None:
        return self._render(page_key, quote)


def images_for(root: Path) -> Callable[[str], Callable[[str, str | None], bytes | None] | None]:
    """packet_id -> renderer, or None when the packet has no page map (no PDFs)."""
    cache: dict[str, PageImages | None] = {}

    def get(packet_id: str) -> Callable[[str, str | None], bytes | None] | None:
        if packet_id not in cache:
            path = map_path(root, packet_id)
            cache[packet_id] = (
                PageImages(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else None
            )
        return cache[packet_id]

    return get
