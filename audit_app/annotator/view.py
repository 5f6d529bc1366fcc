"""The judging screen: information need, rule, rubrics, candidate pages, gates, drafts.

Every widget change runs `_save`, which rebuilds the item's full state from
the widgets and appends it to the annotator's journal (fsync'ed) BEFORE any
rerun shows "Saved". All decisions about validity come from `policies.gates`
via `audit_app.session`; this module only wires widgets.

Why fragments: an item shows up to 9 pages of ~3,000 characters per condition.
A save must not redraw them. The parts that change after a save are keyed
fragments (the save status, the progress bar, the item verdict, each
condition's gate messages, each condition's pages with their selection/quote/highlight), and `_save`
reruns only the ones it touched (`st.rerun([keys])` from the callback). Only
navigation (Previous/Next/Go to) reruns the whole screen.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import streamlit as st

from audit_app.access import Annotator, authenticate
from audit_app.annotator.keys import SHORTCUT_HELP, shortcut_script
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

# Page texts sit in fixed-height boxes with `contain: strict` and `content-visibility: auto`:
# a change elsewhere on the screen never re-lays them out, and off-screen pages are not
# laid out or painted at all (an item can show 9 pages of ~3,000 characters per condition).
PAGE_CSS = """
<style>
.ev-page {height: 16rem; overflow-y: auto; border: 1px solid #ddd; padding: .5rem;
  font-family: Georgia, serif; font-size: .92rem; background: #fcfcfa; white-space: normal;
  box-sizing: border-box; contain: strict; content-visibility: auto;
  contain-intrinsic-size: auto 16rem}
.ev-page mark {background: #ffe066; padding: 0}
.ev-rubric {border-left: 4px solid #4c78a8; padding: .25rem .75rem; margin-bottom: .5rem}
.ev-rubric ul {margin: 0 0 .25rem 1rem}
</style>
"""


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
            ann_saved=None,
            ann_error=None,
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


# Fragment keys (`st.fragment(key=...)`), rerun by `_save` after a durable append.
F_STATUS, F_PROGRESS, F_VERDICT = "ann_f_status", "ann_f_progress", "ann_f_verdict"
F_ITEM = "ann_f_item"  # the item screen below the heading (nav bar included)


def _f_msgs(ckey: str) -> str:
    return f"ann_f_msgs_{ckey}"


def _f_pages(ckey: str) -> str:
    return f"ann_f_pages_{ckey}"


def _save(
    item_id: str, ckey: str | None = None, pkey: str | None = None, quoted: bool = False
) -> None:
    """Widget callback: persist the item's full state (append + fsync) before any confirmation.

    `ckey`/`pkey` name the condition and page whose widget changed; `quoted` says it was the
    page's quote box: a quote typed there selects that page (unchecking it later is still
    possible). Afterwards only the fragments that show something this save changed rerun.
    """
    ss = st.session_state
    if item_id != ss.get("ann_shown"):
        # A widget event for an item that the last item run no longer showed (the browser
        # can send one late, after navigating): its widget state is gone, so saving it would
        # record a blank draft, and its fragments no longer exist. Ignore it.
        return
    session: AnnotatorSession = ss["ann_session"]
    if quoted and ckey is not None and pkey is not None:
        prefix = _k(item_id, ckey, pkey)
        if str(ss.get(prefix + ":q") or "").strip():
            ss[prefix + ":sel"] = True
    keys = [F_STATUS, F_PROGRESS, F_VERDICT]
    keys += [_f_msgs(ckey)] if ckey is not None else []
    keys += [_f_pages(ckey)] if ckey is not None and pkey is not None else []
    project, token = ss["ann_auth"]
    if authenticate(project, token) is None:
        ss["ann_error"] = "NOT saved: this link is no longer valid (revoked). Reload the page."
        st.rerun(keys)
    state = _state_from_widgets(session, item_id)
    try:
        line = session.save(item_id, state)
    except OSError as exc:  # the disk said no: say so, never claim a save
        ss["ann_error"] = f"NOT saved ({exc.strerror or exc}). Your answer is still on screen."
        st.rerun(keys)
    ss["ann_states"][item_id] = state
    ss["ann_done"][item_id] = bool(line["complete"])
    ss["ann_saved"] = {"item": item_id, "seq": line["seq"], "ts": line["ts"]}
    ss["ann_error"] = None
    st.rerun(keys)


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
    st.fragment(_progress, key=F_PROGRESS)(total)
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
    _nav_bar(session, index, total, item_id)
    _init_widgets(item_id, session, states.get(item_id))
    st.markdown(f"#### Item {item_id} ({index + 1} of {total})")
    st.html(_need_html(str(item["information_need"]), packet.rule))
    for cond in item["conditions"]:
        _condition_block(item_id, cond, renderer)
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
    st.fragment(_verdict, key=F_VERDICT)(item_id)
    _footer(session)


def _progress(total: int) -> None:
    done = sum(st.session_state["ann_done"].values())
    st.progress(done / total if total else 0.0, text=f"{done} / {total} items complete")


def _verdict(item_id: str) -> None:
    session: AnnotatorSession = st.session_state["ann_session"]
    state = _state_from_widgets(session, item_id)
    n_bad = sum(bool(m) for m in problems(session.packet, item_id, state).values())
    if n_bad:
        st.warning(f"Item {item_id} is not complete: {n_bad} condition(s) still need attention.")
    else:
        st.success(f"Item {item_id} is complete.")


def _status() -> None:
    ss = st.session_state
    saved = ss.get("ann_saved")
    if ss.get("ann_error"):
        st.error(ss["ann_error"])
    elif saved:
        st.markdown(f"✅ Saved {saved['item']} (#{saved['seq']}, {saved['ts'][11:19]} UTC)")
    else:
        st.caption("Every change is saved as a draft at once.")


def _nav_bar(session: AnnotatorSession, index: int, total: int, item_id: str) -> None:
    ss = st.session_state
    ids = session.packet.item_ids
    ss["ann_packet_items"] = ids
    cols = st.columns([1, 1, 1, 3, 3])
    cols[0].button("◀ Previous", on_click=_go, args=(-1,), shortcut="Alt+P", key="nav_prev")
    cols[1].button("Next ▶", on_click=_go, args=(1,), shortcut="Alt+N", key="nav_next")
    cols[2].button("Save", on_click=_save, args=(item_id,), shortcut="Alt+S", key="nav_save")
    ss["ann_jump"] = item_id
    done_flags: dict[str, bool] = ss["ann_done"]
    marks = {i: ("✓ " if done_flags.get(i) else "· ") + i for i in ids}
    cols[3].selectbox(
        "Go to item",
        ids,
        key="ann_jump",
        format_func=lambda i: marks.get(i, i),
        on_change=_jump,
        label_visibility="collapsed",
    )
    with cols[4]:
        st.fragment(_status, key=F_STATUS)()


def _condition_block(item_id: str, cond: dict[str, Any], renderer: PageImage | None) -> None:
    ckey = str(cond["condition_key"])
    with st.container(border=True, key=f"cond-{item_id}-{ckey}"):
        st.markdown(f"**{ckey} · {_md(str(cond.get('name', '')))}**")
        st.html(_rubric_html(cond))
        st.radio(
            f"Is condition {ckey} established by a displayed page?",
            ["yes", "no"],
            key=_k(item_id, ckey, "ans"),
            horizontal=True,
            on_change=_save,
            args=(item_id, ckey),
        )
        st.fragment(_messages, key=_f_msgs(ckey))(item_id, ckey)
        pkeys = tuple(str(page["page_key"]) for page in cond["pages"])
        st.fragment(_pages, key=_f_pages(ckey))(item_id, ckey, pkeys, renderer)


def _messages(item_id: str, ckey: str) -> None:
    """The gate messages of one condition, from the live widget values."""
    packet = st.session_state["ann_session"].packet
    ans = _answer_from_widgets(item_id, ckey, packet.pools(item_id)[ckey])
    for msg in packet.condition_problems(item_id, ckey, ans):
        (st.info if msg == "Answer yes or no." else st.error)(f"{ckey}: {msg}")


def _pages(item_id: str, ckey: str, pkeys: tuple[str, ...], renderer: PageImage | None) -> None:
    """One fragment per condition for its pages: one per page made navigation slower
    (Next -> rendered) by more than it saved on a quote (benchmarks/app_latency.py)."""
    for pkey in pkeys:
        _page_block(item_id, ckey, pkey, renderer)


def _page_block(item_id: str, ckey: str, pkey: str, renderer: PageImage | None) -> None:
    ss = st.session_state
    text = ss["ann_session"].packet.pools(item_id)[ckey][pkey]
    quote = str(ss.get(_k(item_id, ckey, pkey, "q")) or "")
    if not ss.get(_k(item_id, ckey, pkey, "sel")):
        quote = ""
    letter = pkey.rsplit("-", 1)[-1]
    cols = st.columns([1, 4])
    cols[0].checkbox(
        f"Select page {letter}",
        key=_k(item_id, ckey, pkey, "sel"),
        on_change=_save,
        args=(item_id, ckey, pkey),
    )
    cols[1].text_input(
        f"Quote from page {letter} ({pkey})",
        key=_k(item_id, ckey, pkey, "q"),
        on_change=_save,
        args=(item_id, ckey, pkey, True),
        placeholder="paste the exact words that establish the condition",
    )
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


@lru_cache(maxsize=256)
def _need_html(need: str, rule: str) -> str:
    return (
        f'<div class="ev-rubric"><b>Information need.</b> {_esc(need)}</div>'
        f'<div class="ev-rubric"><b>Rule.</b> {_esc(rule)}</div>'
    )


def _rubric_html(cond: dict[str, Any]) -> str:  # small; rebuilt only on navigation
    def bullets(values: Any) -> str:
        return "".join(f"<li>{_esc(str(v))}</li>" for v in values or [])

    parts = [f"<div class='ev-rubric'><b>Requirement.</b> {_esc(str(cond.get('requirement')))}"]
    if cond.get("counts"):
        parts.append(f"<br><b>Counts:</b><ul>{bullets(cond['counts'])}</ul>")
    if cond.get("does_not_count"):
        parts.append(f"<b>Does not count:</b><ul>{bullets(cond['does_not_count'])}</ul>")
    if cond.get("note"):
        parts.append(f"<b>Note.</b> {_esc(str(cond['note']))}")
    return "".join(parts) + "</div>"


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


def _esc(text: str) -> str:
    import html

    return html.escape(text)


def _md(text: str) -> str:
    """Escape Markdown control characters in packet text shown with st.markdown."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>$~" else ch for ch in text)


def project_of(root: str | Path) -> Project:
    """The project folder without reading project.json (annotators never need it)."""
    return Project(Path(root).resolve())
