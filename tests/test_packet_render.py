"""`evaudit packet render`: every page a packet shows goes into the project's image
cache ahead of the campaign, and the app serves a page from that cache first."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from audit_app.render import images_for
from campaign import image_cache
from packet_builder.page_images import DPI, page_locations, render_png
from services.serving import build_all_page_maps
from tests.app_fixture import build
from tests.conftest import run_cli


def _render(root: Path, *extra: str) -> dict:
    return json.loads(run_cli("packet", "render", root, "initial", "--json", *extra).stdout)


def test_render_fills_the_cache_once(tmp_path: Path) -> None:
    fx = build(tmp_path / "proj", pdf_dir=tmp_path / "pdfs")
    root = fx.project.root
    where = page_locations(fx.project, "initial")
    distinct = {(str(w["pdf"]), int(str(w["page"]))) for w in where.values()}
    assert len(distinct) > 3
    rep = _render(root, "--workers", "2")
    assert (rep["pages"], rep["rendered"], rep["cached"], rep["missing"]) == (
        len(distinct), len(distinct), 0, 0)  # fmt: skip
    for pdf, page in distinct:
        key = image_cache.cache_key(pdf, page, DPI)
        assert key is not None
        path = image_cache.cache_path(root, key)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert path.read_bytes() == render_png(pdf, page, None)
    again = _render(root)
    assert (again["rendered"], again["cached"]) == (0, len(distinct))
    # An edited PDF gets new images: its pages are rendered again, the others kept.
    pdf = sorted(distinct)[0][0]
    st = os.stat(pdf)
    os.utime(pdf, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    edited = sum(p == pdf for p, _ in distinct)
    third = _render(root)
    assert (third["rendered"], third["cached"]) == (edited, len(distinct) - edited)


def test_the_app_serves_the_cache_first(tmp_path: Path) -> None:
    fx = build(tmp_path / "proj", pdf_dir=tmp_path / "pdfs")
    root = fx.project.root
    assert build_all_page_maps(fx.project)
    _render(root)
    where = page_locations(fx.project, "initial")
    page_key, loc = sorted(where.items())[0]
    key = image_cache.cache_key(str(loc["pdf"]), int(str(loc["page"])), DPI)
    assert key is not None
    marker = b"\x89PNG\r\n\x1a\n-a cached image-"
    image_cache.write_cached(root, key, marker)
    renderer = images_for(root)("initial")
    assert renderer is not None
    assert renderer(page_key, None) == marker
    highlighted = renderer(page_key, "a quote")
    assert highlighted is not None and highlighted != marker  # a quote is drawn on demand


def test_a_page_rendered_on_demand_is_cached(tmp_path: Path) -> None:
    fx = build(tmp_path / "proj", pdf_dir=tmp_path / "pdfs")
    root = fx.project.root
    assert build_all_page_maps(fx.project)
    page_key, loc = sorted(page_locations(fx.project, "initial").items())[0]
    key = image_cache.cache_key(str(loc["pdf"]), int(str(loc["page"])), DPI)
    assert key is not None and image_cache.read_cached(root, key) is None
    renderer = images_for(root)("initial")
    assert renderer is not None
    png = renderer(page_key, None)
    assert png is not None and image_cache.read_cached(root, key) == png


def test_unknown_packet_is_one_line(tmp_path: Path) -> None:
    fx = build(tmp_path / "proj", pdf_dir=tmp_path / "pdfs")
    res = run_cli("packet", "render", fx.project.root, "nope", expect=2)
    assert "nope.key.json: admin key not found" in res.stderr
    assert not (fx.project.root / "render" / "pages").exists()
