"""Server-side page images with the matched quote highlighted (PyMuPDF).

The admin side (`evaudit serve`, `evaudit demo`) precomputes, per packet, a map
page_key -> (PDF path, page number) from the admin key and the campaign store
into `DIR/render/NAME.json`. The app reads that map in the server process only
and hands the annotator screen an opaque callable `(page_key, quote) -> PNG`;
the browser receives image bytes under a content-hash URL, never a file name
or page number. A page without a quote comes from the project's image cache first
(`evaudit packet render` fills it ahead of a campaign; a page rendered here on demand
is added to it); a highlighted page is drawn on demand, since it depends on the quote.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from campaign import image_cache
from campaign.project import Project, write_json_atomic
from packet_builder.page_images import DPI, page_locations, render_png

__all__ = ["DPI", "build_all_page_maps", "build_page_map", "images_for", "render_png"]

RENDER_DIR = "render"


def map_path(root: Path, packet_id: str) -> Path:
    return root / RENDER_DIR / f"{packet_id}.json"


def build_page_map(project: Project, packet_id: str) -> Path | None:
    """Write the page map for one packet (admin side); None when no page comes from a PDF."""
    out = page_locations(project, packet_id)
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


class PageImages:
    """The opaque renderer handed to the annotator screen for one packet."""

    def __init__(self, page_map: dict[str, dict[str, object]], root: Path | None = None) -> None:
        self._map = page_map
        self._root = root
        self._render = lru_cache(maxsize=256)(self._render_uncached)

    def _render_uncached(self, page_key: str, quote: str | None) -> bytes | None:
        where = self._map.get(page_key)
        if where is None:
            return None
        pdf, page = str(where["pdf"]), int(str(where["page"]))
        if quote or self._root is None:
            return render_png(pdf, page, quote)
        key = image_cache.cache_key(pdf, page, DPI)
        if key is None:
            return None
        png = image_cache.read_cached(self._root, key)
        if png is None:
            png = render_png(pdf, page, None)
            image_cache.write_cached(self._root, key, png)
        return png

    def __call__(self, page_key: str, quote: str | None) -> bytes | None:
        return self._render(page_key, quote)


def images_for(root: Path) -> Callable[[str], Callable[[str, str | None], bytes | None] | None]:
    """packet_id -> renderer, or None when the packet has no page map (no PDFs)."""
    cache: dict[str, PageImages | None] = {}

    def get(packet_id: str) -> Callable[[str, str | None], bytes | None] | None:
        if packet_id not in cache:
            path = map_path(root, packet_id)
            cache[packet_id] = (
                PageImages(json.loads(path.read_text(encoding="utf-8")), root)
                if path.is_file()
                else None
            )
        return cache[packet_id]

    return get
