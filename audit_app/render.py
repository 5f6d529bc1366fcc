"""Server-side page images with the matched quote highlighted (PyMuPDF).

The admin side (`evaudit serve`, `evaudit demo`: `services.serving.build_all_page_maps`)
precomputes, per packet, a map page_key -> (PDF path, page number) from the admin key and
the campaign store into `DIR/render/NAME.json`. The app reads that map in the server process only
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
from campaign.project import Project
from packet_builder.page_images import DPI, render_png

__all__ = ["DPI", "images_for", "render_png"]


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
            path = Project(root).page_map_path(packet_id)
            cache[packet_id] = (
                PageImages(json.loads(path.read_text(encoding="utf-8")), root)
                if path.is_file()
                else None
            )
        return cache[packet_id]

    return get
