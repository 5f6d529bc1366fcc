"""What one user action on the judging card does to an item's saved state.

The card (services/card/card.js) reports every change as one small action;
the server applies it here to the item's *latest journal state* and saves the
result. Nothing else builds a saved state, so a save can only differ from the
previous line by what the user changed, and nothing that the screen showed
from an older state can leak into it. `card.js`'s `reduce` is this module's
twin (same results; tests/test_card_actions.py holds them together).

Every action sets parts of the state to values that do not depend on what was
there, so applying the same run of actions again is harmless: after a server
restart the card replays what was not confirmed, and no change is doubled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audit_app.session import ItemState
from vocabulary.gates import ANSWERS, ConditionAnswer

EDIT_OPS = ("answer", "select", "quote", "clear", "unclear", "comment")

Pools = Mapping[str, Mapping[str, str]]  # condition_key -> page_key -> text (pool order)


class ActionError(ValueError):
    """An action that cannot apply to this item (never saved)."""


def check(action: Mapping[str, Any], pools: Pools) -> None:
    """Raise ActionError naming what is wrong with `action` for an item with `pools`."""
    op = action.get("op")
    if op not in EDIT_OPS:
        raise ActionError(f"unknown action {op!r}")
    if op == "unclear":
        if not isinstance(action.get("on"), bool):
            raise ActionError("unclear needs on: true/false")
        return
    if op == "comment":
        if not isinstance(action.get("text"), str):
            raise ActionError("comment needs text")
        return
    ckey = action.get("cond")
    if not isinstance(ckey, str) or ckey not in pools:
        raise ActionError(f"no condition {ckey!r} in this item")
    if op == "answer":
        if action.get("value") is not None and action.get("value") not in ANSWERS:
            raise ActionError("answer must be yes, no or null")
        return
    if op == "clear":
        return
    if action.get("page") not in pools[ckey]:
        raise ActionError(f"page {action.get('page')!r} is not in this condition's pool")
    if op == "select" and not isinstance(action.get("on"), bool):
        raise ActionError("select needs on: true/false")
    if op == "quote" and not isinstance(action.get("text"), str):
        raise ActionError("quote needs text")


def _select(ans: ConditionAnswer, pool: Mapping[str, str], page: str, on: bool) -> ConditionAnswer:
    chosen = set(ans.pages)
    if on:
        chosen.add(page)
    else:
        chosen.discard(page)
    # Pool order; a page outside the pool (an old import) keeps its place at the end.
    pages = [k for k in pool if k in chosen] + [
        k for k in ans.pages if k not in pool and k in chosen
    ]
    quotes = dict(ans.quotes)
    if not on:
        quotes.pop(page, None)  # unticking a page drops its quote
    return ConditionAnswer(ans.answer, tuple(pages), quotes)


def apply(state: ItemState | None, action: Mapping[str, Any], pools: Pools) -> ItemState:
    """The state after `action` (a new object); raises ActionError for a bad action."""
    check(action, pools)
    state = state or ItemState()
    answers = {ckey: state.answer(ckey) for ckey in pools}
    unclear, comment = state.unclear, state.comment
    op = action["op"]
    if op == "unclear":
        unclear = bool(action["on"])
    elif op == "comment":
        comment = str(action["text"])
    else:
        ckey = str(action["cond"])
        ans = answers[ckey]
        if op == "answer":
            ans = ConditionAnswer(action.get("value"), ans.pages, dict(ans.quotes))
        elif op == "clear":
            ans = ConditionAnswer()
        elif op == "select":
            ans = _select(ans, pools[ckey], str(action["page"]), bool(action["on"]))
        else:  # quote
            page, text = str(action["page"]), str(action["text"])
            quotes = dict(ans.quotes)
            if text == "":
                quotes.pop(page, None)
            else:
                quotes[page] = text
            ans = ConditionAnswer(ans.answer, ans.pages, quotes)
            if text.strip() and page not in ans.pages:
                ans = _select(ans, pools[ckey], page, True)  # a quote selects its page
        answers[ckey] = ans
    return ItemState(answers, unclear, comment)


def state_json(state: ItemState | None, pools: Pools) -> dict[str, Any]:
    """The card's view of a state: every condition of the item, quotes of selected pages."""
    state = state or ItemState()
    return {
        "conditions": {ckey: state.answer(ckey).to_json() for ckey in pools},
        "unclear": state.unclear,
        "comment": state.comment,
    }
