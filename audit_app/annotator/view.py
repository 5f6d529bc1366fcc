"""The judging screen: one judging card (services/card/card.js) per item.

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
server (`vocabulary.gates`, through `audit_app.session.record`) before a line is
written. This module only wires the component to `audit_app.session` and
`audit_app.actions`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import streamlit as st

from audit_app import actions
from audit_app.annotator.component import card_code, judging_card
from audit_app.annotator.style import PAGE_CSS
from audit_app.judging import CardSession, apply_outbox
from audit_app.session import AnnotatorSession, ItemState, card_item, first_incomplete, step
from campaign.project import Project
from campaign.registry import Annotator, authenticate
from services.responses import session_export

# (page_key, quote) -> PNG bytes, or None when no image exists; built server-side (render.py).
PageImage = Callable[[str, str | None], bytes | None]
ImageSource = Callable[[str], PageImage | None]  # packet_id -> renderer (or None)

CARD_KEY = "ann_card"
CODE_KEY = "ann_card_code"
REVOKED = "NOT saved: this link is no longer valid (revoked). Ask the admin."


def refuse(message: str) -> None:
    st.error(message)
    st.stop()


class RoundTripSignIn:
    """The link's annotator, asked of the registry at most once per round trip.

    A round trip is the card's outbox callback (which checks the link before the saves it
    applies) and the page run that follows it: both ask here, and the registry (a file
    read or a database query) is read once for both, however many saves the outbox
    holds."""

    def __init__(self, project: Project, token: str) -> None:
        self.project, self.token = project, token
        self._asked = False
        self._person: Annotator | None = None

    def person(self) -> Annotator | None:
        if not self._asked:
            self._person = authenticate(self.project, self.token)
            self._asked = True
        return self._person


SIGN_IN_KEY = "ann_sign_in"  # the callback's sign-in, taken by the page run right after it


def _sign_in(project: Project, token: str) -> Annotator | None:
    checked = st.session_state.pop(SIGN_IN_KEY, None)
    if not isinstance(checked, RoundTripSignIn) or checked.token != token:
        checked = RoundTripSignIn(project, token)
    return checked.person()


def annotator_app(project: Project, token: str, images: ImageSource | None = None) -> None:
    """Entry for a token link: authenticate, pick a packet, show the judging screen."""
    person = _sign_in(project, token)
    if person is None:
        if _refused_card(token):
            return
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
        session = AnnotatorSession.for_project(project, packet_id, person.name)
        start = first_incomplete(session.packet, session.states())
        ss.update(ann_tag=tag, ann_session=session, ann_card_session=CardSession(index=start))
    session = ss["ann_session"]
    session.use_project(project)  # this page run's handle: its backend, resolved once
    return session


def _refused_card(token: str) -> bool:
    """A link revoked while its page is open: the card stays, with what it showed.

    The page keeps the changes the server refused on screen, marked NOT saved, and offers
    them as a file; nothing new is read or sent (the same item's data, no other item).
    Replacing the card with "Access refused" would drop them without a word."""
    ss = st.session_state
    last = ss.get("ann_last_data")
    auth = ss.get("ann_auth")
    if last is None or auth is None or auth[1] != token:
        return False
    card: CardSession = ss["ann_card_session"]
    status = card.status() if card.last and card.last.get("error") else None
    nonce = str(((ss.get(CARD_KEY) or {}).get("outbox") or {}).get("nonce") or "")
    data = {
        **last,
        "status": status or {"kind": "error", "text": REVOKED},
        "confirmed": {"nonce": nonce, "id": card.applied.get(nonce, 0)},
        "image": None,
    }
    st.html(PAGE_CSS)
    card_code()(key=CODE_KEY)
    judging_card()(key=CARD_KEY, data=data, on_outbox_change=_on_outbox)
    return True


def _on_outbox() -> None:
    """The card's outbox changed: apply its new actions (audit_app.judging)."""
    apply_card_outbox((st.session_state.get(CARD_KEY) or {}).get("outbox"))


def apply_card_outbox(outbox: Any) -> None:
    """Apply an outbox, checking the link once for all its saves; the page run that follows
    reuses that check (`RoundTripSignIn`)."""
    ss = st.session_state
    held, token = ss["ann_auth"]
    # A handle of its own for this round trip (the page run's one is a run old): its
    # backend is resolved once for every save of the outbox, and a migration by another
    # process since the last page run is seen now.
    project = Project(held.root)
    sign_in = RoundTripSignIn(project, token)
    ss[SIGN_IN_KEY] = sign_in
    session: AnnotatorSession = ss["ann_session"]
    session.use_project(project)
    apply_outbox(session, ss["ann_card_session"], outbox, lambda: sign_in.person() is not None)


def _image(
    session: AnnotatorSession, states: Mapping[str, ItemState], card: CardSession, item_id: str
) -> Any:
    """The open page image as a data URL (rendered on the server; the card never sees a file)."""
    renderer = st.session_state.get("ann_renderer")
    if renderer is None or card.image is None or card.image[0] != item_id:
        return None
    page = card.image[1]
    pools = session.packet.pools(item_id)
    ckey = next((c for c, pool in pools.items() if page in pool), None)
    if ckey is None:
        return None
    state = states.get(item_id)
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
    card: CardSession = ss["ann_card_session"]
    # One look at the journal per rerun (its signature, and its new lines when it grew);
    # every item's status below comes from what the session holds.
    states = session.states()
    index = card.index = step(card.index, 0, total)
    item_id = packet.item_ids[index]
    state = states.get(item_id)
    nonce = str(((ss.get(CARD_KEY) or {}).get("outbox") or {}).get("nonce") or "")
    title = "Adjudication" if packet.kind == "adjudication" else "Evidence audit"
    data = {
        "heading": f"{title} · signed in as {session.annotator} · packet {packet.packet_id}",
        "annotator": session.annotator,
        "packet": {"id": packet.packet_id, "sha256": packet.sha256},
        "summary": _summary(states),
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
            {"id": i, "done": session.complete(i), "started": i in states} for i in packet.item_ids
        ],
        "confirmed": {"nonce": nonce, "id": card.applied.get(nonce, 0)},
        "status": card.status(),
        "images": ss.get("ann_renderer") is not None,
        "image": _image(session, states, card, item_id),
    }
    ss["ann_last_data"] = data
    card_code()(key=CODE_KEY)
    judging_card()(key=CARD_KEY, data=data, on_outbox_change=_on_outbox)
    _footer(session)


def _summary(states: Mapping[str, ItemState]) -> dict[str, int]:
    """Counts for the "all done" screen: conditions answered yes / no, items unclear."""
    yes = no = unclear = 0
    for state in states.values():
        unclear += state.unclear
        for ans in state.answers.values():
            yes += ans.answer == "yes"
            no += ans.answer == "no"
    return {"yes": yes, "no": no, "unclear": unclear}


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
