"""Streamlit AppTest of access and file isolation (the judging card itself is driven in
Chromium: tests/test_app_screen.py, tests/test_app_browser.py; its server logic in
tests/test_app_judging.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from audit_app.access import login_throttle
from audit_app.judging import CardSession, apply_outbox
from audit_app.render import images_for
from audit_app.session import AnnotatorSession
from campaign import journal
from services.annotators import add_annotator, revoke_annotator
from services.serving import build_all_page_maps
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


def test_wrong_and_revoked_tokens_refused(env) -> None:
    fx, token, _ = env
    at = _app("not-a-token")
    assert "Access refused" in _texts(at) and not at.get("bidi_component")
    revoke_annotator(fx.project, "alice")
    at = _app(token)
    assert "Access refused" in _texts(at) and not at.get("bidi_component")


def _journal(fx, name: str) -> Path:  # type: ignore[no-untyped-def]
    return journal.journal_path(fx.project.journal_dir("initial"), name)


def test_annotator_session_opens_only_allowed_files(env) -> None:
    """A page load, saves, navigation and a page image open only the annotator's files.

    The page load runs in AppTest; saves, navigation and the image run the same code the
    card's actions run on the server (audit_app.judging, audit_app.render)."""
    global _OPENED
    fx, token, _other = env
    bob = AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", "bob")
    apply_outbox(
        bob,
        CardSession(),
        {
            "nonce": "b",
            "actions": [{"id": 1, "op": "answer", "item": "J001", "cond": "C1", "value": "yes"}],
        },
        lambda: True,
    )
    assert _journal(fx, "bob").is_file()
    _OPENED = []
    try:
        at = _app(token)
        assert not at.exception
        alice = AnnotatorSession.open(
            fx.project.packets_dir, fx.project.journals_dir, "initial", "alice"
        )
        card = CardSession()
        box = {
            "nonce": "a",
            "actions": [
                {"id": 1, "op": "answer", "item": "J001", "cond": "C1", "value": "no"},
                {"id": 2, "op": "go", "to": 1},
                {"id": 3, "op": "image", "item": "J002", "page": "J002-C1-A"},
            ],
        }
        assert len(apply_outbox(alice, card, box, lambda: True)) == 1
        renderer = images_for(fx.project.root)("initial")
        assert renderer is not None
        png = renderer("J002-C1-A", None)
        assert png is not None and png.startswith(b"\x89PNG")
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
    login_throttle(
        _fx.project
    ).not_before = 0.0  # the wait after a wrong password (tested in test_app_access)
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
