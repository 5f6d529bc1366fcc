"""End to end in headless Debian Chromium against the real `evaudit serve` server."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from campaign import journal
from services.annotators import add_annotator, login_url
from tests.app_fixture import Fixture, build
from tests.browser_fixture import ARGS  # chromium_path, browser: tests/browser_fixture.py
from tests.card_driver import (
    answer,
    at_item,
    no_autoadvance,
    quote,
    saved,
    screen_state,
    visible_text,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
EVAUDIT = str(ROOT / ".venv" / "bin" / "evaudit")
T = 60_000  # ms: generous, the machine is shared; tests never assert on time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, root: Path, port: int) -> None:
        self.root, self.port = root, port
        self.log = (root.parent / f"serve-{port}.log").open("ab")
        # `evaudit serve` execs Streamlit, so this pid is the server itself.
        self.proc = subprocess.Popen(
            [EVAUDIT, "serve", str(root), "--port", str(port)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health") as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"server did not start; see {self.log.name}")

    def url(self, token: str) -> str:
        return login_url(token, "127.0.0.1", self.port)

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        self.log.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Fixture, Server, dict]]:
    base = tmp_path_factory.mktemp("browser")
    fx = build(base / "proj", items=10, pdf_dir=base / "pdfs")
    tokens = {}
    for name in ["alice", "bob"] + [f"ann{i:02d}" for i in range(10)]:
        tokens[name] = add_annotator(fx.project, name, ["initial"])[1]
    server = Server(fx.project.root, free_port())
    yield fx, server, tokens
    server.stop()


def test_login_gates_reload_and_isolation(site, browser) -> None:
    fx, server, tokens = site
    pg = browser.new_page()
    pg.goto(server.url(tokens["alice"]))
    at_item(pg, "J001", 1, 10)
    no_autoadvance(pg)  # the checks below read each condition after its answer
    assert "signed in as alice" in visible_text(pg)
    answer(pg, "C1", "yes")
    saved(pg, "J001", 1)
    quote(pg, "C1", "J001-C1-B", fx.quotes["J001-C1-B"])
    saved(pg, "J001", 2)
    pg.get_by_text("Quote matched on page B (highlighted).").wait_for(timeout=T)
    assert pg.locator(".jc-text mark").first.inner_text().lower().startswith("the report states")
    answer(pg, "C2", "yes")
    saved(pg, "J001", 3)
    quote(pg, "C2", "J001-C2-A", "words that are nowhere on this page")
    saved(pg, "J001", 4)
    pg.get_by_text("the quote is not on this page").wait_for(timeout=T)
    assert pg.locator('.jc-tab[data-cond="C2"] .jc-badge').inner_text() == "needs attention"
    answer(pg, "C2", "no")  # page A still selected -> refused by the gate
    saved(pg, "J001", 5)
    pg.get_by_text("A 'no' carries no selected page").wait_for(timeout=T)
    lines = journal.read_journal(journal.journal_path(fx.project.journal_dir("initial"), "alice"))
    assert len(lines.lines) == 5 and lines.lines[-1]["complete"] is False
    before = screen_state(pg)
    # Reload: every draft comes back, resuming at the first incomplete item.
    pg.reload()
    at_item(pg, "J001", 1, 10)
    assert screen_state(pg) == before
    assert before["conditions"]["C1"]["quotes"] == {"J001-C1-B": fx.quotes["J001-C1-B"]}
    assert before["conditions"]["C2"]["answer"] == "no"
    # Bob's answers never reach Alice's browser, nor any admin-key value.
    bob = browser.new_page()
    bob.goto(server.url(tokens["bob"]))
    at_item(bob, "J001", 1, 10)
    answer(bob, "C1", "yes")
    saved(bob, "J001", 1)
    quote(bob, "C1", "J001-C1-C", fx.quotes["J001-C1-C"])
    saved(bob, "J001", 2)
    assert "signed in as bob" in visible_text(bob)
    pg.reload()
    at_item(pg, "J001", 1, 10)
    html = pg.content() + visible_text(pg)
    assert fx.quotes["J001-C1-C"] not in screen_state(pg)["conditions"]["C1"]["quotes"].values()
    assert "bob" not in visible_text(pg)
    pg.locator(".jc-img").first.click()
    pg.locator(".jc-image img").first.wait_for(timeout=T)
    for i in range(2, 11):  # every item's text is scanned for admin-key values
        html += pg.locator(".evaudit-card").inner_html() + visible_text(pg)
        pg.keyboard.press("Alt+n")
        at_item(pg, f"J{i:03d}", i, 10)
    html += pg.locator(".evaudit-card").inner_html() + visible_text(pg)
    leaked = [s for s in fx.secret_values if s in html]
    key = json.loads(fx.project.key_path("initial").read_text())
    assert not leaked, leaked
    assert key["packet_sha256"] not in html and ".pdf" not in html
    pg.close()
    bob.close()


def test_wrong_token_and_admin_isolation(site, browser) -> None:
    _fx, server, tokens = site
    pg = browser.new_page()
    pg.goto(server.url("not-a-real-token"))
    pg.get_by_text("Access refused").wait_for(timeout=T)
    assert "Item J001" not in visible_text(pg)
    pg.goto(server.url(tokens["ann09"]) + "&admin=1&page=admin")
    at_item(pg, "J001", 1, 10)
    body = visible_text(pg)
    assert "Admin password" not in body and "Campaign admin" not in body
    # The admin page itself asks for the password first.
    pg.goto(f"http://127.0.0.1:{server.port}/")
    pg.get_by_text("Admin password").wait_for(timeout=T)
    assert "Campaign admin" not in visible_text(pg)
    pg.close()


def test_concurrent_sessions_keep_every_save(site, chromium_path: str) -> None:
    fx, server, tokens = site
    names = [f"ann{i:02d}" for i in range(10)]

    async def one(browser, name: str) -> int:
        ctx = await browser.new_context()
        ctx.set_default_timeout(2 * T)  # ten sessions share two cores
        pg = await ctx.new_page()
        await pg.goto(server.url(tokens[name]), timeout=2 * T)
        await pg.locator('.evaudit-card[data-pending="0"][data-item="J001"]').wait_for(timeout=T)
        seq = 0
        for i in range(10):
            item = f"J{i + 1:03d}"
            for cond in ("C1", "C2"):
                await pg.locator(f'.jc-tab[data-cond="{cond}"]').click()
                await pg.locator(f'.jc-tab.is-current[data-cond="{cond}"]').wait_for(timeout=T)
                await pg.locator('.jc-ans[data-value="no"]').click()
                seq += 1
                await (
                    pg.locator(".jc-status", has_text=re.compile(rf"Saved {item} · #{seq} ·"))
                ).wait_for(timeout=2 * T)
            if i < 9:  # the item is complete: the card moves on to the next one by itself
                nxt = f"J{i + 2:03d}"
                await pg.locator(f'.evaudit-card[data-pending="0"][data-item="{nxt}"]').wait_for(
                    timeout=2 * T
                )
        assert f"signed in as {name}" in await pg.locator(".jc").inner_text()
        await pg.locator(".jc-done h2", has_text="All done").wait_for(timeout=2 * T)
        await ctx.close()
        return seq

    async def main() -> list[int]:
        from playwright.async_api import async_playwright

        async with async_playwright() as pw:
            b = await pw.chromium.launch(executable_path=chromium_path, headless=True, args=ARGS)
            try:
                return list(await asyncio.gather(*(one(b, n) for n in names)))
            finally:
                await b.close()

    # The sync Playwright fixture owns this thread's event loop: run the async sessions beside it.
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(lambda: asyncio.run(main())).result() == [20] * 10
    for name in names:
        lines = journal.read_journal(journal.journal_path(fx.project.journal_dir("initial"), name))
        assert lines.skipped == 0
        assert [ln["seq"] for ln in lines.lines] == list(range(1, 21))
        assert {ln["annotator"] for ln in lines.lines} == {name}
        latest = journal.latest_by_item(lines.lines)
        assert len(latest) == 10 and all(v["complete"] for v in latest.values())


def test_kill9_keeps_every_confirmed_save(tmp_path: Path, browser) -> None:
    fx = build(tmp_path / "proj", items=4)
    token = add_annotator(fx.project, "kim", ["initial"])[1]
    server = Server(fx.project.root, free_port())
    path = journal.journal_path(fx.project.journal_dir("initial"), "kim")
    try:
        pg = browser.new_page()
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 4)
        no_autoadvance(pg)  # this test moves between items itself
        answer(pg, "C1", "yes")
        saved(pg, "J001", 1)
        quote(pg, "C1", "J001-C1-A", fx.quotes["J001-C1-A"])
        saved(pg, "J001", 2)
        answer(pg, "C2", "no")
        saved(pg, "J001", 3)
        pg.keyboard.press("Alt+n")
        at_item(pg, "J002", 2, 4)
        answer(pg, "C1", "no")
        saved(pg, "J002", 4)
        answer(pg, "C2", "yes")  # possibly in flight when the server dies
        server.kill9()
        confirmed = journal.read_journal(path).lines
        assert [ln["seq"] for ln in confirmed][:4] == [1, 2, 3, 4]
        server = Server(fx.project.root, server.port)
        pg.goto(server.url(token))
        at_item(pg, "J002", 2, 4)  # J001 is complete
        latest = journal.latest_by_item(journal.read_journal(path).lines)
        assert screen_state(pg)["conditions"] == latest["J002"]["conditions"]
        assert latest["J002"]["conditions"]["C1"]["answer"] == "no"
        pg.keyboard.press("Alt+p")
        at_item(pg, "J001", 1, 4)
        assert screen_state(pg)["conditions"]["C1"]["quotes"] == {
            "J001-C1-A": fx.quotes["J001-C1-A"]
        }
        assert latest["J001"]["complete"]
        pg.close()
    finally:
        server.stop()
