"""Streamlit AppTest of the page logic: gates, navigation, draft restore, access, admin."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from audit_app import journal
from audit_app.access import add_annotator, revoke_annotator
from audit_app.render import build_all_page_maps
from audit_app.session import AnnotatorSession
from tests.app_fixture import PASSWORD, build

APP = str(Path(__file__).resolve().parent.parent / "audit_app" / "streamlit_app.py")
_OPENED: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _OPENED is not None and isinstance(args[0], str | Path):
        _OPENED.append(str(args[0]))


sys.addaudithook(_audit)  # audit hooks cannot be removed; it records only while _OPENED is set


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fx = build(tmp_path / "proj", pdf_dir=tmp_path / "pdfs")
    _, token = add_annotator(fx.project, "alice", ["initial"])
    _, other = add_annotator(fx.project, "bob", ["initial"])
    assert build_all_page_maps(fx.project)  # what `evaudit serve` does before starting
    monkeypatch.setenv("EVAUDIT_PROJECT", str(fx.project.root))
    return fx, token, other


def _app(token: str | None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    if token is not None:
        at.query_params["token"] = token
    return at.run()


def _act(at: AppTest, widget) -> str:  # type: ignore[no-untyped-def]
    """One interaction. A save from a page's widget or an item-level one reruns only the
    fragments it changed (the answers fragment, the condition's pages): AppTest then holds
    just those. Return their text, then run the whole script so the assertions below see
    the whole page."""
    widget.run()
    assert not at.exception
    partial = _texts(at)
    at.run()
    return partial


def _texts(at: AppTest) -> str:
    parts = [e.value for e in at.error] + [e.value for e in at.warning] + [e.value for e in at.info]
    parts += [e.value for e in at.success] + [m.value for m in at.markdown]
    return "\n".join(str(p) for p in parts)


def test_gates_and_completion(env) -> None:
    fx, token, _ = env
    at = _app(token)
    assert not at.exception
    assert "Item J001 (1 of 3)" in _texts(at)
    # C1: yes with a valid quote (typing the quote selects the page).
    _act(at, at.radio(key="w:J001:C1:ans").set_value("yes"))
    assert "C1: A 'yes' needs at least one selected page." in _texts(at)
    _act(at, at.text_input(key="w:J001:C1:J001-C1-B:q").input(fx.quotes["J001-C1-B"]))
    assert at.checkbox(key="w:J001:C1:J001-C1-B:sel").value is True  # the quote selected it
    assert not [e for e in at.error if str(e.value).startswith("C1:")]
    assert any("Quote matched on page B" in str(c.value) for c in at.caption)
    # C2: yes with a quote that is not on the page -> error, item not complete.
    _act(at, at.radio(key="w:J001:C2:ans").set_value("yes"))
    _act(at, at.text_input(key="w:J001:C2:J001-C2-A:q").input("this sentence is not on the page"))
    assert "C2: Page J001-C2-A: the quote is not on this page (check it verbatim)." in _texts(at)
    assert "Item J001 is not complete" in _texts(at)
    latest = journal.latest_by_item(journal.read_journal(_journal(fx, "alice")).lines)
    assert latest["J001"]["complete"] is False
    # C2: no with a page still selected -> refused.
    _act(at, at.radio(key="w:J001:C2:ans").set_value("no"))
    assert "A 'no' carries no selected page: clear the page selection." in _texts(at)
    _act(at, at.checkbox(key="w:J001:C2:J001-C2-A:sel").uncheck())
    assert "A 'no' carries no quote" not in _texts(at)
    assert "Item J001 is complete." in _texts(at)
    assert "1 / 3 items complete" in str(at.get("progress")[0].proto.text)
    latest = journal.latest_by_item(journal.read_journal(_journal(fx, "alice")).lines)
    assert latest["J001"]["complete"] is True
    assert latest["J001"]["conditions"]["C2"] == {"answer": "no", "pages": [], "quotes": {}}


def _journal(fx, name: str) -> Path:
    return journal.journal_path(fx.project.journal_dir("initial"), name)


def test_navigation_and_draft_restore(env) -> None:
    _fx, token, _ = env
    at = _app(token)
    at.button(key="nav_prev").click().run()
    assert "Item J001 (1 of 3)" in _texts(at)  # Previous on the first item stays live and safe
    _act(at, at.radio(key="w:J001:C1:ans").set_value("no"))
    _act(at, at.text_input(key="w:J001:C2:J001-C2-C:q").input("a draft quote here"))
    at.button(key="nav_next").click().run()
    assert "Item J002 (2 of 3)" in _texts(at)
    _act(at, at.checkbox(key="w:J002:unclear").check())
    _act(at, at.text_area(key="w:J002:comment").input("two programmes match"))
    at.button(key="nav_next").click().run()
    at.button(key="nav_next").click().run()
    assert "Item J003 (3 of 3)" in _texts(at)
    at.button(key="nav_prev").click().run()
    at.button(key="nav_prev").click().run()
    assert at.radio(key="w:J001:C1:ans").value == "no"
    # A fresh session (reload) resumes at the first incomplete item with every draft restored.
    again = _app(token)
    assert "Item J001 (1 of 3)" in _texts(again)
    assert again.radio(key="w:J001:C1:ans").value == "no"
    assert again.text_input(key="w:J001:C2:J001-C2-C:q").value == "a draft quote here"
    assert again.checkbox(key="w:J001:C2:J001-C2-C:sel").value is True
    again.button(key="nav_next").click().run()
    assert again.checkbox(key="w:J002:unclear").value is True
    assert again.text_area(key="w:J002:comment").value == "two programmes match"


def test_wrong_and_revoked_tokens_refused(env) -> None:
    fx, token, _ = env
    at = _app("not-a-token")
    assert "Access refused" in _texts(at) and not at.radio
    revoke_annotator(fx.project, "alice")
    at = _app(token)
    assert "Access refused" in _texts(at) and not at.radio


def test_annotator_session_opens_only_allowed_files(env) -> None:
    global _OPENED
    fx, token, other = env
    bob = _app(other)
    _act(bob, bob.radio(key="w:J001:C1:ans").set_value("yes"))
    assert _journal(fx, "bob").is_file()
    _OPENED = []
    try:
        at = _app(token)
        _act(at, at.radio(key="w:J001:C1:ans").set_value("no"))
        _act(at, at.toggle(key="img:J001-C1-A").set_value(True))
        assert len(at.image) == 1 and at.image[0].captions == ["Page A"]
        assert ".pdf" not in at.image[0].value[0] and "DOCSECRET" not in at.image[0].value[0]
        at.button(key="nav_next").click().run()
    finally:
        opened, _OPENED = _OPENED, None
    root = str(fx.project.root)
    mine = [p for p in opened if p.startswith(root)]
    allowed = (
        str(fx.project.packets_dir),
        str(fx.project.annotators_path),
        str(_journal(fx, "alice")),
        str(fx.project.root / "render"),  # page map, read server-side by the opaque renderer
    )
    journal_dir = str(fx.project.journal_dir("initial"))  # opened only to fsync a new journal
    assert mine, "the audit hook saw no project file"
    offenders = sorted({p for p in mine if not p.startswith(allowed) and p != journal_dir})
    assert not offenders
    assert not any("/keys/" in p or p.endswith(".duckdb") or "bob.jsonl" in p for p in opened)


def test_admin_needs_password(env) -> None:
    _fx, token, _ = env
    at = _app(None)
    assert "Campaign admin" not in _texts(at)
    at.text_input[0].input("wrong")
    at.button[0].click().run()
    assert "Wrong password." in _texts(at)
    at.text_input[0].input(PASSWORD)
    at.button[0].click().run()
    assert not at.exception
    assert "Campaign admin" in _texts(at)
    # An annotator link never reaches the admin views, whatever else is in the URL.
    at2 = AppTest.from_file(APP, default_timeout=30)
    at2.query_params["token"] = token
    at2.query_params["admin"] = "1"
    at2.run()
    assert "Campaign admin" not in _texts(at2) and "Admin password" not in str(at2.text_input)


def _pages_sent(at: AppTest) -> list[str]:
    """data-page of every page text block in the last run's output."""
    return [
        h.proto.body.split('data-page="', 1)[1].split('"', 1)[0]
        for h in at.get("html")
        if 'class="ev-page"' in h.proto.body
    ]


def test_a_save_redraws_only_what_it_changed(env, monkeypatch: pytest.MonkeyPatch) -> None:
    fx, token, _ = env
    reruns: list[object] = []
    real_rerun = st.rerun

    def spy(scope: object = "app") -> None:
        reruns.append(scope)
        real_rerun(scope)  # type: ignore[arg-type]

    monkeypatch.setattr(st, "rerun", spy)
    at = _app(token)
    assert len(_pages_sent(at)) == 6  # the full screen: 2 conditions x 3 pages
    # An answer asks for no other rerun: in the browser the radio's own rerun is the
    # F_ANSWERS fragment that wrote it (AppTest cannot send a widget's fragment, so here
    # the whole script ran). Saved before that rerun shows it, next to the answer too.
    _act(at, at.radio(key="w:J001:C1:ans").set_value("yes"))
    _act(at, at.radio(key="w:J001:C2:ans").set_value("no"))
    assert reruns == []
    # What that fragment redraws (an item-level widget reruns just it): progress, save
    # status, both answers with their messages and "Saved" line, the verdict; no page text.
    at.text_area(key="w:J001:comment").input("checked twice").run()
    assert reruns == [["ann_f_answers"]] and not at.exception
    partial = _texts(at)
    assert _pages_sent(at) == [] and {r.key for r in at.radio} == {"w:J001:C1:ans", "w:J001:C2:ans"}
    assert "C1: A 'yes' needs at least one selected page." in partial
    assert partial.count("Saved J001 (#3,") == 1  # the nav bar; no condition made this save
    assert "Item J001 is not complete" in partial and "Item J001 (1 of 3)" not in partial
    assert len(at.get("progress")) == 1
    # A quote: that page is redrawn (selected, highlighted), no other page.
    at.run()  # AppTest can only reach widgets of the last run's output
    at.text_input(key="w:J001:C1:J001-C1-B:q").input(fx.quotes["J001-C1-B"]).run()
    assert reruns[-1] == ["ann_f_answers", "ann_f_page_J001-C1-B"]
    assert _pages_sent(at) == ["J001-C1-B"]  # that page alone, not its neighbours
    assert at.checkbox(key="w:J001:C1:J001-C1-B:sel").value is True  # the quote selected it
    marked = [h.proto.body for h in at.get("html") if "<mark>" in h.proto.body]
    assert len(marked) == 1 and 'data-page="J001-C1-B"' in marked[0]
    assert "Item J001 is complete." in _texts(at) and _texts(at).count("Saved J001 (#4,") == 2
    assert "1 / 3 items complete" in str(at.get("progress")[0].proto.text)
    # Selecting a page without a quote changes nothing on the pages: F_ANSWERS alone;
    # unselecting a page with a quote removes its highlight: the pages too.
    at.run()
    at.checkbox(key="w:J001:C1:J001-C1-A:sel").check().run()
    assert reruns[-1] == ["ann_f_answers"] and _pages_sent(at) == []
    assert "C1: Page J001-C1-A: add a verbatim quote from this page." in _texts(at)
    at.run()
    at.checkbox(key="w:J001:C1:J001-C1-B:sel").uncheck().run()
    assert reruns[-1] == ["ann_f_answers", "ann_f_page_J001-C1-B"]
    assert not [h for h in at.get("html") if "<mark>" in h.proto.body]
    # Every one of those saves is on disk, in order.
    lines = journal.read_journal(_journal(fx, "alice")).lines
    assert [ln["seq"] for ln in lines] == [1, 2, 3, 4, 5, 6]
    assert lines[3]["complete"] is True and lines[-1]["complete"] is False


def test_refused_saves_say_not_saved(env, monkeypatch: pytest.MonkeyPatch) -> None:
    fx, token, _ = env
    at = _app(token)
    _act(at, at.radio(key="w:J001:C1:ans").set_value("yes"))
    assert "Saved J001 (#1," in _texts(at)

    def disk_full(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    # The disk refuses: the screen says NOT saved, and no line claims a save.
    with monkeypatch.context() as m:
        m.setattr(AnnotatorSession, "save", disk_full)
        _act(at, at.radio(key="w:J001:C1:ans").set_value("no"))
        assert "NOT saved (No space left on device)" in _texts(at)
        assert "Saved J001" not in _texts(at)
    # A revoked link saves nothing more: not from a quote box (which reruns only the
    # answers and that condition's pages), not from an answer.
    revoke_annotator(fx.project, "alice")
    at.text_input(key="w:J001:C2:J001-C2-A:q").input("any words").run()
    texts = _texts(at)
    assert "NOT saved: this link is no longer valid (revoked)" in texts and "Saved J" not in texts
    at.radio(key="w:J001:C2:ans").set_value("yes").run()
    assert "Saved J" not in _texts(at)
    assert len(journal.read_journal(_journal(fx, "alice")).lines) == 1
