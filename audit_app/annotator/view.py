"""The judging screen: one judging card (audit_app/static/card.js) per item.

Where an item's state lives: in the annotator's journal, and only there. The
server keeps no copy of widget values: each rerun hands the card the item and
the state of that item's latest journal line (re-read when the journal file
changed, so a second tab's saves show up); the card reports each user action
(answer, select or unselect a page, a quote, clear, unclear, comment) and the
server applies it to that latest state (audit_app/actions.py), appends the
result (fsync'ed) and only then says "Saved". Navigation is an action too, but
it moves the index and writes nothing. So any way of reaching an item shows
exactly its latest saved state, and one action writes at most one line, which
differs from the one before only by that action.

The gates run in the card for instant feedback (gates.js) and again on the
server (`policies.gates`, through `audit_app.session.record`) before a line is
written. This module only wires the component to `audit_app.session` and
`audit_app.actions`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from audit_app import actions
from audit_app.access import Annotator, authenticate
from audit_app.annotator.component import judging_card
from audit_app.annotator.style import PAGE_CSS
from audit_app.responses import session_export
from audit_app.session import AnnotatorSession, ItemState, card_item, first_incomplete, step
from packet_builder.project import Project

# (page_key, quote) -> PNG bytes, or None when no image exists; built server-side (render.py).
PageImage = Callable[[str, str | None], bytes | None]
ImageSource = Callable[[str], PageImage | None]  # packet_id -> renderer (or None)

CARD_KEY = "ann_card"


def refuse(message: str) -> None:
    st.error(message)
    st.stop()


def annotator_app(project: Project, token: str, images: ImageSource | None = None) -> None:
    """Entry for a token link: authenticate, pick a packet, show the judging screen."""
    person = authenticate(project, token)
    if person is None:
        refuse("Access refused: this link is not valid (unknown or revoked).")
        return
    assert person is not None
    packets = [p for p in person.packets if project.packet_path(p).is_file()]
    if not packets:
        refuse("No packet is assigned to you yet. Ask the campaign admin.")
    packet_id = packets[0]
    if len(packets) > 1:
        packet_id = st.sidebar.selectbox("Packet", packets, key="ann_packet")
    session = _session(project, person, packet_id)
    # Kept for the action callback, which checks the token again before every save.
    st.session_state["ann_auth"] = (project, token)
    st.session_state["ann_renderer"] = images(packet_id) if images is not None else None
    judging_screen(session)


def _session(project: Project, person: Annotator, packet_id: str) -> AnnotatorSession:
    """The per-browser-session state: the packet, the journal and the item index."""
    tag = f"{person.name}/{packet_id}"
    ss = st.session_state
    if ss.get("ann_tag") != tag:
        session = AnnotatorSession.open(
            project.packets_dir, project.journals_dir, packet_id, person.name
        )
        ss.update(
            ann_tag=tag,
            ann_session=session,
            ann_index=first_incomplete(session.packet, session.states()),
            ann_applied={},  # browser page nonce -> id of the last action applied
            ann_last=None,  # the last save: {nonce, id, item, seq, ts} or {error}
            ann_image=None,  # (item_id, page_key) whose image is open
        )
    return ss["ann_session"]


def _on_outbox() -> None:
    """Apply, in order, every action of the card's outbox not applied yet."""
    ss = st.session_state
    box = (ss.get(CARD_KEY) or {}).get("outbox") or {}
    nonce = str(box.get("nonce") or "")
    session: AnnotatorSession = ss["ann_session"]
    applied: dict[str, int] = ss["ann_applied"]
    for action in box.get("actions") or []:
        if not isinstance(action, dict) or int(action.get("id", 0)) <= applied.get(nonce, 0):
            continue
        op = action.get("op")
        if op == "go":
            total = len(session.packet.items)
            ss["ann_index"] = step(int(action.get("to", 0)), 0, total)
            ss["ann_image"] = None
        elif op == "image":
            ss["ann_image"] = (str(action.get("item")), str(action.get("page")))
        elif not _apply_edit(session, nonce, action):
            return  # not saved: the action stays in the outbox (on screen, marked unsaved)
        applied[nonce] = int(action["id"])


def _apply_edit(session: AnnotatorSession, nonce: str, action: dict[str, Any]) -> bool:
    """Apply one edit to its item's latest saved state and append it; False if not saved."""
    ss = st.session_state
    item_id = str(action.get("item"))
    project, token = ss["ann_auth"]
    if authenticate(project, token) is None:
        ss["ann_last"] = {"error": "NOT saved: this link is no longer valid (revoked)."}
        return False
    if item_id not in session.packet.item_ids:
        return True  # not an item of this packet: nothing to save, never retried
    latest = session.states().get(item_id)
    try:
        new = actions.apply(latest, action, session.packet.pools(item_id))
    except actions.ActionError:
        return True  # refused by the gate of actions, as the card's twin refuses it
    pools = session.packet.pools(item_id)
    if latest is not None and actions.state_json(new, pools) == actions.state_json(latest, pools):
        return True  # a replayed or empty action: the journal already says this
    try:
        line = session.save(item_id, new)
    except OSError as exc:  # the disk said no: say so, never claim a save
        ss["ann_last"] = {"error": f"NOT saved ({exc.strerror or exc}); still on screen."}
        return False
    ss["ann_last"] = {"nonce": nonce, "id": action["id"], "item": item_id, **line}
    return True


def _status(item_id: str) -> dict[str, str]:
    last = st.session_state.get("ann_last")
    if not last:
        return {"kind": "idle", "text": "Every change is saved at once."}
    if last.get("error"):
        return {"kind": "error", "text": str(last["error"])}
    when = str(last.get("ts", ""))[11:19]
    return {"kind": "saved", "text": f"Saved {last['item']} · #{last['seq']} · {when} UTC"}


def _image(session: AnnotatorSession, item_id: str, state: ItemState | None) -> Any:
    ss = st.session_state
    want, renderer = ss.get("ann_image"), ss.get("ann_renderer")
    if renderer is None or not want or want[0] != item_id:
        return None
    page = want[1]
    ckey = next((c for c, pool in session.packet.pools(item_id).items() if page in pool), None)
    if ckey is None:
        return None
    quote = (state.answer(ckey).quotes.get(page) if state else None) or None
    png = renderer(page, quote)
    src = "data:image/png;base64," + base64.b64encode(png).decode() if png else None
    return {"page": page, "src": src}


def judging_screen(session: AnnotatorSession) -> None:
    ss = st.session_state
    packet = session.packet
    st.html(PAGE_CSS)
    total = len(packet.items)
    if total == 0:
        st.info("This packet has no items.")
        return
    states = session.states()
    index = ss["ann_index"] = step(ss["ann_index"], 0, total)
    item_id = packet.item_ids[index]
    state = states.get(item_id)
    nonce = str(((ss.get(CARD_KEY) or {}).get("outbox") or {}).get("nonce") or "")
    title = "Adjudication" if packet.kind == "adjudication" else "Evidence audit"
    data = {
        "heading": f"{title} · {session.annotator} · packet {packet.packet_id}",
        "item": card_item(packet, item_id),
        "state": actions.state_json(state, packet.pools(item_id)),
        "rule": packet.rule,
        "quoteRule": {
            "min_words": packet.quote_rule.min_words,
            "min_chars": packet.quote_rule.min_chars,
        },
        "index": index,
        "total": total,
        "items": [
            {"id": i, "done": session.complete(i), "started": i in states}
            for i in packet.item_ids
        ],
        "confirmed": {"nonce": nonce, "id": ss["ann_applied"].get(nonce, 0)},
        "status": _status(item_id),
        "images": ss.get("ann_renderer") is not None,
        "image": _image(session, item_id, state),
    }
    judging_card()(key=CARD_KEY, data=data, on_outbox_change=_on_outbox)
    _footer(session)


def _footer(session: AnnotatorSession) -> None:
    st.download_button(
        "Download my responses (JSON)",
        data=lambda: json.dumps(session_export(session), indent=2, ensure_ascii=False),
        file_name=f"{session.packet.packet_id}-{session.annotator}-responses.json",
        mime="application/json",
        on_click="ignore",
        key="ann_download",
    )


def project_of(root: str | Path) -> Project:
    """The project folder without reading project.json (annotators never need it)."""
    return Project(Path(root).resolve())
