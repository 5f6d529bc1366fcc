"""Two real `evaudit serve` servers on one campaign whose journals, registry and overrides
live in a real PostgreSQL (tests/pg_fixture.py), driven by headless Debian Chromium.

Sessions spread over both servers keep every save; kill -9 of one server loses no
confirmed save and the other keeps serving; a revocation made on one is refused by the
other at once; PostgreSQL stopped during a save shows "NOT saved", then the save goes
through after recovery without restarting the server."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from campaign import journal, journal_pg
from services.annotators import add_annotator, revoke_annotator
from tests.app_fixture import Fixture, build
from tests.browser_fixture import ARGS  # chromium_path, browser: tests/browser_fixture.py
from tests.card_driver import T, answer, at_item, no_autoadvance, saved, settled
from tests.pg_fixture import PgServer
from tests.test_app_browser import Server, free_port

pytestmark = pytest.mark.browser

SESSIONS = 20  # concurrent browser sessions (the figure), half on each server
ITEMS = 10  # x 2 conditions = 20 saves each


@pytest.fixture(scope="module")
def two_servers(
    tmp_path_factory: pytest.TempPathFactory, pg_server: PgServer, chromium_path: str
) -> Iterator[tuple[Fixture, list[Server], dict[str, str]]]:
    base = tmp_path_factory.mktemp("pg-browser")
    fx = build(base / "proj", items=ITEMS, pdf_dir=base / "pdfs")
    journal_pg.set_backend(fx.project.root, journal_pg.new_config(pg_server.new_database()))
    tokens = {}
    for name in [f"ann{i:02d}" for i in range(SESSIONS)] + ["kim", "rev", "pat"]:
        tokens[name] = add_annotator(fx.project, name, ["initial"])[1]
    servers = [Server(fx.project.root, free_port()), Server(fx.project.root, free_port())]
    yield fx, servers, tokens
    for s in servers:
        s.stop()


def _lines(fx: Fixture, name: str) -> list[dict]:
    return journal.read_journal(journal.journal_path(fx.project.journal_dir("initial"), name)).lines


def test_sessions_over_two_servers_keep_every_save(two_servers, chromium_path: str) -> None:
    fx, servers, tokens = two_servers
    names = [f"ann{i:02d}" for i in range(SESSIONS)]

    async def one(browser, name: str, server: Server) -> int:
        ctx = await browser.new_context()
        ctx.set_default_timeout(3 * T)  # twenty sessions share two cores
        pg = await ctx.new_page()
        await pg.goto(server.url(tokens[name]), timeout=3 * T)
        await pg.locator('.evaudit-card[data-pending="0"][data-item="J001"]').wait_for()
        seq = 0
        for i in range(ITEMS):
            item = f"J{i + 1:03d}"
            for cond in ("C1", "C2"):
                await pg.locator(f'.jc-tab[data-cond="{cond}"]').click()
                await pg.locator(f'.jc-tab.is-current[data-cond="{cond}"]').wait_for()
                await pg.locator('.jc-ans[data-value="no"]').click()
                seq += 1
                status = pg.locator(".jc-status", has_text=re.compile(rf"Saved {item} · #{seq} ·"))
                await status.wait_for()
            if i < ITEMS - 1:  # the item is complete: the card moves on by itself
                nxt = f"J{i + 2:03d}"
                await pg.locator(f'.evaudit-card[data-pending="0"][data-item="{nxt}"]').wait_for()
        assert f"signed in as {name}" in await pg.locator(".jc").inner_text()
        await ctx.close()
        return seq

    async def main() -> list[int]:
        from playwright.async_api import async_playwright

        async with async_playwright() as pw:
            b = await pw.chromium.launch(executable_path=chromium_path, headless=True, args=ARGS)
            try:
                runs = (one(b, n, servers[k % 2]) for k, n in enumerate(names))
                return list(await asyncio.gather(*runs))
            finally:
                await b.close()

    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(lambda: asyncio.run(main())).result() == [2 * ITEMS] * SESSIONS
    for name in names:
        lines = _lines(fx, name)
        assert [ln["seq"] for ln in lines] == list(range(1, 2 * ITEMS + 1))
        assert {ln["annotator"] for ln in lines} == {name}  # none crossed
        latest = journal.latest_by_item(lines)
        assert len(latest) == ITEMS and all(v["complete"] for v in latest.values())


def test_kill9_one_server_the_other_serves_every_confirmed_save(two_servers, browser) -> None:
    fx, servers, tokens = two_servers
    a, b = servers
    pg = browser.new_page()
    pg.goto(a.url(tokens["kim"]))
    at_item(pg, "J001", 1, ITEMS)
    no_autoadvance(pg)  # this test moves between items itself
    answer(pg, "C1", "no")
    saved(pg, "J001", 1)
    answer(pg, "C2", "no")
    saved(pg, "J001", 2)
    pg.keyboard.press("Alt+n")
    at_item(pg, "J002", 2, ITEMS)
    answer(pg, "C1", "no")
    saved(pg, "J002", 3)
    answer(pg, "C2", "no")  # possibly in flight when the server dies
    a.kill9()
    assert [ln["seq"] for ln in _lines(fx, "kim")][:3] == [1, 2, 3]
    pg.goto(b.url(tokens["kim"]))  # the same person, now on the other server
    settled(pg)
    confirmed = len(_lines(fx, "kim"))
    item = "J002" if confirmed == 3 else "J003"
    at_item(pg, item, int(item[1:]), ITEMS)
    answer(pg, "C1", "no") if item == "J003" else answer(pg, "C2", "no")
    saved(pg, item, confirmed + 1)
    assert [ln["seq"] for ln in _lines(fx, "kim")] == list(range(1, confirmed + 2))
    pg.close()
    servers[0] = Server(fx.project.root, a.port)  # back for the tests after this one


def test_revoked_on_one_server_refused_by_the_other(two_servers, browser) -> None:
    fx, servers, tokens = two_servers
    a, b = servers
    pg = browser.new_page()
    pg.goto(b.url(tokens["rev"]))
    at_item(pg, "J001", 1, ITEMS)
    answer(pg, "C1", "no")
    saved(pg, "J001", 1)
    # The admin of server A revokes (the admin page and `evaudit annotator revoke` both
    # call revoke_annotator on the registry, which is in the database).
    revoke_annotator(fx.project, "rev")
    answer(pg, "C2", "no")
    # Refused at the save (the callback re-checks the token) and the page then closes.
    pg.get_by_text(re.compile("no longer valid|Access refused")).first.wait_for(timeout=T)
    assert len(_lines(fx, "rev")) == 1
    other = browser.new_page()
    other.goto(a.url(tokens["rev"]))
    other.get_by_text("Access refused").wait_for(timeout=T)
    pg.close()
    other.close()


def test_database_stopped_during_a_save_then_recovery(
    two_servers, browser, pg_server: PgServer
) -> None:
    fx, servers, tokens = two_servers
    pg = browser.new_page()
    pg.goto(servers[1].url(tokens["pat"]))
    at_item(pg, "J001", 1, ITEMS)
    answer(pg, "C1", "no")
    saved(pg, "J001", 1)
    pg_server.stop()
    try:
        answer(pg, "C2", "no")
        pg.locator(".jc-status", has_text="NOT saved (journal database").wait_for(timeout=T)
    finally:
        pg_server.start()
    assert len(_lines(fx, "pat")) == 1
    # The change is still on screen and in the outbox; the next change retries it, on a
    # new connection the server opened by itself.
    answer(pg, "C1", "yes")
    pg.locator(".jc-status", has_text=re.compile(r"Saved J001 · #3 ·")).wait_for(timeout=T)
    lines = _lines(fx, "pat")
    assert [ln["seq"] for ln in lines] == [1, 2, 3]
    assert lines[1]["conditions"]["C2"]["answer"] == "no"
    pg.close()
