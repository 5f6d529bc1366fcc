"""The judging screen as a person uses it, against the real `evaudit serve` and Chromium.

A navigation matrix (every way of reaching an item, for blank, partial, complete, "no"
and many-page items): the screen equals the latest journal line and navigation writes
nothing; then one click writes exactly one line that differs only by that click. Also:
the keyboard with focus in every kind of element and hostile page text. The first
screen, the key-press targets and moving on by itself: tests/test_app_keys.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign import journal
from services.annotators import add_annotator
from tests.app_fixture import Fixture, build
from tests.card_driver import (
    T,
    answer,
    at_item,
    blank,
    line_state,
    no_autoadvance,
    quote,
    saved,
    screen_state,
    select,
    settled,
)
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
        return journal.read_journal(self.path).lines

    def latest(self, item: str) -> dict[str, Any]:
        line = journal.latest_by_item(self.lines()).get(item)
        return line_state(line) if line else blank(CONDS)


def goto(pg: Any, item: str) -> None:
    pg.locator(".jc-goto").select_option(
        label=pg.locator(".jc-goto option", has_text=item).inner_text()
    )


def same_as_journal(pg: Any, jr: Journal, item: str, n_lines: int) -> None:
    settled(pg, item)
    assert screen_state(pg) == jr.latest(item), item
    assert len(jr.lines()) == n_lines, f"navigation to {item} wrote a line"


def test_every_way_of_reaching_an_item_shows_its_latest_line(tmp_path: Path, browser) -> None:
    fx = build(tmp_path / "proj", items=4, conditions=3, pages=3, chars=600)
    token = add_annotator(fx.project, "mx", ["initial"])[1]
    jr = Journal(fx, "mx")
    server = Server(fx.project.root, free_port())
    try:
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 4)
        no_autoadvance(pg)  # this test moves between items itself
        # J001 complete: C1 yes with page A and its quote; C2 and C3 no.
        answer(pg, "C1", "yes")
        quote(pg, "C1", "J001-C1-A", fx.quotes["J001-C1-A"])
        answer(pg, "C2", "no")
        answer(pg, "C3", "no")
        saved(pg, "J001", 4)
        pg.locator(".jc-next").click()
        at_item(pg, "J002", 2, 4)
        # J002 partial: C1 no; page B of C2 selected, no quote (the case).
        answer(pg, "C1", "no")
        select(pg, "C2", "J002-C2-B")
        saved(pg, "J002", 6)
        pg.locator(".jc-prev").click()
        same_as_journal(pg, jr, "J001", 6)
        pg.locator(".jc-next").click()
        same_as_journal(pg, jr, "J002", 6)
        pg.keyboard.press("Alt+n")
        at_item(pg, "J003", 3, 4)
        # J003: several pages and quotes, unclear with a comment.
        quote(pg, "C1", "J003-C1-A", fx.quotes["J003-C1-A"])
        quote(pg, "C1", "J003-C1-C", fx.quotes["J003-C1-C"])
        answer(pg, "C1", "yes")
        quote(pg, "C2", "J003-C2-B", fx.quotes["J003-C2-B"])
        pg.locator(".jc-unclear").check()
        pg.locator(".jc-comment").fill("two readings of 'target'")
        pg.locator(".jc-comment").press("Escape")
        saved(pg, "J003", 12)
        n = 12
        assert len(jr.lines()) == n
        # Every way of reaching an item, none of which writes.
        pg.keyboard.press("Alt+n")
        same_as_journal(pg, jr, "J004", n)  # blank
        assert screen_state(pg) == blank(CONDS)
        for item, how in [("J003", "prev"), ("J002", "alt+p"), ("J001", "prev"), ("J002", "next")]:
            if how == "prev":
                pg.locator(".jc-prev").click()
            elif how == "next":
                pg.locator(".jc-next").click()
            else:
                pg.keyboard.press("Alt+p")
            same_as_journal(pg, jr, item, n)
        for item in ["J003", "J001", "J004", "J002"]:
            goto(pg, item)
            same_as_journal(pg, jr, item, n)
        pg.reload()
        same_as_journal(pg, jr, "J002", n)  # resumes at the first incomplete item
        for item in ["J001", "J003", "J004"]:
            goto(pg, item)
            same_as_journal(pg, jr, item, n)
        # A second tab sees the same, and its change shows in the first tab.
        tab2 = browser.new_page(viewport={"width": 1400, "height": 900})
        tab2.goto(server.url(token))
        same_as_journal(tab2, jr, "J002", n)
        for item in ["J001", "J003"]:
            goto(tab2, item)
            same_as_journal(tab2, jr, item, n)
        goto(tab2, "J002")
        settled(tab2, "J002")
        answer(tab2, "C3", "no")
        saved(tab2, "J002", n + 1)
        n += 1
        goto(pg, "J002")
        same_as_journal(pg, jr, "J002", n)
        assert screen_state(pg)["conditions"]["C3"]["answer"] == "no"
        # kill -9 and restart: the open page reconnects on its own.
        server.kill9()
        server = Server(fx.project.root, server.port)
        goto(pg, "J003")
        same_as_journal(pg, jr, "J003", n)
        goto(pg, "J002")
        same_as_journal(pg, jr, "J002", n)
        # One click: exactly one new line, equal to the old one but for the change.
        before = jr.lines()[-1]
        pg.locator(".jc-unclear").check()
        saved(pg, "J002", n + 1)
        after = jr.lines()
        assert len(after) == n + 1
        assert line_state(after[-1]) == {**line_state(before), "unclear": True}
        quote(pg, "C2", "J002-C2-B", fx.quotes["J002-C2-B"])
        saved(pg, "J002", n + 2)
        last = jr.lines()
        assert len(last) == n + 2
        expect = json.loads(json.dumps(line_state(after[-1])))
        expect["conditions"]["C2"]["quotes"] = {"J002-C2-B": fx.quotes["J002-C2-B"]}
        assert line_state(last[-1]) == expect
        assert screen_state(pg) == expect
        tab2.close()
        pg.close()
    finally:
        server.stop()


def test_a_change_made_while_the_server_is_down_is_saved_when_it_returns(
    tmp_path: Path, browser
) -> None:
    fx = build(tmp_path / "proj", items=3, conditions=2, pages=2, chars=300)
    token = add_annotator(fx.project, "dn", ["initial"])[1]
    jr = Journal(fx, "dn")
    server = Server(fx.project.root, free_port())
    try:
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        closed: list[str] = []
        pg.on("console", lambda m: closed.append(m.text) if "onclose" in m.text else None)
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 3)
        no_autoadvance(pg)  # the answer below completes the item: stay on it
        answer(pg, "C1", "no")
        saved(pg, "J001", 1)
        server.kill9()
        deadline = T
        while not closed and deadline > 0:
            pg.wait_for_timeout(100)
            deadline -= 100
        assert closed, "the page never saw the connection close"
        # The user goes on judging while the server is away: the screen keeps the answer
        # as not yet saved, and nothing reaches the journal.
        answer(pg, "C2", "no")
        pg.locator('.evaudit-card[data-pending="1"]').wait_for(timeout=T)
        assert screen_state(pg)["conditions"]["C2"]["answer"] == "no"
        assert len(jr.lines()) == 1
        # Back up: with no further click, the answer is saved exactly once.
        server = Server(fx.project.root, server.port)
        saved(pg, "J001", 2)
        lines = jr.lines()
        assert len(lines) == 2
        assert line_state(lines[-1]) == screen_state(pg)
        assert line_state(lines[-1])["conditions"]["C2"]["answer"] == "no"
        pg.close()
    finally:
        server.stop()


def quote_values(pg: Any) -> list[str]:
    return [str(v) for v in pg.locator(".jc-quote").evaluate_all("qs => qs.map(q => q.value)")]


def test_shortcuts_never_type_into_a_text_box(tmp_path: Path, browser) -> None:
    fx = build(tmp_path / "proj", items=2, conditions=3, pages=3, chars=500)
    token = add_annotator(fx.project, "kb", ["initial"])[1]
    jr = Journal(fx, "kb")
    server = Server(fx.project.root, free_port())
    try:
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 2)
        no_autoadvance(pg)  # this test is about focus and typing, not moving on
        kb = pg.keyboard
        kb.press("y")  # focus on the page: answers the current condition (C1)
        saved(pg, "J001", 1)
        pg.locator('.jc-page.is-current[data-page="J001-C1-A"]').wait_for(timeout=T)
        kb.press(" ")  # page A is the current page: use it as evidence
        saved(pg, "J001", 2)
        kb.press("q")  # into A's quote box, and no "q" in it
        assert pg.locator('.jc-quote[data-page="J001-C1-A"]').evaluate(
            "q => q.getRootNode().activeElement === q"
        )
        assert quote_values(pg) == ["", "", ""]
        kb.type(fx.quotes["J001-C1-A"])  # typing in a box types, shortcut letters too
        for key in ["ArrowDown", "ArrowUp", "PageDown"]:  # and the keys move the caret only
            kb.press(key)
        assert pg.locator('.jc-page.is-current[data-page="J001-C1-A"]').count() == 1
        kb.press("Enter")  # keeps the quote and leaves the box
        saved(pg, "J001", 3)
        kb.press("y")  # focus back on page A: already yes, nothing to save, nothing typed
        q = fx.quotes["J001-C1-A"]
        assert quote_values(pg) == [q, "", ""]
        # Esc leaves the comment box ("s", "j", "n" typed there are text); then N answers.
        pg.locator(".jc-comment").click()
        kb.type("why sjn")
        kb.press("Escape")
        saved(pg, "J001", 4)
        kb.press("k")  # already on the first page: stays
        kb.press("n")
        saved(pg, "J001", 5)
        assert pg.locator(".jc-comment").input_value() == "why sjn"
        # Focus on a select, a button, a checkbox: the letters act, nothing changes there.
        pg.locator(".jc-goto").focus()
        kb.press("y")
        saved(pg, "J001", 6)
        kb.press("ArrowDown")  # scrolls the page text; the select keeps its item
        assert pg.locator(".jc-goto").input_value() == "0"
        pg.locator(".jc-clear").focus()
        kb.press("n")
        saved(pg, "J001", 7)
        pg.locator(".jc-unclear").focus()
        kb.press("q")
        assert pg.locator('.jc-quote[data-page="J001-C1-A"]').evaluate(
            "q => q.getRootNode().activeElement === q"
        )
        kb.press("Escape")  # back on page A
        kb.press("j")  # page B
        pg.locator('.jc-page.is-current[data-page="J001-C1-B"]').wait_for(timeout=T)
        kb.press(" ")
        saved(pg, "J001", 8)
        assert quote_values(pg) == [q, "", ""]
        assert pg.locator(".jc-comment").input_value() == "why sjn"
        lines = jr.lines()
        assert [ln["conditions"]["C1"]["answer"] for ln in lines] == [
            "yes",
            "yes",
            "yes",
            "yes",
            "no",
            "yes",
            "no",
            "no",
        ]
        assert lines[-1]["conditions"]["C1"]["pages"] == ["J001-C1-A", "J001-C1-B"]
        assert lines[-1]["conditions"]["C1"]["quotes"] == {"J001-C1-A": q}
        assert {ln["comment"] for ln in lines[3:]} == {"why sjn"}
        # Alt+N from inside a quote box keeps the typed quote, then moves on.
        kb.press("q")
        kb.type("the words typed")
        kb.press("Alt+n")
        at_item(pg, "J002", 2, 2)
        assert jr.lines()[-1]["conditions"]["C1"]["quotes"]["J001-C1-B"] == "the words typed"
        pg.close()
    finally:
        server.stop()


HOSTILE = (
    '<b>bold</b> <script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2"> '
    "[a link](http://evil.example/) **strong** _em_ $x^2$ :red[red text] <a href='http://evil.example/'>a</a>"
)
HOSTILE_QUOTE = (
    "The <i>report</i> [states](http://evil.example/) that **programme** $x$ :red[met] its target."
)


def make_hostile(fx: Fixture) -> None:
    """Put hostile text into every untrusted field of the packet an annotator sees."""
    path = fx.project.packet_path("initial")
    packet = json.loads(path.read_text())
    for it in packet["items"]:
        it["information_need"] = "Need: " + HOSTILE
        for c in it["conditions"]:
            c["name"] = "Name " + HOSTILE
            c["requirement"] = "Requirement " + HOSTILE
            c["counts"] = ["Counts " + HOSTILE]
            c["does_not_count"] = ["Not " + HOSTILE]
            c["note"] = "Note " + HOSTILE
            for p in c["pages"]:
                p["text"] = f"{HOSTILE}\n{HOSTILE_QUOTE}\n{HOSTILE}"
    packet["rule"] = "Rule " + HOSTILE
    path.write_text(json.dumps(packet))


def test_hostile_text_shows_literally(tmp_path: Path, browser) -> None:
    fx = build(tmp_path / "proj", items=2, conditions=2, pages=2, chars=300)
    make_hostile(fx)
    token = add_annotator(fx.project, "hx", ["initial"])[1]
    server = Server(fx.project.root, free_port())
    try:
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        dialogs: list[str] = []
        requests: list[str] = []
        pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        pg.on("request", lambda r: requests.append(r.url))
        pg.goto(server.url(token))
        at_item(pg, "J001", 1, 2)
        quote(pg, "C1", "J001-C1-A", HOSTILE_QUOTE)
        saved(pg, "J001", 1)
        pg.locator(".jc-comment").fill("comment " + HOSTILE)
        pg.locator(".jc-comment").press("Escape")
        saved(pg, "J001", 2)
        # A sentence taken with the keys is the page's own characters, shown literally.
        pg.keyboard.press("2")
        pg.keyboard.press("s")
        pg.keyboard.press("Enter")
        saved(pg, "J001", 3)
        lines = journal.read_journal(journal.journal_path(fx.project.journal_dir("initial"), "hx"))
        taken = lines.lines[-1]["conditions"]["C2"]["quotes"]["J001-C2-A"]
        assert taken.startswith("<b>bold</b> <script>")
        assert pg.locator('.jc-quote[data-page="J001-C2-A"]').input_value() == taken
        pg.keyboard.press("1")
        for d in pg.locator(".jc details").all():
            d.evaluate("d => d.open = true")
        card = pg.locator(".jc")
        # every field shows the literal characters
        text = str(card.inner_text())
        for field in ("Need: ", "Requirement ", "Counts ", "Not ", "Note "):
            assert field + HOSTILE in text, field
        assert pg.locator(".jc-text").first.inner_text().count(HOSTILE) == 2
        assert pg.locator(".jc-text mark").first.inner_text() == HOSTILE_QUOTE
        assert "Quote matched on page A (highlighted)." in text
        # and no element, link or script came from it
        tags = card.evaluate(
            "c => Array.from(c.querySelectorAll('*')).map(e => e.tagName.toLowerCase())"
        )
        assert not {"a", "b", "i", "img", "script", "strong", "em", "iframe"} & set(tags)
        assert pg.evaluate("() => window.__pwned") is None
        pg.reload()
        at_item(pg, "J001", 1, 2)  # and again from the journal
        assert pg.locator(".jc-comment").input_value() == "comment " + HOSTILE
        assert pg.evaluate("() => window.__pwned") is None
        assert dialogs == []
        assert not [u for u in requests if "evil.example" in u]
        pg.close()
    finally:
        server.stop()
