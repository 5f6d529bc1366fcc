"""The judging card's actions: audit_app/actions.py and card.js's reduce give the same states.

Both hosts (the Streamlit app and the offline packet) draw "saved state + actions not
yet confirmed" with card.js and the server saves with actions.py, so the two must agree
action by action, including on what they refuse. Also: a run of actions applied twice
gives the state it gave once (replay after a reconnect must not change anything).
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest

from audit_app import actions
from audit_app.session import ItemState, Packet
from tests.test_textnorm import needs_node, run_node
from vocabulary.gates import ConditionAnswer, QuoteRule

# The JavaScript side runs through tests/js/driver.cjs (one runner for every parity test).
node = run_node


POOLS = {
    "C1": {"J1-C1-A": "alpha page text", "J1-C1-B": "beta page text", "J1-C1-C": "gamma"},
    "C2": {"J1-C2-A": "alpha page text", "J1-C2-B": "delta page text"},
}
ITEM = {"conditions": [{"condition_key": c, "pages": list(p)} for c, p in POOLS.items()]}


def random_action(rng: random.Random) -> dict[str, Any]:
    op = rng.choice([*actions.EDIT_OPS, "bogus"])
    cond = rng.choice([*POOLS, "C9"]) if rng.random() < 0.95 else None
    pages = list(POOLS.get(cond or "", {})) or ["J1-C1-A"]
    page = rng.choice([*pages, "J1-C1-A", "nope"])
    text = rng.choice(["", " ", "alpha page", "  beta  ", "a\nb", "<b>x</b> **y** $z$"])
    a: dict[str, Any] = {"op": op, "cond": cond, "page": page}
    if op == "answer":
        a["value"] = rng.choice(["yes", "no", None, "maybe"])
    elif op in ("select", "unclear"):
        a["on"] = rng.choice([True, False, True, "yes"])
    elif op in ("quote", "comment"):
        a["text"] = text if rng.random() < 0.95 else 7
    return a


def run_python(actions_: list[dict[str, Any]]) -> list[Any]:
    state: ItemState | None = None
    out: list[Any] = []
    for a in actions_:
        try:
            state = actions.apply(state, a, POOLS)
        except actions.ActionError as exc:
            out.append({"error": str(exc)})
            continue
        out.append(as_json(actions.state_json(state, POOLS)))
    return out


def as_json(state: dict[str, Any]) -> dict[str, Any]:
    """The saved form: quotes only of selected pages (what record() writes)."""
    return json.loads(json.dumps(state))


def js_saved_form(state: dict[str, Any]) -> dict[str, Any]:
    if "error" in state:
        return state
    conds = {
        ck: {
            "answer": c["answer"],
            "pages": c["pages"],
            "quotes": {k: c["quotes"][k] for k in c["pages"] if k in c["quotes"]},
        }
        for ck, c in state["conditions"].items()
    }
    return {"conditions": conds, "unclear": state["unclear"], "comment": state["comment"]}


@needs_node
def test_js_reduce_equals_python_apply_on_random_runs() -> None:
    rng = random.Random(14)
    runs = [[random_action(rng) for _ in range(rng.randint(1, 25))] for _ in range(300)]
    js = node("reduce", [{"item": ITEM, "state": None, "actions": run} for run in runs])
    for run, js_states in zip(runs, js, strict=True):
        py = run_python(run)
        assert len(py) == len(js_states)
        for a, p, j in zip(run, py, js_states, strict=True):
            assert ("error" in p) == ("error" in j), (a, p, j)
            if "error" not in p:
                assert js_saved_form(j) == p, a


@needs_node
def test_card_item_has_the_same_shape_in_both_hosts() -> None:
    raw = {
        "item_id": "J1",
        "information_need": "need <b>x</b>",
        "conditions": [
            {
                "condition_key": ck,
                "name": f"name {ck}",
                "requirement": "req",
                "counts": ["a", "b"],
                "does_not_count": [],
                "note": "",
                "pages": [{"page_key": k, "text": t} for k, t in pool.items()],
            }
            for ck, pool in POOLS.items()
        ],
    }
    packet = Packet("p", "initial", "rule", QuoteRule(), (raw,), "0" * 64)
    py = packet.card_items["J1"]
    assert node("card_item", [raw]) == [py]
    # the same text in two pools is sent once
    assert py["pages"]["J1-C1-A"] == py["pages"]["J1-C2-A"]
    assert len(py["texts"]) == 4


def test_actions_do_what_the_screen_says() -> None:
    s = actions.apply(None, {"op": "quote", "cond": "C1", "page": "J1-C1-B", "text": "beta"}, POOLS)
    assert s.answer("C1") == ConditionAnswer(None, ("J1-C1-B",), {"J1-C1-B": "beta"})  # selects
    s = actions.apply(s, {"op": "select", "cond": "C1", "page": "J1-C1-A", "on": True}, POOLS)
    assert s.answer("C1").pages == ("J1-C1-A", "J1-C1-B")  # pool order
    s = actions.apply(s, {"op": "select", "cond": "C1", "page": "J1-C1-B", "on": False}, POOLS)
    assert s.answer("C1") == ConditionAnswer(None, ("J1-C1-A",), {})  # unticking drops its quote
    s = actions.apply(s, {"op": "answer", "cond": "C1", "value": "yes"}, POOLS)
    s = actions.apply(s, {"op": "clear", "cond": "C1"}, POOLS)
    assert s.answer("C1") == ConditionAnswer()
    s = actions.apply(s, {"op": "quote", "cond": "C2", "page": "J1-C2-A", "text": "   "}, POOLS)
    assert s.answer("C2").pages == ()  # a blank quote selects nothing
    with pytest.raises(actions.ActionError, match="not in this condition's pool"):
        actions.apply(s, {"op": "select", "cond": "C2", "page": "J1-C1-A", "on": True}, POOLS)
    with pytest.raises(actions.ActionError, match="no condition"):
        actions.apply(s, {"op": "clear", "cond": "C3"}, POOLS)


def test_a_run_applied_twice_gives_the_state_it_gave_once() -> None:
    rng = random.Random(3)
    for _ in range(500):
        start = None
        for a in [random_action(rng) for _ in range(rng.randint(0, 8))]:
            with contextlib.suppress(actions.ActionError):
                start = actions.apply(start, a, POOLS)
        run = [random_action(rng) for _ in range(rng.randint(1, 10))]
        once = start
        for a in run:
            with contextlib.suppress(actions.ActionError):
                once = actions.apply(once, a, POOLS)
        twice = once
        for a in run:
            with contextlib.suppress(actions.ActionError):
                twice = actions.apply(twice, a, POOLS)
        assert actions.state_json(twice, POOLS) == actions.state_json(once, POOLS), run


SENTENCE_CASES = [
    # the fixture's shape: filler, the sentence on its own line, filler
    (
        "the survey reports income.\nThe report states that programme x met its target.\nmore.",
        [
            "the survey reports income.",
            "The report states that programme x met its target.",
            "more.",
        ],
    ),
    # a line broken inside a sentence (PDF text) stays one sentence, verbatim
    (
        "The study enrolled\n412 adult patients. It ended early.",
        ["The study enrolled\n412 adult patients.", "It ended early."],
    ),
    # a blank line ends a heading without a full stop; surrounding spaces are trimmed
    (
        "  Results\n\n  Outcomes improved in 2019!  Why? ",
        ["Results", "Outcomes improved in 2019!", "Why?"],
    ),
    # characters outside the BMP: UTF-16 offsets still cut at the right places
    ("😀 Smiles were counted. Next 𝒳 one.", ["😀 Smiles were counted.", "Next 𝒳 one."]),
    ("", []),
]


@needs_node
def test_sentences_for_keyboard_quotes_are_verbatim_slices() -> None:
    got = node("sentences", [text for text, _ in SENTENCE_CASES])
    assert got == [want for _, want in SENTENCE_CASES]
    # Each sentence is on its page by the Python quote check the server runs.
    from vocabulary.textnorm import quote_in_page

    for (text, _), sentences in zip(SENTENCE_CASES, got, strict=True):
        for sentence in sentences:
            assert sentence in text and quote_in_page(sentence, text)
