"""The served app over real HTTP and in Debian's Chromium: framing headers, admin-only
metrics, and the admin views as a reviewer reads them (real `evaudit serve`, real journals).
"""

from __future__ import annotations

import base64
import http.server
import re
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.simulate import simulate
from tests.app_fixture import PASSWORD, Fixture, build

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
EVAUDIT = str(ROOT / ".venv" / "bin" / "evaudit")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
T = 60_000  # ms: the machine is shared; nothing asserts on time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str, auth: str | None = None) -> tuple[int, dict[str, str], str]:
    """(status, lower-cased headers, body) of a real GET, errors included."""
    request = urllib.request.Request(url)
    if auth is not None:
        request.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Fixture, str]]:
    fx = build(tmp_path_factory.mktemp("served") / "proj", items=8, conditions=2, pages=3)
    simulate(fx.project, "initial", ("alice", "bob"))
    port = free_port()
    log = (fx.project.root.parent / "serve.log").open("ab")
    proc = subprocess.Popen(
        [EVAUDIT, "serve", str(fx.project.root), "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if get(base + "/_stcore/health")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        raise RuntimeError("server did not start")
    yield fx, base
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


def test_every_response_forbids_framing_by_other_sites(served) -> None:
    _fx, base = served
    status, headers, page = get(base + "/")
    assert status == 200 and "<html" in page.lower()
    script = re.search(r'src="(\./static/js/[^"]+\.js)"', page)
    assert script is not None
    for url in (base + "/", base + "/_stcore/health", base + script.group(1)[1:], base + "/nope"):
        headers = get(url)[1]
        assert headers["x-frame-options"] == "SAMEORIGIN", url
        assert headers["content-security-policy"] == "frame-ancestors 'self'", url
        assert headers["referrer-policy"] == "no-referrer", url


def test_metrics_are_off_unless_asked_for(served) -> None:
    _fx, base = served
    for path in (
        "/_stcore/metrics",
        "//_stcore/metrics",
        "/_stcore/metrics/",
        "/_stcore/metrics?x",
    ):
        status, headers, body = get(base + path, auth=f"admin:{PASSWORD}")
        assert status == 404 and "session_events" not in body, path
        assert "metrics are off (start the server with --metrics)" in body
        assert headers["x-frame-options"] == "SAMEORIGIN"
    # Nothing sent there counted against admin sign-in (the browser test signs in next).


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def test_another_site_cannot_frame_the_app(served, browser, tmp_path: Path) -> None:
    _fx, base = served
    (tmp_path / "index.html").write_text(
        f'<html><body><h1>other site</h1><iframe id="f" src="{base}/"></iframe></body></html>'
    )
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path))  # noqa: E731
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        pg = browser.new_page()
        refused: list[str] = []
        pg.on("console", lambda m: refused.append(m.text))
        pg.goto(f"http://127.0.0.1:{other.server_address[1]}/index.html")
        pg.get_by_text("other site").wait_for(timeout=T)
        pg.wait_for_timeout(2000)
        frame = next(f for f in pg.frames if f != pg.main_frame)
        assert "stApp" not in frame.content()  # Chromium refused to render it
        assert any("frame-ancestors" in t or "X-Frame-Options" in t for t in refused), refused
        pg.close()
    finally:
        other.shutdown()


def test_admin_views_read_plainly(served, browser, tmp_path: Path) -> None:
    _fx, base = served
    context = browser.new_context(
        viewport={"width": 1400, "height": 900}, timezone_id="Asia/Kolkata"
    )
    pg = context.new_page()
    pg.goto(base + "/")
    pg.get_by_label("Admin password").fill(PASSWORD)
    pg.get_by_role("button", name="Sign in").click()
    pg.get_by_text("Campaign admin").wait_for(timeout=T)
    pg.get_by_role("tab", name="Agreement").click()
    pg.get_by_text("Only alice and bob have answers: their pairwise figures.").wait_for(timeout=T)
    pg.get_by_text("Derived-grade confusion (rows: alice, columns: bob)").wait_for(timeout=T)
    pg.get_by_text(
        "Integrity ok: no structural or page-pool errors, every quote is exact"
    ).wait_for(timeout=T)
    assert "problems" not in pg.inner_text("body")
    heat = pg.locator("[data-testid=stVegaLiteChart]:visible").first  # this tab's heatmap
    heat.scroll_into_view_if_needed()
    box = heat.bounding_box()
    grades = 3  # 0..2 for two conditions: each cell at least 64 px on a side
    assert box is not None and box["width"] >= 64 * grades and box["height"] >= 64 * grades
    pg.screenshot(path=str(tmp_path / "agreement.png"))
    pg.get_by_role("tab", name="Responses (unblinded)").click()
    table = pg.locator(".ev-unblinded")
    table.wait_for(timeout=T)
    text = table.inner_text()
    assert "None" not in text and "nan" not in text
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d IST", text)  # local, 24-hour, zone
    assert re.search(r"[ABC]: bm25 #\d", text)  # routes in full, with their ranks
    assert (
        pg.get_by_text("saved times in Asia/Calcutta, 24-hour").count()
        + pg.get_by_text("saved times in Asia/Kolkata, 24-hour").count()
        == 1
    )
    quote = pg.locator(".ev-unblinded td.wrap").first
    assert quote.evaluate("e => getComputedStyle(e).whiteSpace") == "pre-wrap"
    # Wide: it scrolls sideways inside its box, the first column staying in view.
    first = pg.locator(".ev-unblinded td").first
    assert first.evaluate("e => getComputedStyle(e).position") == "sticky"
    box = pg.locator(".ev-unblinded")
    assert box.evaluate("e => e.scrollWidth > e.clientWidth")
    box.evaluate("e => { e.scrollLeft = 400; }")
    assert abs(first.bounding_box()["x"] - box.bounding_box()["x"]) < 3  # still at the left
    tbox = table.bounding_box()
    assert tbox is not None and tbox["height"] >= 900 * 0.6  # most of the window
    pg.screenshot(path=str(tmp_path / "responses.png"))
    pg.get_by_role("tab", name="Plots").click()
    pg.get_by_text(re.compile(r"time \(Asia/(Kolkata|Calcutta), 24-hour\)")).wait_for(timeout=T)
    chart = pg.locator("[data-testid=stVegaLiteChart]:visible").first.inner_text()
    ticks = re.findall(r"^\d\d:\d\d(?::\d\d(?:\.\d{3})?)?$", chart, flags=re.M)
    assert len(ticks) >= 2 and len(set(ticks)) == len(ticks), ticks  # each tick once
    context.close()
