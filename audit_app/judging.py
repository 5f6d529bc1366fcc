"""The server side of the judging card: an outbox of actions in, saves out.

The card (services/card/card.js) sends its *outbox*: every action the user
made that the server has not confirmed, each with an id that grows per browser
page (`nonce`). `apply_outbox` applies, in order, each action whose id is past
the last one applied for that nonce: navigation moves the index and writes
nothing; an edit is applied to its item's latest journal state
(`audit_app.actions`) and appended (fsync'ed) when it changes that state. A save
that fails stops the run there, so the failed action and those after it stay in
the outbox (still on screen, marked not saved) and are tried again with the
next change. Nothing here imports Streamlit: the view keeps a `CardSession` in
its session state and hands this module the outbox.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from audit_app import actions
from audit_app.session import AnnotatorSession, step


@dataclass
class CardSession:
    """What one browser session holds besides the journal: where it is and what it applied."""

    index: int = 0
    applied: dict[str, int] = field(default_factory=dict)  # nonce -> last action id applied
    last: dict[str, Any] | None = None  # the last save {item, seq, ts, ...} or {error}
    image: tuple[str, str] | None = None  # (item_id, page_key) whose image is open
    # Streamlit can start a rerun's callback in a new thread while the previous one is
    # still saving; without this lock both apply the same action ids (duplicate lines,
    # seen with the PostgreSQL journal's slower commits).
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def status(self) -> dict[str, str]:
        """The card's status line: what the last save did, in words."""
        if not self.last:
            return {"kind": "idle", "text": "Every change is saved at once."}
        if self.last.get("error"):
            return {"kind": "error", "text": str(self.last["error"])}
        when = str(self.last.get("ts", ""))[11:19]
        return {
            "kind": "saved",
            "text": f"Saved {self.last['item']} · #{self.last['seq']} · {when} UTC",
        }


def apply_outbox(
    session: AnnotatorSession,
    card: CardSession,
    outbox: Mapping[str, Any] | None,
    allowed: Callable[[], bool],
) -> list[dict[str, Any]]:
    """Apply the outbox's new actions in order; returns the journal lines written.

    `allowed` is asked before each save (a revoked link saves nothing more, in this tab
    or any other); the app answers it from one registry read per round trip
    (`audit_app.annotator.view.RoundTripSignIn`)."""
    with card.lock:
        return _apply_outbox(session, card, outbox, allowed)


def _apply_outbox(
    session: AnnotatorSession,
    card: CardSession,
    outbox: Mapping[str, Any] | None,
    allowed: Callable[[], bool],
) -> list[dict[str, Any]]:
    box = outbox or {}
    nonce = str(box.get("nonce") or "")
    written: list[dict[str, Any]] = []
    for action in box.get("actions") or []:
        if not isinstance(action, dict) or not isinstance(action.get("id"), int):
            continue
        if action["id"] <= card.applied.get(nonce, 0):
            continue
        op = action.get("op")
        if op == "go":
            to = action.get("to")
            card.index = step(
                to if isinstance(to, int) else card.index, 0, len(session.packet.items)
            )
            card.image = None
        elif op == "image":
            card.image = (str(action.get("item")), str(action.get("page")))
        else:
            ok, line = _apply_edit(session, card, action, allowed)
            if not ok:
                return written
            if line is not None:
                written.append(line)
        card.applied[nonce] = action["id"]
    return written


def _apply_edit(
    session: AnnotatorSession,
    card: CardSession,
    action: dict[str, Any],
    allowed: Callable[[], bool],
) -> tuple[bool, dict[str, Any] | None]:
    """(applied, line written or None). Not applied means: try again later."""
    item_id = str(action.get("item"))
    if not allowed():
        card.last = {"error": "NOT saved: this link is no longer valid (revoked). Ask the admin."}
        return False, None
    if item_id not in session.packet.item_ids:
        return True, None  # not an item of this packet: nothing to save, never retried
    pools = session.packet.pools(item_id)
    latest = session.states().get(item_id)
    try:
        new = actions.apply(latest, action, pools)
    except actions.ActionError:
        return True, None  # the card's twin refuses it too: nothing to save
    if latest is not None and actions.state_json(new, pools) == actions.state_json(latest, pools):
        return True, None  # the journal already says this (a replay, or no change)
    if latest is None and actions.state_json(new, pools) == actions.state_json(None, pools):
        return True, None  # a blank item stays unsaved until something is answered
    try:
        line = session.save(item_id, new)
    except OSError as exc:  # the disk said no: say so, never claim a save
        card.last = {"error": f"NOT saved ({exc.strerror or exc}); your change is still on screen."}
        return False, None
    card.last = {"item": item_id, "seq": line["seq"], "ts": line["ts"]}
    return True, line
