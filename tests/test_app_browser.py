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

from audit_app import journal
from audit_app.access import add_annotator, login_url
from tests.app_fixture import Fixture, build

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
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
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium missing: apt-get install chromium")
    return CHROMIUM


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


@pytest.fixture(scope="module")
def browser(chromium_path: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=ARGS)
        yield b
        b.close()


# The script run has finished and no element of the previous run is still on screen.
IDLE = (
    "() => !!document.querySelector('[data-testid=stApp][data-test-script-state=notRunning]')"
    " && !document.querySelector('[data-stale=true]')"
)


def answer(pg, item: str, cond: str, value: str) -> None:
    pg.wait_for_function(IDLE, timeout=T)
    pg.locator(f".st-key-cond-{item}-{cond} [role=radiogroup] label").filter(
        has_text=re.compile(f"^{value}$")
    ).click()


def saved(pg, item: str, seq: int, cond: str | None = None) -> None:
    """This save's confirmation in the nav bar and, for a condition's widget, next to it."""
    pg.locator(".st-key-ann-status").get_by_text(f"Saved {item} (#{seq},").wait_for(timeout=T)
    if cond is not None:
        where = pg.locator(f".st-key-answer-{item}-{cond}")
        where.get_by_text(f"Saved {item} (#{seq},").wait_for(timeout=T)


def quote(pg, pkey: str, text: str) -> None:
    box = pg.get_by_label(f"Quote from page {pkey[-1]} ({pkey})")
    box.fill(text)
    box.press("Enter")


def test_login_gates_reload_and_isolation(site, browser) -> None:
    fx, server, tokens = site
    pg = browser.new_page()
    pg.goto(server.url(tokens["alice"]))
    pg.get_by_text("Item J001 (1 of 10)").wait_for(timeout=T)
    assert "signed in as alice" in pg.inner_text("body")
    answer(pg, "J001", "C1", "yes")
    saved(pg, "J001", 1, "C1")
    quote(pg, "J001-C1-B", fx.quotes["J001-C1-B"])
    saved(pg, "J001", 2, "C1")
    pg.get_by_text("Quote matched on page B").wait_for(timeout=T)
    assert pg.locator("mark").first.inner_text().lower().startswith("the report states")
    answer(pg, "J001", "C2", "yes")
    saved(pg, "J001", 3, "C2")
    # Only the condition that made the latest save shows it: C1's line is gone.
    assert "Saved" not in pg.locator(".st-key-answer-J001-C1").inner_text()
    quote(pg, "J001-C2-A", "words that are nowhere on this page")
    saved(pg, "J001", 4, "C2")
    pg.get_by_text("the quote is not on this page").wait_for(timeout=T)
    assert "Item J001 is not complete" in pg.inner_text("body")
    answer(pg, "J001", "C2", "no")  # page A still selected -> refused
    saved(pg, "J001", 5, "C2")
    pg.get_by_text("A 'no' carries no selected page").wait_for(timeout=T)
    lines = journal.read_journal(journal.journal_path(fx.project.journal_dir("initial"), "alice"))
    assert len(lines.lines) == 5 and lines.lines[-1]["complete"] is False
    # Reload: every draft comes back, resuming at the first incomplete item.
    pg.reload()
    pg.get_by_text("Item J001 (1 of 10)").wait_for(timeout=T)
    cond1 = pg.locator(".st-key-cond-J001-C1")
    assert cond1.get_by_role("radio", name="yes").is_checked()
    assert pg.get_by_label("Quote from page B (J001-C1-B)").input_value() == fx.quotes["J001-C1-B"]
    assert pg.get_by_label("Quote from page A (J001-C2-A)").input_value().startswith("words that")
    assert pg.locator(".st-key-cond-J001-C2").get_by_role("radio", name="no").is_checked()
    # Bob's answers never reach Alice's browser, nor any admin-key value.
    bob = browser.new_page()
    bob.goto(server.url(tokens["bob"]))
    bob.get_by_text("Item J001 (1 of 10)").wait_for(timeout=T)
    answer(bob, "J001", "C1", "yes")
    saved(bob, "J001", 1)
    quote(bob, "J001-C1-C", fx.quotes["J001-C1-C"])
    saved(bob, "J001", 2)
    assert "signed in as bob" in bob.inner_text("body")
    pg.reload()
    pg.get_by_text("Item J001 (1 of 10)").wait_for(timeout=T)
    html = pg.content()
    assert fx.quotes["J001-C1-C"] not in [i.input_value() for i in pg.locator("input").all()]
    assert "bob" not in pg.inner_text("body")
    pg.get_by_text("Show page A image").first.click()
    pg.locator("[data-testid='stImage'] img").first.wait_for(timeout=T)
    for i in range(2, 11):  # every item's HTML is scanned for admin-key values
        html += pg.content()
        pg.keyboard.press("Alt+n")
        pg.get_by_text(f"Item J{i:03d} ({i} of 10)").wait_for(timeout=T)
    html += pg.content()
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
    assert "Item J001" not in pg.inner_text("body")
    pg.goto(server.url(tokens["ann09"]) + "&admin=1&page=admin")
    pg.get_by_text("Item J001 (1 of 10)").wait_for(timeout=T)
    body = pg.inner_text("body")
    assert "Admin password" not in body and "Campaign admin" not in body
    # The admin page itself asks for the password first.
    pg.goto(f"http://127.0.0.1:{server.port}/")
    pg.get_by_text("Admin password").wait_for(timeout=T)
    assert "Campaign admin" not in pg.inner_text("body")
    pg.close()


def test_concurrent_sessions_keep_every_save(site, chromium_path: str) -> None:
    fx, server, tokens = site
    names = [f"ann{i:02d}" for i in range(10)]

    async def one(browser, name: str) -> int:
        ctx = await browser.new_context()
        ctx.set_default_timeout(2 * T)  # ten sessions share two cores
        pg = await ctx.new_page()
        await pg.goto(server.url(tokens[name]), timeout=2 * T)
        await pg.get_by_text("Item J001 (1 of 10)").wait_for(timeout=T)
        seq = 0
        for i in range(10):
            item = f"J{i + 1:03d}"
            for cond in ("C1", "C2"):
                await pg.wait_for_function(IDLE, timeout=T)
                await (
                    pg.locator(f".st-key-cond-{item}-{cond} [role=radiogroup] label")
                    .filter(has_text=re.compile("^no$"))
                    .click()
                )
                seq += 1
                await (
                    pg.locator(f".st-key-answer-{item}-{cond}")
                    .get_by_text(f"Saved {item} (#{seq},")
                    .wait_for(timeout=2 * T)
                )
            if i < 9:
                await pg.get_by_role("button", name="Next").click()
                await pg.get_by_text(f"Item J{i + 2:03d} (").wait_for(timeout=T)
        assert f"signed in as {name}" in await pg.inner_text("body")
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
        pg.get_by_text("Item J001 (1 of 4)").wait_for(timeout=T)
        answer(pg, "J001", "C1", "yes")
        saved(pg, "J001", 1, "C1")
        quote(pg, "J001-C1-A", fx.quotes["J001-C1-A"])
        saved(pg, "J001", 2, "C1")
        answer(pg, "J001", "C2", "no")
        saved(pg, "J001", 3, "C2")
        pg.keyboard.press("Alt+n")
        pg.get_by_text("Item J002 (2 of 4)").wait_for(timeout=T)
        answer(pg, "J002", "C1", "no")
        saved(pg, "J002", 4, "C1")
        answer(pg, "J002", "C2", "yes")  # possibly in flight when the server dies
        server.kill9()
        confirmed = journal.read_journal(path).lines
        assert [ln["seq"] for ln in confirmed][:4] == [1, 2, 3, 4]
        server = Server(fx.project.root, server.port)
        pg.goto(server.url(token))
        pg.get_by_text("Item J002 (2 of 4)").wait_for(timeout=T)  # J001 is complete
        assert pg.locator(".st-key-cond-J002-C1").get_by_role("radio", name="no").is_checked()
        pg.keyboard.press("Alt+p")
        pg.get_by_text("Item J001 (1 of 4)").wait_for(timeout=T)
        assert (
            pg.get_by_label("Quote from page A (J001-C1-A)").input_value() == fx.quotes["J001-C1-A"]
        )
        assert journal.latest_by_item(journal.read_journal(path).lines)["J001"]["complete"]
        pg.close()
    finally:
        server.stop()
