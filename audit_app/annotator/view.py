"""The judging screen: information need, rule, rubrics, candidate pages, gates, drafts.

Every widget change runs `_save`, which rebuilds the item's full state from
the widgets and appends it to the annotator's journal (fsync'ed) BEFORE any
rerun shows "Saved". All decisions about validity come from `policies.gates`
via `audit_app.session`; this module only wires widgets.

Why fragments: an item shows up to 9 pages of ~3,000 characters per condition,
and the browser's work per save grows with every element on screen and with
every message of a rerun. One keyed fragment, `F_ANSWERS`, writes everything
an answer can change (progress, save status, each condition's yes/no with its
"Saved" line and gate messages, the verdict) into empty slots that the item
screen left for it. A click on yes/no therefore reruns just that fragment, as
its own rerun: one script run, no `st.rerun`. A page's quote box, or the
checkbox of a page with a quote, reruns `F_ANSWERS` and that page (each page is a
keyed fragment: a quote redraws one page, not nine) with `st.rerun([keys])` from
the callback, which replaces the widget's own rerun; the checkbox of a page
without a quote changes nothing on the page and reruns `F_ANSWERS` alone. Only navigation
(Previous/Next/Go to) reruns the whole item screen.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from audit_app.access import Annotator, authenticate
from audit_app.annotator.keys import (
    PAGE_CSS,
    SHORTCUT_HELP,
    md,
    need_html,
    rubric_html,
    shortcut_script,
)
from audit_app.responses import session_export
from audit_app.session import (
    AnnotatorSession,
    ItemState,
    first_incomplete,
    highlight_html,
    is_complete,
    match_context,
    problems,
    step,
)
from packet_builder.project import Project
from policies.gates import ConditionAnswer

# (page_key, quote) -> PNG bytes, or None when no image exists; built server-side (render.py).
PageImage = Callable[[str, str | None], bytes | None]
ImageSource = Callable[[str], PageImage | None]  # packet_id -> renderer (or None)


def _k(*parts: str) -> str:
    return "w:" + ":".join(parts)


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
    # Kept for the save callback, which re-checks the token: a fragment-only rerun does
    # not run this function, and a revoked link must not save another decision.
    st.session_state["ann_auth"] = (project, token)
    renderer = images(packet_id) if images is not None else None
    judging_screen(session, renderer)


def _session(project: Project, person: Annotator, packet_id: str) -> AnnotatorSession:
    """The per-browser-session state: restored from the journal once per (person, packet)."""
    tag = f"{person.name}/{packet_id}"
    if st.session_state.get("ann_tag") != tag:
        session = AnnotatorSession.open(
            project.packets_dir, project.journals_dir, packet_id, person.name
        )
        states = session.restore()
        st.session_state.update(
            ann_tag=tag,
            ann_session=session,
            ann_states=states,
            ann_index=first_incomplete(session.packet, states),
            ann_done={i: is_complete(session.packet, i, s) for i, s in states.items()},
            ann_last=None,
        )
        for key in [k for k in st.session_state if str(k).startswith("w:")]:
            del st.session_state[key]
    return st.session_state["ann_session"]


def _answer_from_widgets(item_id: str, ckey: str, pool: dict[str, str]) -> ConditionAnswer:
    ss = st.session_state
    pages: list[str] = []
    quotes: dict[str, str] = {}
    for pkey in pool:
        if ss.get(_k(item_id, ckey, pkey, "sel")):
            pages.append(pkey)
            quotes[pkey] = str(ss.get(_k(item_id, ckey, pkey, "q")) or "")
    return ConditionAnswer(ss.get(_k(item_id, ckey, "ans")), tuple(pages), quotes)


def _state_from_widgets(session: AnnotatorSession, item_id: str) -> ItemState:
    ss = st.session_state
    answers = {
        ckey: _answer_from_widgets(item_id, ckey, pool)
        for ckey, pool in session.packet.pools(item_id).items()
    }
    return ItemState(
        answers, bool(ss.get(_k(item_id, "unclear"))), str(ss.get(_k(item_id, "comment")) or "")
    )


# Fragment keys (`st.fragment(key=...)`).
F_ITEM = "ann_f_item"  # the item screen below the heading (nav bar included)
F_ANSWERS = "ann_f_answers"  # progress, save status, answers, gate messages, verdict
ITEM = "item"  # the place of a save made by an item-level widget (Save, unclear, comment)


def _f_page(pkey: str) -> str:
    return f"ann_f_page_{pkey}"


def _save(
    item_id: str, ckey: str | None = None, pkey: str | None = None, quoted: bool = False
) -> None:
    """Widget callback: persist the item's full state (append + fsync) before any confirmation.

    `ckey`/`pkey` name the condition and page whose widget changed; `quoted` says it was the
    page's quote box: a quote typed there selects that page (unchecking it later is still
    possible). An answer lives in the `F_ANSWERS` fragment, whose own rerun after this
    callback redraws everything a save can change except page selections; a page's widget
    reruns that page too when its highlight can change, an item-level widget (Save, unclear, comment) only
    `F_ANSWERS` (`st.rerun([...])` replaces the widget's own rerun: still one script run).
    """
    ss = st.session_state
    if item_id != ss.get("ann_shown"):
        # A widget event for an item that the last item run no longer showed (the browser
        # can send one late, after navigating): its widget state is gone, so saving it would
        # record a blank draft. Ignore it.
        return
    session: AnnotatorSession = ss["ann_session"]
    if quoted and ckey is not None and pkey is not None:
        prefix = _k(item_id, ckey, pkey)
        if str(ss.get(prefix + ":q") or "").strip():
            ss[prefix + ":sel"] = True
    last: dict[str, Any] = {"item": item_id, "place": ckey or ITEM, "error": None}
    project, token = ss["ann_auth"]
    if authenticate(project, token) is None:
        last["error"] = "NOT saved: this link is no longer valid (revoked). Reload the page."
    else:
        state = _state_from_widgets(session, item_id)
        try:
            line = session.save(item_id, state)
        except OSError as exc:  # the disk said no: say so, never claim a save
            last["error"] = f"NOT saved ({exc.strerror or exc}). Your answer is still on screen."
        else:
            ss["ann_states"][item_id] = state
            ss["ann_done"][item_id] = bool(line["complete"])
            last.update(seq=line["seq"], ts=line["ts"])
    ss["ann_last"] = last
    if pkey is not None and ckey is not None:
        # The pages show a selected page's quote highlighted: redraw them only when this
        # change can alter that (a quote typed, or a page with a quote (un)selected).
        if quoted or str(ss.get(_k(item_id, ckey, pkey, "q")) or "").strip():
            st.rerun([F_ANSWERS, _f_page(pkey)])
        st.rerun([F_ANSWERS])
    if ckey is None:
        st.rerun([F_ANSWERS])


def _still_allowed() -> None:
    """Navigation reruns only the item fragment, which does not authenticate: check here
    and rerun the whole app (which refuses) when the link was revoked meanwhile."""
    project, token = st.session_state["ann_auth"]
    if authenticate(project, token) is None:
        st.rerun()


def _go(delta: int) -> None:
    _still_allowed()
    ss = st.session_state
    session: AnnotatorSession = ss["ann_session"]
    ss["ann_index"] = step(ss["ann_index"], delta, len(session.packet.items))


def _jump() -> None:
    _still_allowed()
    ss = st.session_state
    ss["ann_index"] = ss["ann_packet_items"].index(ss["ann_jump"])


def _init_widgets(item_id: str, session: AnnotatorSession, state: ItemState | None) -> None:
    """Seed widget values from the saved draft (only keys not already live this session)."""
    ss = st.session_state
    state = state or ItemState()
    for ckey, pool in session.packet.pools(item_id).items():
        ans = state.answer(ckey)
        ss.setdefault(_k(item_id, ckey, "ans"), ans.answer)
        for pkey in pool:
            ss.setdefault(_k(item_id, ckey, pkey, "sel"), pkey in ans.pages)
            ss.setdefault(_k(item_id, ckey, pkey, "q"), ans.quotes.get(pkey, ""))
    ss.setdefault(_k(item_id, "unclear"), state.unclear)
    ss.setdefault(_k(item_id, "comment"), state.comment)


def judging_screen(session: AnnotatorSession, renderer: PageImage | None = None) -> None:
    packet = session.packet
    st.html(PAGE_CSS)
    st.html(shortcut_script(), unsafe_allow_javascript=True)
    total = len(packet.items)
    title = "Adjudication" if packet.kind == "adjudication" else "Evidence audit"
    st.markdown(f"### {title} · signed in as **{session.annotator}**")
    if total == 0:
        st.info("This packet has no items.")
        return
    # Navigation reruns only this fragment: the style sheet, the shortcut script and the
    # heading above stay on screen untouched.
    st.fragment(_item_screen, key=F_ITEM)(session, renderer)


def _item_screen(session: AnnotatorSession, renderer: PageImage | None) -> None:
    ss = st.session_state
    packet = session.packet
    states: dict[str, ItemState] = ss["ann_states"]
    total = len(packet.items)
    index = ss["ann_index"] = step(ss["ann_index"], 0, total)
    item = packet.items[index]
    item_id = ss["ann_shown"] = str(item["item_id"])
    # Empty slots that the F_ANSWERS fragment (below) fills: it writes into them from
    # outside, so its rerun redraws exactly these, wherever they are on the screen.
    slots: dict[str, Any] = {"progress": st.container()}
    slots[ITEM] = _nav_bar(session, index, total, item_id)
    _init_widgets(item_id, session, states.get(item_id))
    st.markdown(f"#### Item {item_id} ({index + 1} of {total})")
    st.html(need_html(str(item["information_need"]), packet.rule))
    ss["ann_conds"] = [str(cond["condition_key"]) for cond in item["conditions"]]
    for cond in item["conditions"]:
        slots[str(cond["condition_key"])] = _condition_block(item_id, cond, renderer)
    st.divider()
    st.checkbox(
        "Information need unclear",
        key=_k(item_id, "unclear"),
        on_change=_save,
        args=(item_id,),
    )
    st.text_area(
        "Comment (why is it unclear?)", key=_k(item_id, "comment"), on_change=_save, args=(item_id,)
    )
    st.fragment(_answers, key=F_ANSWERS)(item_id, slots)  # the verdict goes here
    _footer(session)


def _answers(item_id: str, slots: dict[str, Any]) -> None:
    """Everything an answer can change, each part written into its slot on the screen
    (the item verdict in the fragment's own place)."""
    with slots["progress"]:
        _progress()
    with slots[ITEM]:
        _saved_line(item_id, ITEM)
    for ckey in st.session_state["ann_conds"]:
        with slots[ckey]:
            _answer(item_id, ckey)
    _verdict(item_id)


def _progress() -> None:
    ss = st.session_state
    done, total = sum(ss["ann_done"].values()), len(ss["ann_session"].packet.items)
    st.progress(done / total if total else 0.0, text=f"{done} / {total} items complete")


def _verdict(item_id: str) -> None:
    session: AnnotatorSession = st.session_state["ann_session"]
    state = _state_from_widgets(session, item_id)
    n_bad = sum(bool(m) for m in problems(session.packet, item_id, state).values())
    if n_bad:
        st.warning(f"Item {item_id} is not complete: {n_bad} condition(s) still need attention.")
    else:
        st.success(f"Item {item_id} is complete.")


def _saved_line(item_id: str, place: str) -> None:
    """The latest save's confirmation, "Saved J001 (#seq, time)", or why it was NOT saved.

    The nav bar (`place` ITEM) always shows it; the condition whose widget made the save
    shows it too, next to the answer. Both are redrawn by every save (one fragment).
    """
    last = st.session_state.get("ann_last")
    if not last or (place != ITEM and (last["item"], last["place"]) != (item_id, place)):
        if place == ITEM:
            st.caption("Every change is saved as a draft at once.")
    elif last["error"]:
        st.error(last["error"])
    else:
        st.markdown(f"✅ Saved {last['item']} (#{last['seq']}, {last['ts'][11:19]} UTC)")


def _nav_bar(session: AnnotatorSession, index: int, total: int, item_id: str) -> Any:
    """Previous, Next, Save, Go to; returns the (empty) slot for the save status."""
    ss = st.session_state
    ids = session.packet.item_ids
    ss["ann_packet_items"] = ids
    bar = st.container(horizontal=True, vertical_alignment="center")  # 1 block, not 6
    bar.button("◀ Previous", on_click=_go, args=(-1,), shortcut="Alt+P", key="nav_prev")
    bar.button("Next ▶", on_click=_go, args=(1,), shortcut="Alt+N", key="nav_next")
    bar.button("Save", on_click=_save, args=(item_id,), shortcut="Alt+S", key="nav_save")
    ss["ann_jump"] = item_id
    done_flags: dict[str, bool] = ss["ann_done"]
    marks = {i: ("✓ " if done_flags.get(i) else "· ") + i for i in ids}
    bar.selectbox(
        "Go to item",
        ids,
        key="ann_jump",
        format_func=lambda i: marks.get(i, i),
        on_change=_jump,
        label_visibility="collapsed",
        width=260,
    )
    return bar.container(key="ann-status", width="stretch")


def _condition_block(item_id: str, cond: dict[str, Any], renderer: PageImage | None) -> Any:
    """Heading, rubric and pages; returns the (empty) slot for the answer and messages."""
    ckey = str(cond["condition_key"])
    with st.container(border=True, key=f"cond-{item_id}-{ckey}"):
        st.markdown(f"**{ckey} · {md(str(cond.get('name', '')))}**")
        st.html(rubric_html(cond))
        slot = st.container(key=f"answer-{item_id}-{ckey}")
        pkeys = tuple(str(page["page_key"]) for page in cond["pages"])
        _pages(item_id, ckey, pkeys, renderer)
    return slot


def _answer(item_id: str, ckey: str) -> None:
    """The answer, its "Saved" line and the condition's gate messages (live widget values)."""
    st.radio(
        f"Is condition {ckey} established by a displayed page?",
        ["yes", "no"],
        key=_k(item_id, ckey, "ans"),
        horizontal=True,
        on_change=_save,
        args=(item_id, ckey),
    )
    _saved_line(item_id, ckey)
    packet = st.session_state["ann_session"].packet
    ans = _answer_from_widgets(item_id, ckey, packet.pools(item_id)[ckey])
    for msg in packet.condition_problems(item_id, ckey, ans):
        (st.info if msg == "Answer yes or no." else st.error)(f"{ckey}: {msg}")


def _pages(item_id: str, ckey: str, pkeys: tuple[str, ...], renderer: PageImage | None) -> None:
    """Each page (its checkbox, quote box, text with the quote highlighted) is a fragment
    of its own, so a quote redraws one page, not nine."""
    for pkey in pkeys:
        st.fragment(_page_block, key=_f_page(pkey))(item_id, ckey, pkey, renderer)


def _page_block(item_id: str, ckey: str, pkey: str, renderer: PageImage | None) -> None:
    letter = pkey.rsplit("-", 1)[-1]
    # One horizontal block, not st.columns (three blocks): every element on screen costs
    # the browser work on each save, and an item has up to 9 pages per condition.
    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.checkbox(
        f"Select page {letter}",
        key=_k(item_id, ckey, pkey, "sel"),
        on_change=_save,
        args=(item_id, ckey, pkey),
    )
    row.text_input(
        f"Quote from page {letter} ({pkey})",
        key=_k(item_id, ckey, pkey, "q"),
        on_change=_save,
        args=(item_id, ckey, pkey, True),
        placeholder=f"Quote from page {letter}: paste the exact words that establish it",
        label_visibility="collapsed",  # still its accessible name; one markdown render less
    )
    _page_text(item_id, ckey, pkey, renderer)


def _page_text(item_id: str, ckey: str, pkey: str, renderer: PageImage | None) -> None:
    """A page's text, the selected page's quote highlighted in it, and its image toggle."""
    ss = st.session_state
    text = ss["ann_session"].packet.pools(item_id)[ckey][pkey]
    quote = str(ss.get(_k(item_id, ckey, pkey, "q")) or "")
    if not ss.get(_k(item_id, ckey, pkey, "sel")):
        quote = ""
    letter = pkey.rsplit("-", 1)[-1]
    marked, span = highlight_html(text, quote or None)
    if span is not None:
        st.caption(f"Quote matched on page {letter}: {match_context(text, span)}")
    st.html(f'<div class="ev-page" data-page="{pkey}">{marked}</div>')
    if renderer is not None and st.toggle(f"Show page {letter} image", key=f"img:{pkey}"):
        png = renderer(pkey, quote or None)
        if png is None:
            st.caption("No page image is available for this page.")
        else:
            st.image(png, caption=f"Page {letter}")


def _footer(session: AnnotatorSession) -> None:
    st.divider()
    st.caption("Keyboard shortcuts: " + " · ".join(f"**{k}** {v}" for k, v in SHORTCUT_HELP))
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
