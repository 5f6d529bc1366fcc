"""The server side of the judging card on a real project and real journal files.

What the card sends is an outbox of actions; what lands in the journal must be: nothing
for navigation, at most one line per action, each line equal to the one before except
for what the action changed, nothing on a replay, and nothing (with a clear error) when
the link was revoked or the disk refuses, the action staying in the outbox for later.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from audit_app.judging import CardSession, apply_outbox
from audit_app.session import AnnotatorSession
from campaign import journal
from campaign.registry import authenticate
from services.annotators import add_annotator, revoke_annotator
from tests.app_fixture import Fixture, build


def open_session(fx: Fixture, who: str = "alice") -> AnnotatorSession:
    return AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", who)


def lines(s: AnnotatorSession) -> list[dict[str, Any]]:
    return journal.read_journal(s.journal_path).lines


class Outbox:
    """What one browser page's card sends: every unconfirmed action, ids growing."""

    def __init__(self, nonce: str) -> None:
        self.nonce, self.next, self.actions = nonce, 1, []  # type: ignore[var-annotated]

    def add(self, **action: Any) -> dict[str, Any]:
        action["id"] = self.next
        self.next += 1
        self.actions.append(action)
        return {"nonce": self.nonce, "actions": list(self.actions)}

    def confirm(self, card: CardSession) -> None:
        done = card.applied.get(self.nonce, 0)
        self.actions = [a for a in self.actions if a["id"] > done]


def body(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k not in ("seq", "ts", "complete")}


def test_navigation_writes_nothing_and_each_action_one_line(tmp_path: Path) -> None:
    fx = build(tmp_path / "p", items=3)
    s = open_session(fx)
    card, box = CardSession(), Outbox("tab1")
    ok = lambda: True  # noqa: E731
    assert apply_outbox(s, card, box.add(op="go", to=2), ok) == []
    assert card.index == 2 and lines(s) == []
    box.confirm(card)
    assert apply_outbox(s, card, box.add(op="go", to=99), ok) == [] and card.index == 2
    box.confirm(card)
    a = "J001-C1-A"
    steps: list[dict[str, Any]] = [
        {"op": "answer", "item": "J001", "cond": "C1", "value": "yes"},
        {"op": "select", "item": "J001", "cond": "C1", "page": a, "on": True},
        {"op": "quote", "item": "J001", "cond": "C1", "page": a, "text": fx.quotes[a]},
        {"op": "answer", "item": "J001", "cond": "C2", "value": "no"},
        {"op": "unclear", "item": "J001", "on": True},
        {"op": "comment", "item": "J001", "text": "<script>alert(1)</script> **x**"},
        {"op": "select", "item": "J001", "cond": "C1", "page": a, "on": False},
        {"op": "clear", "item": "J001", "cond": "C2"},
    ]
    prev: dict[str, Any] | None = None
    for step in steps:
        written = apply_outbox(s, card, box.add(**step), ok)
        box.confirm(card)
        assert len(written) == 1, step
        assert lines(s)[-1] == written[0]
        if prev is not None:
            changed = {k for k in body(prev) if body(prev)[k] != body(written[0])[k]}
            assert changed <= {"conditions", "unclear", "comment"}, step
            if step["op"] in ("answer", "select", "quote", "clear"):
                other = {
                    c
                    for c in prev["conditions"]
                    if prev["conditions"][c] != written[0]["conditions"][c]
                }
                assert other == {step["cond"]}, step
        prev = written[0]
    last = lines(s)[-1]
    assert last["conditions"]["C1"] == {"answer": "yes", "pages": [], "quotes": {}}  # quote dropped
    assert last["conditions"]["C2"] == {"answer": None, "pages": [], "quotes": {}}
    assert last["comment"] == "<script>alert(1)</script> **x**"
    # the same action again, or navigation away and back, writes nothing
    assert apply_outbox(s, card, box.add(op="clear", item="J001", cond="C2"), ok) == []
    box.confirm(card)
    assert apply_outbox(s, card, box.add(op="go", to=0), ok) == []
    assert len(lines(s)) == len(steps)


def test_a_replayed_outbox_writes_nothing(tmp_path: Path) -> None:
    """After a server restart the browser sends its last outbox again to a new session."""
    fx = build(tmp_path / "p", items=2)
    s = open_session(fx)
    card, box = CardSession(), Outbox("tab1")
    box.add(op="answer", item="J001", cond="C1", value="no")
    box.add(op="answer", item="J001", cond="C2", value="yes")
    last = box.add(op="select", item="J001", cond="C2", page="J001-C2-B", on=True)
    assert len(apply_outbox(s, card, last, lambda: True)) == 3
    fresh = open_session(fx)  # a new server process
    assert apply_outbox(fresh, CardSession(), last, lambda: True) == []
    assert len(lines(fresh)) == 3


def test_a_second_tab_sees_and_keeps_the_first_tabs_saves(tmp_path: Path) -> None:
    fx = build(tmp_path / "p", items=2)
    tab1, tab2 = open_session(fx), open_session(fx)
    c1, c2 = CardSession(), CardSession()
    b1, b2 = Outbox("one"), Outbox("two")
    assert tab2.states() == {}
    apply_outbox(tab1, c1, b1.add(op="answer", item="J001", cond="C1", value="no"), lambda: True)
    assert tab2.states()["J001"].answer("C1").answer == "no"  # re-read: the file changed
    # an action in tab 2 applies to the latest line, so tab 1's answer stays
    apply_outbox(tab2, c2, b2.add(op="answer", item="J001", cond="C2", value="no"), lambda: True)
    final = lines(tab1)[-1]["conditions"]
    assert final["C1"]["answer"] == "no" and final["C2"]["answer"] == "no"


def test_refused_saves_stay_in_the_outbox(tmp_path: Path) -> None:
    fx = build(tmp_path / "p", items=2)
    _, token = add_annotator(fx.project, "alice", ["initial"])
    s = open_session(fx)
    card, box = CardSession(), Outbox("tab1")
    allowed = lambda: authenticate(fx.project, token) is not None  # noqa: E731
    # the disk refuses: the journal path is a folder
    s.journal_path.parent.mkdir(parents=True, exist_ok=True)
    s.journal_path.mkdir()
    assert (
        apply_outbox(s, card, box.add(op="answer", item="J001", cond="C1", value="no"), allowed)
        == []
    )
    assert card.status()["kind"] == "error" and "NOT saved" in card.status()["text"]
    assert card.applied.get("tab1", 0) == 0  # not confirmed: the card keeps it on screen
    shutil.rmtree(s.journal_path)
    out = apply_outbox(s, card, box.add(op="answer", item="J001", cond="C2", value="no"), allowed)
    assert [ln["conditions"]["C1"]["answer"] for ln in out] == ["no", "no"]  # retried, in order
    assert card.status()["kind"] == "saved"
    box.confirm(card)
    revoke_annotator(fx.project, "alice")
    assert (
        apply_outbox(s, card, box.add(op="answer", item="J001", cond="C1", value="yes"), allowed)
        == []
    )
    assert "revoked" in card.status()["text"]
    assert len(lines(s)) == 2
