"""The project's page-image cache: rendered PNGs of PDF pages, without highlights.

`evaudit packet render` fills it before a campaign starts and the app reads it first,
so no annotator waits for the first render of a page. A file's name is a hash of the
PDF's path, size and modification time, the page and the resolution, so an edited or
replaced PDF never serves an old image. Files are 0600 in the project's private
folder, written atomically (a reader never sees half an image).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from campaign.project import write_bytes_atomic

CACHE_DIR = Path("render") / "pages"


def cache_key(pdf: str, page: int, dpi: int) -> str | None:
    """The cache name of one page image, or None when the PDF is not there."""
    try:
        st = os.stat(pdf)
    except OSError:
        return None
    raw = f"{os.path.abspath(pdf)}\0{st.st_size}\0{st.st_mtime_ns}\0{page}\0{dpi}"
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def cache_path(root: Path, key: str) -> Path:
    return root / CACHE_DIR / key[:2] / f"{key}.png"


def read_cached(root: Path, key: str) -> bytes | None:
    try:
        return cache_path(root, key).read_bytes()
    except OSError:
        return None


def write_cached(root: Path, key: str, png: bytes) -> None:
    write_bytes_atomic(cache_path(root, key), png)
