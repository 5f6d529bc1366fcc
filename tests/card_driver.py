"""Driving the judging card in a real browser the way a person does, and reading it back.

Selectors are the card's own (services/card/card.js); Playwright's CSS engine
reaches into the component's shadow root.
"""

from __future__ import annotations

import re
from typing import Any

T = 60_000  # ms: generous, the machine is shared; tests never assert on time
CARD = ".evaudit-card"


def settled(pg: Any, item: str | None = None, timeout: int = T) -> None:
    """The card shows `item` (if given) and no action awaits the server."""
    sel = f'{CARD}[data-pending="0"]' + (f'[data-item="{item}"]' if item else "")
    pg.locator(sel).wait_for(timeout=timeout)


def heading(pg: Any) -> str:
    return str(pg.locator(".jc-need h2").inner_text())


def at_item(pg: Any, item: str, n: int, total: int) -> None:
    settled(pg, item)
    pg.locator(".jc-need h2", has_text=f"item {item} ({n} of {total})").wait_for(timeout=T)


def condition(pg: Any, cond: str) -> None:
    """Make `cond` the current condition (a click on its tab; nothing is sent)."""
    pg.locator(f'.jc-tab[data-cond="{cond}"]').click()
    pg.locator(f'.jc-tab.is-current[data-cond="{cond}"]').wait_for(timeout=T)


def page(pg: Any, cond: str, pkey: str) -> None:
    """Show candidate page `pkey` of `cond` (a click on its page tab; nothing is sent)."""
    condition(pg, cond)
    pg.locator(f'.jc-ptab[data-page="{pkey}"]').click()
    pg.locator(f'.jc-page.is-current[data-page="{pkey}"]').wait_for(timeout=T)


def no_autoadvance(pg: Any) -> None:
    """Turn off moving on after each answer (a preference kept in this browser)."""
    box = pg.locator(".jc-advance")
    if box.is_checked():
        box.uncheck()
    box.blur()  # keys go to the card again, not to this checkbox


def answer(pg: Any, cond: str, value: str) -> None:
    condition(pg, cond)
    pg.locator(f'.jc-ans[data-value="{value}"]').click()


def select(pg: Any, cond: str, pkey: str) -> None:
    page(pg, cond, pkey)
    pg.locator(f'.jc-sel[data-page="{pkey}"]').click()


def quote(pg: Any, cond: str, pkey: str, text: str) -> None:
    page(pg, cond, pkey)
    box = pg.locator(f'.jc-quote[data-page="{pkey}"]')
    box.fill(text)
    box.press("Enter")


def saved(pg: Any, item: str, seq: int) -> None:
    pg.locator(".jc-status", has_text=re.compile(rf"Saved {item} · #{seq} ·")).wait_for(timeout=T)
    settled(pg)


def screen_state(pg: Any) -> dict[str, Any]:
    """What the screen shows for the current item, in the journal's shape.

    Each condition is read from its own tab (switching tabs sends nothing); every page's
    checkbox and quote box is read, shown or not (one page shows at a time)."""
    conds: dict[str, Any] = {}
    keys = [str(k) for k in pg.locator(".jc-tab").evaluate_all("ts => ts.map(t => t.dataset.cond)")]
    current = pg.locator(".jc-tab.is-current").get_attribute("data-cond")
    for ckey in keys:
        condition(pg, ckey)
        on = pg.locator('.jc-ans[aria-checked="true"]')
        value = on.get_attribute("data-value") if on.count() else None
        pages = [
            str(p)
            for p in pg.locator(".jc-sel").evaluate_all(
                "bs => bs.filter(b => b.checked).map(b => b.dataset.page)"
            )
        ]
        quotes = {
            str(k): str(v)
            for k, v in pg.locator(".jc-quote").evaluate_all(
                "qs => qs.map(q => [q.dataset.page, q.value])"
            )
            if k in pages and v != ""
        }
        conds[ckey] = {"answer": value, "pages": pages, "quotes": quotes}
    if current:
        condition(pg, current)
    return {
        "conditions": conds,
        "unclear": pg.locator(".jc-unclear").is_checked(),
        "comment": pg.locator(".jc-comment").input_value(),
    }


def blank(conds: list[str]) -> dict[str, Any]:
    return {
        "conditions": {c: {"answer": None, "pages": [], "quotes": {}} for c in conds},
        "unclear": False,
        "comment": "",
    }


def line_state(line: dict[str, Any]) -> dict[str, Any]:
    return {
        "conditions": line["conditions"],
        "unclear": line["unclear"],
        "comment": line["comment"],
    }


def visible_text(pg: Any) -> str:
    """The page's text including the card's (inner_text of body stops at the shadow root)."""
    card = pg.locator(".jc")
    return str(pg.inner_text("body")) + "\n" + (str(card.inner_text()) if card.count() else "")
