"""One authentication per round trip: the card's outbox callback checks the link once for
all the saves it applies, and the page run right after it reuses that check
(`audit_app.annotator.view.RoundTripSignIn`). Streamlit AppTest, with the callback called
as Streamlit calls it, before the page run."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from audit_app.annotator import view
from campaign import journal
from campaign.project import Project
from services.annotators import add_annotator
from tests.app_fixture import build


def _page() -> None:  # the script AppTest runs (its own imports: it is run from source)
    import os
    from pathlib import Path

    import streamlit as st

    from audit_app.annotator import view
    from campaign.project import Project

    box = st.session_state.pop("test_outbox", None)
    if box is not None:
        view.apply_card_outbox(box)  # Streamlit runs the card's callback before the page
    view.annotator_app(Project(Path(os.environ["EVAUDIT_PROJECT"])), st.query_params["token"])


@pytest.mark.parametrize("edits", [0, 1, 3])
def test_one_registry_check_per_round_trip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: int
) -> None:
    fx = build(tmp_path / "p", items=3)
    _, token = add_annotator(fx.project, "alice", ["initial"])
    monkeypatch.setenv("EVAUDIT_PROJECT", str(fx.project.root))
    calls: list[str | None] = []
    real = view.authenticate

    def counted(project: Project, tok: str | None):  # type: ignore[no-untyped-def]
        calls.append(tok)
        return real(project, tok)

    monkeypatch.setattr(view, "authenticate", counted)
    at = AppTest.from_function(_page, default_timeout=30)
    at.query_params["token"] = token
    at.run()
    assert not at.exception and calls == [token]  # the first page run
    steps = [
        {"op": "answer", "item": "J001", "cond": "C1", "value": "no"},
        {"op": "answer", "item": "J001", "cond": "C2", "value": "no"},
        {"op": "unclear", "item": "J001", "on": True},
    ][:edits]
    actions = [{"op": "go", "to": 1}, *steps]
    box = {"nonce": "tab1", "actions": [{**a, "id": i} for i, a in enumerate(actions, 1)]}
    at.session_state["test_outbox"] = box
    at.run()
    assert not at.exception
    assert calls == [token, token]  # callback and page run: one check between them
    path = journal.journal_path(fx.project.journal_dir("initial"), "alice")
    saved = journal.read_journal(path).lines if path.exists() else []
    assert len(saved) == edits  # every save was checked (by that one check) and written
