"""Judging with the keyboard alone, one screen, and the card's fixes, in real Chromium.

Against the real `evaudit serve`: scripted key presses (no mouse) judge a 3-condition
"no, no, no" item in 3 presses and a yes with a quote in 4; the first screen at 1400x900
and 1280x720 (positions from bounding boxes, screenshots kept); Space on every
disclosure writes nothing; a revoked link keeps its unsaved answers on screen and as a
file; the card's code crosses the WebSocket once per page load, a navigation only the
item's data. After every step the screen is compared with the journal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit_app.annotator.component import module_js
from campaign import journal
from services.annotators import add_annotator, revoke_annotator
from tests.app_fixture import Fixture, build
from tests.card_driver import T, at_item, blank, line_state, saved, screen_state, settled
from tests.test_app_browser import (  # chromium_path, browser: tests/browser_fixture.py
    Server,
    free_port,
)

pytestmark = pytest.mark.browser
CONDS = ["C1", "C2", "C3"]


class Journal:
    def __init__(self, fx: Fixture, who: str) -> None:
        self.path = journal.journal_path(fx.project.journal_dir("initial"), who)

    def lines(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return journal.read_journal(self.path).lines

    def latest(self, item: str) -> dict[str, Any]:
        line = journal.latest_by_item(self.lines()).get(item)
        return line_state(line) if line else blank(CONDS)


class Keys:
    """Key presses, counted; the mouse is never used."""

    def __init__(self, pg: Any) -> None:
        self.pg, self.count = pg, 0

    def __call__(self, *keys: str) -> None:
        for key in keys:
            self.pg.keyboard.press(key)
            self.count += 1


def current_cond(pg: Any) -> str:
    return str(pg.locator(".jc-tab.is-current").get_attribute("data-cond"))


def edit_packet(fx: Fixture, change: Any) -> None:
    """Change the packet file before anyone opens it (`change` edits its items)."""
    path = fx.project.packet_path("initial")
    packet = json.loads(path.read_text())
    change(packet["items"])
    path.write_text(json.dumps(packet))


def matches_journal(pg: Any, jr: Journal, item: str) -> None:
    settled(pg, item)
    assert screen_state(pg) == jr.latest(item), item


def test_one_key_per_decision_and_keyboard_quotes(tmp_path: Path, browser) -> None:
    fx = build(tmp_path / "proj", items=4, conditions=3, pages=3, chars=600)

    def short_first_sentence(items: list[dict[str, Any]]) -> None:
        page = items[1]["conditions"][2]["pages"][1]  # J002, C3, page B
        page["text"] = "Yes.\n" + page["text"]

    edit_packet(fx, short_first_sentence)
    token = add_annotator(fx.project, "kq", ["initial"])[1]
    jr = Journal(fx, "kq")
    server = Server(fx.project.root, free_port())
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        pg = context.new_page()
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 4)
        assert pg.locator(".jc-advance").is_checked()  # on unless the annotator turns it off
        press = Keys(pg)
        # "no, no, no": three presses, no waits; the third moves on to J002.
        press("n", "n", "n")
        at_item(pg, "J002", 2, 4)
        assert press.count == 3
        lines = jr.lines()
        assert [ln["item_id"] for ln in lines] == ["J001"] * 3
        assert lines[-1]["complete"] is True
        assert {c["answer"] for c in lines[-1]["conditions"].values()} == {"no"}
        assert screen_state(pg) == blank(CONDS) == jr.latest("J002")
        # A yes with a quote: Y, S (the first sentence showing), ↓ (the next one), Enter.
        press.count = 0
        press("y", "s", "ArrowDown")
        assert pg.locator(".jc-text mark.jc-sentence").inner_text() == fx.quotes["J002-C1-A"]
        press("Enter")
        assert press.count == 4
        pg.locator('.jc-tab.is-current[data-cond="C2"]').wait_for(timeout=T)  # moved on
        saved(pg, "J002", 5)
        shown = pg.locator(".jc-tab.is-current .jc-badge").inner_text()
        assert shown == "open" and jr.latest("J002")["conditions"]["C2"]["answer"] is None
        assert jr.lines()[-1]["conditions"]["C1"] == {
            "answer": "yes",
            "pages": ["J002-C1-A"],
            "quotes": {"J002-C1-A": fx.quotes["J002-C1-A"]},
        }
        # A quote first, then the answer: S, Shift+↓ (two sentences), Enter, Y.
        press("s", "Shift+ArrowDown", "Enter", "y")
        pg.locator('.jc-tab.is-current[data-cond="C3"]').wait_for(timeout=T)
        saved(pg, "J002", 7)
        c2 = jr.lines()[-1]["conditions"]["C2"]
        assert c2["answer"] == "yes" and c2["pages"] == ["J002-C2-A"]
        packet = json.loads(fx.project.packet_path("initial").read_text())
        text = packet["items"][1]["conditions"][1]["pages"][0]["text"]
        assert text.startswith(c2["quotes"]["J002-C2-A"])
        assert c2["quotes"]["J002-C2-A"].endswith(fx.quotes["J002-C2-A"])
        # A one-word sentence does not pass the quote gate: Enter says so and saves nothing.
        n = len(jr.lines())
        press("j", "s")
        assert pg.locator(".jc-text mark.jc-sentence").inner_text() == "Yes."
        press("Enter")
        hint = pg.locator('.jc-page.is-current[data-page="J002-C3-B"] .jc-hint')
        assert hint.inner_text().startswith("Too short for a quote (at least 3 words")
        settled(pg, "J002")
        assert len(jr.lines()) == n
        press("Escape", "n")
        at_item(pg, "J003", 3, 4)  # J002 complete: on to the next incomplete item
        assert len(jr.lines()) == n + 1 and jr.lines()[-1]["complete"] is True
        # Going back to an answered item shows its journal line, and writes nothing.
        n = len(jr.lines())
        for item, key in [("J002", "Alt+p"), ("J001", "Alt+p"), ("J002", "Alt+n")]:
            press(key)
            matches_journal(pg, jr, item)
        assert len(jr.lines()) == n
        # Turned off, the screen stays put; the choice survives a reload (this annotator only).
        pg.locator(".jc-advance").focus()
        press("Space")  # the checkbox's own Space: the preference, no action
        assert not pg.locator(".jc-advance").is_checked()
        pg.reload()
        at_item(pg, "J003", 3, 4)
        assert not pg.locator(".jc-advance").is_checked()
        press("n")
        saved(pg, "J003", n + 1)
        assert current_cond(pg) == "C1"
        assert len(jr.lines()) == n + 1
        other = add_annotator(fx.project, "kq2", ["initial"])[1]
        tab = context.new_page()  # same browser, another annotator: their own preference
        tab.goto(server.url(other))
        at_item(tab, "J001", 1, 4)
        assert tab.locator(".jc-advance").is_checked()
        tab.close()
        # The last items, then the "all done" screen with the counts.
        pg.locator(".jc-advance").focus()
        press("Space")
        assert pg.locator(".jc-advance").is_checked()
        press("2", "n", "n")  # C1 is answered: to C2, then on by itself
        at_item(pg, "J004", 4, 4)
        press("n", "n", "n")
        pg.locator(".jc-done h2", has_text="All done").wait_for(timeout=T)
        settled(pg)
        done = str(pg.locator(".jc-done").inner_text())
        assert "4 of 4 items complete." in done
        lines = jr.lines()
        latest = journal.latest_by_item(lines)
        yes = sum(c["answer"] == "yes" for ln in latest.values() for c in ln["conditions"].values())
        no = sum(c["answer"] == "no" for ln in latest.values() for c in ln["conditions"].values())
        assert (yes, no) == (2, 10)
        assert f"Conditions answered: {yes} yes, {no} no." in done
        assert all(ln["complete"] for ln in latest.values())
        assert "Saved J004" in str(pg.locator(".jc-status").inner_text())
        pg.reload()  # reopening a finished packet shows the same screen
        pg.locator(".jc-done h2", has_text="All done").wait_for(timeout=T)
        pg.locator(".jc-done button", has_text="Review the items").click()
        matches_journal(pg, jr, "J001")
        n = len(jr.lines())
        for item in ["J002", "J003", "J004"]:  # every item shows exactly its journal line
            pg.keyboard.press("Alt+n")
            matches_journal(pg, jr, item)
        assert len(jr.lines()) == n
        context.close()
    finally:
        server.stop()


def inside(pg: Any, sel: str, height: int) -> dict[str, float]:
    """The element is wholly inside the viewport (not cut off at any edge)."""
    box = pg.locator(sel).bounding_box()
    assert box is not None, sel
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, (sel, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= pg.viewport_size["width"], (sel, box)
    return box


@pytest.mark.parametrize("size", [(1400, 900), (1280, 720)])
def test_first_screen_holds_the_nav_answer_page_and_quote_box(
    tmp_path: Path, browser, size: tuple[int, int]
) -> None:
    fx = build(tmp_path / "proj", items=2, conditions=4, pages=5, chars=6000)
    token = add_annotator(fx.project, "sc", ["initial"])[1]
    server = Server(fx.project.root, free_port())
    width, height = size
    try:
        pg = browser.new_page(viewport={"width": width, "height": height})
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 2)
        pg.wait_for_timeout(300)  # let fonts settle before measuring
        shots = Path(__file__).resolve().parent.parent / "build" / "screens"
        shots.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(shots / f"first-screen-{width}x{height}.png"))

        def check() -> None:
            for sel in [
                ".jc-status",
                ".jc-next",
                ".jc-need-text",
                ".jc-req",
                '.jc-ans[data-value="yes"]',
                '.jc-ans[data-value="no"]',
                ".jc-ptabs",
                ".jc-page.is-current .jc-quote",
            ]:
                inside(pg, sel, height)
            text = inside(pg, ".jc-page.is-current .jc-text", height)
            assert text["height"] >= 150  # many lines of the page show
            assert pg.locator(".jc-page:visible").count() == 1  # one candidate page at a time

        check()
        # Keys move through pages and scroll the page text; everything stays in view.
        pg.keyboard.press("j")
        pg.keyboard.press("j")
        pg.locator('.jc-page.is-current[data-page="J001-C1-C"]').wait_for(timeout=T)
        text = pg.locator(".jc-page.is-current .jc-text")
        assert text.evaluate("b => b.scrollHeight > b.clientHeight + 200")
        assert text.evaluate("b => b.scrollTop") == 0
        pg.keyboard.press("ArrowDown")
        line = text.evaluate("b => b.scrollTop")
        pg.keyboard.press("PageDown")
        assert 0 < line < text.evaluate("b => b.scrollTop")
        for key in ["3", "j", "k", "ArrowRight", "s", "ArrowDown"]:
            pg.keyboard.press(key)
        check()
        assert pg.evaluate("() => document.scrollingElement.scrollTop") == 0
        pg.keyboard.press("Escape")
        pg.screenshot(path=str(shots / f"after-keys-{width}x{height}.png"))
        pg.close()
    finally:
        server.stop()


DISCLOSURES = [".jc-more", ".jc-rule", ".jc-keys", ".jc-shared"]


def test_space_on_a_disclosure_opens_it_and_writes_nothing(tmp_path: Path, browser) -> None:
    fx = build(tmp_path / "proj", items=2, conditions=2, pages=2, chars=300)

    def own_bullet(items: list[dict[str, Any]]) -> None:
        items[0]["conditions"][0]["counts"].append("a table of outcomes by programme")

    edit_packet(fx, own_bullet)  # so C1 has its own "Counts, does not count" besides the shared
    token = add_annotator(fx.project, "sp", ["initial"])[1]
    jr = Journal(fx, "sp")
    server = Server(fx.project.root, free_port())
    try:
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 2)
        for sel in DISCLOSURES:
            details = pg.locator(f".jc-left {sel}")
            assert not details.evaluate("d => d.open"), sel
            details.locator("summary").focus()
            pg.keyboard.press("Space")
            assert details.evaluate("d => d.open"), sel
            settled(pg, "J001")
            assert jr.lines() == [], sel
            assert screen_state(pg) == blank(["C1", "C2"]), sel
        pg.close()
    finally:
        server.stop()


def test_a_revoked_link_keeps_the_unsaved_answers(tmp_path: Path, browser) -> None:
    fx = build(tmp_path / "proj", items=2, conditions=3, pages=2, chars=300)
    token = add_annotator(fx.project, "rv", ["initial"])[1]
    jr = Journal(fx, "rv")
    server = Server(fx.project.root, free_port())
    try:
        pg = browser.new_page(viewport={"width": 1280, "height": 720}, accept_downloads=True)
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 2)
        pg.keyboard.press("n")
        saved(pg, "J001", 1)
        revoke_annotator(fx.project, "rv")
        pg.keyboard.press("n")  # C2: refused
        status = pg.locator(".jc-status.jc-error")
        status.wait_for(timeout=T)
        assert "NOT saved" in status.inner_text()
        assert "1 change NOT saved, still on this screen." in status.inner_text()
        assert pg.locator("text=Access refused").count() == 0
        assert len(jr.lines()) == 1
        on_screen = screen_state(pg)
        assert on_screen["conditions"]["C2"]["answer"] == "no"  # still shown, not saved
        assert line_state(jr.lines()[-1])["conditions"]["C2"]["answer"] is None
        pg.keyboard.press("3")
        pg.keyboard.press("y")  # a second refused change
        pg.locator(".jc-status", has_text="2 changes NOT saved").wait_for(timeout=T)
        for sel in [".jc-status", ".jc-unsaved"]:  # the refusal and its file are in view
            inside(pg, sel, 720)
        with pg.expect_download() as dl:
            pg.locator(".jc-unsaved").click()
        doc = json.loads(Path(dl.value.path()).read_text())
        assert doc["format"] == "evaudit-responses" and doc["annotator"] == "rv"
        body = doc["items"]["J001"]
        assert body["conditions"]["C1"]["answer"] == "no"
        assert body["conditions"]["C2"]["answer"] == "no"
        assert body["conditions"]["C3"]["answer"] == "yes"
        assert body["complete"] is False
        assert len(jr.lines()) == 1
        pg.reload()  # a new page load of a revoked link gets nothing
        pg.locator("text=Access refused").wait_for(timeout=T)
        assert pg.locator(".jc").count() == 0
        pg.close()
    finally:
        server.stop()


def test_code_is_sent_once_per_page_load(tmp_path: Path, browser) -> None:
    fx = build(tmp_path / "proj", items=6, conditions=3, pages=3, chars=1000)
    token = add_annotator(fx.project, "by", ["initial"])[1]
    server = Server(fx.project.root, free_port())
    marker = b"globalThis.JudgeCardCSS"  # in the code element only
    assert marker in module_js().encode()
    try:
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        frames: list[bytes] = []

        def on_ws(ws: Any) -> None:
            ws.on(
                "framereceived", lambda f: frames.append(f if isinstance(f, bytes) else f.encode())
            )

        pg.on("websocket", on_ws)
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 6)
        assert sum(marker in f for f in frames) == 1
        code = len(module_js().encode())
        per_nav = []
        for n in range(2, 7):
            frames.clear()
            pg.keyboard.press("Alt+n")
            at_item(pg, f"J00{n}", n, 6)
            pg.wait_for_timeout(200)
            assert not any(marker in f for f in frames)
            per_nav.append(sum(len(f) for f in frames))
        frames.clear()
        pg.keyboard.press("Alt+p")
        at_item(pg, "J005", 5, 6)
        pg.keyboard.press("y")
        saved(pg, "J005", 1)
        assert not any(marker in f for f in frames)
        # The item's data: 9 page texts of 1,000 characters, the list of items, the state.
        item_text = sum(
            len(p["text"].encode())
            for c in json.loads(fx.project.packet_path("initial").read_text())["items"][1][
                "conditions"
            ]
            for p in c["pages"]
        )
        assert max(per_nav) < item_text + 8_000 < code, (per_nav, item_text, code)
        print(f"bytes per navigation {per_nav}, item text {item_text}, code {code}")
        pg.close()
    finally:
        server.stop()


def test_a_trec_topic_shows_its_title_and_description(tmp_path: Path, browser) -> None:
    from tests.classic_fixture import make_trec
    from tests.conftest import cli_json, run_cli

    trec = make_trec(tmp_path / "trec")
    d = tmp_path / "p"
    run_cli("init", d, "--admin-password", "pw-for-tests-123")
    cli_json("ingest", d, "--trec-docs", trec["docs"])
    run_cli(
        "load", d, "--trec-topics", trec["topics"], "--trec-qrels", trec["qrels"],
        "--relevant-from", 1, "--json",
    )  # fmt: skip
    cli_json("packet", "build", d, "--name", "initial", "--seed", 7, "--total", 6)
    from campaign.project import Project

    project = Project(d)
    token = add_annotator(project, "tr", ["initial"])[1]
    first = json.loads(project.packet_path("initial").read_text())["items"][0]
    title = first["information_need"]
    description = f'Find reports on "{title}".'  # the topic's <desc> (tests/classic_fixture.py)
    assert first["conditions"][0]["note"] == description
    server = Server(d, free_port())
    try:
        pg = browser.new_page(viewport={"width": 1280, "height": 720})
        pg.goto(server.url(token))
        settled(pg, first["item_id"])
        assert pg.locator("[data-role=need]").inner_text() == title
        note = pg.locator(".jc-cond [data-role=note]")
        assert note.inner_text() == description  # shown, not folded away
        inside(pg, ".jc-cond [data-role=note]", 720)
        pg.close()
    finally:
        server.stop()
