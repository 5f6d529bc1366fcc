"""Issue #27: the annotator screen's per-item status comes from what the session holds.

A rerun of a 200-item screen asks the journal once whether it gained lines (one
signature check) instead of once per item, reads only the lines appended since (each new
line once), and resolves the journal backend once per project handle (one look at
project.json per handle, not one per save or per item). Streamlit AppTest, with the
card's callback called as Streamlit calls it, before the page run; the counts are of
calls, never of time."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from audit_app.session import AnnotatorSession, ItemState
from campaign import journal, journal_pg
from campaign.project import Project
from services.annotators import add_annotator
from tests.app_fixture import build
from vocabulary.gates import ConditionAnswer

ITEMS = 200


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


def _count(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts journal signature checks, journal reads (and the lines they return) and
    looks at project.json for the journal backend (`journal_pg.config_for`: a stat)."""
    counts: Counter[str] = Counter()
    signature, read_file, config_for = (
        journal.FileJournal.signature,
        journal._read_file,
        journal_pg.config_for,
    )

    def sig(self: journal.FileJournal, annotator: str) -> Any:
        counts["signature"] += 1
        return signature(self, annotator)

    def read(path: Path, cursor: Any = None) -> Any:
        out = read_file(path, cursor)
        counts["reads"] += 1
        counts["lines_read"] += len(out.lines) if out is not None else 0
        return out

    def config(root: Path) -> Any:
        counts["project_json"] += 1
        return config_for(root)

    monkeypatch.setattr(journal.FileJournal, "signature", sig)
    monkeypatch.setattr(journal, "_read_file", read)
    monkeypatch.setattr(journal_pg, "config_for", config)
    return counts


def test_a_rerun_checks_the_journal_once_and_reads_only_new_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fx = build(tmp_path / "p", items=ITEMS, conditions=1, pages=1, chars=120)
    _, token = add_annotator(fx.project, "alice", ["initial"])
    seed = AnnotatorSession.open(
        fx.project.packets_dir, fx.project.journals_dir, "initial", "alice"
    )
    ids = seed.packet.item_ids
    for item in ids[:50]:  # a journal with history: 50 items started
        seed.save(item, ItemState({"C1": ConditionAnswer("no")}))
    monkeypatch.setenv("EVAUDIT_PROJECT", str(fx.project.root))
    counts = _count(monkeypatch)
    at = AppTest.from_function(_page, default_timeout=60)
    at.query_params["token"] = token
    at.run()
    assert not at.exception

    counts.clear()
    at.run()  # a rerun with nothing new: every item's status from what the session holds
    assert not at.exception
    # Before this change: 202 signature checks (one per item, the summary's, the
    # page's) and 203 looks at project.json per rerun; now one each.
    assert counts["signature"] == 1
    assert counts["reads"] == 0
    assert counts["project_json"] == 1  # the page run's handle resolves its backend once

    counts.clear()
    edits = [
        {"op": "answer", "item": ids[60], "cond": "C1", "value": "no"},
        {"op": "answer", "item": ids[61], "cond": "C1", "value": "no"},
        {"op": "unclear", "item": ids[0], "on": True},
    ]
    box = {"nonce": "tab1", "actions": [{**a, "id": i} for i, a in enumerate(edits, 1)]}
    at.session_state["test_outbox"] = box
    at.run()  # one round trip: the callback saves three times, then the page run
    assert not at.exception
    assert counts["lines_read"] == 3  # each new line read once; the 50 old ones never again
    assert counts["project_json"] == 2  # one per handle (the round trip's, the page run's)
    assert counts["signature"] == 4  # before each of the 3 edits, and once for the page run

    shown = {it["id"]: it for it in at.session_state["ann_last_data"]["items"]}
    fresh = AnnotatorSession.open(
        fx.project.packets_dir, fx.project.journals_dir, "initial", "alice"
    )
    states = fresh.states()
    assert len(states) == 52
    assert {i: (it["done"], it["started"]) for i, it in shown.items()} == {
        i: (fresh.complete(i), i in states) for i in ids
    }


def test_a_handle_resolves_its_backend_once_and_sees_a_switch(tmp_path: Path) -> None:
    """Saves through a session of a project handle look at project.json once in all; a
    switch of the backend in this process (`journal_pg.set_backend`, as `journal migrate`
    does) is seen by the handle at once."""
    fx = build(tmp_path / "p", items=3)
    calls: list[Path] = []
    real = journal_pg.config_for

    def counted(root: Path) -> Any:
        calls.append(root)
        return real(root)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(journal_pg, "config_for", counted)
        project = Project(fx.project.root)
        session = AnnotatorSession.for_project(project, "initial", "alice")
        ids = session.packet.item_ids
        for n in range(20):
            session.save(ids[n % 3], ItemState({"C1": ConditionAnswer("no")}, n % 2 == 1))
            session.states()
        assert len(calls) == 1  # before: one per save and one per states()
        assert project.journals is None
        journal_pg.set_backend(project.root, None)  # the switch (here: files to files)
        assert project.journals is None and len(calls) == 2  # re-resolved once
        session.use_project(project)
        assert len(session.states()) == 3


def test_held_states_equal_a_fresh_read(tmp_path: Path) -> None:
    """Two tabs of one annotator save in turn; each session's held states (its own lines
    held at once, the other's read as new lines) equal a fresh full read, also after the
    journal file is replaced by a shorter one."""
    fx = build(tmp_path / "p", items=4)

    def open_session() -> AnnotatorSession:
        return AnnotatorSession.for_project(Project(fx.project.root), "initial", "alice")

    one, two = open_session(), open_session()
    ids = one.packet.item_ids
    for n in range(12):
        tab = one if n % 2 else two
        tab.save(ids[n % 4], ItemState({"C1": ConditionAnswer("no")}, n % 3 == 0, f"c{n}"))
        for s in (one, two):
            assert s.states() == open_session().states()
            assert [s.complete(i) for i in ids] == [open_session().complete(i) for i in ids]
    path = journal.journal_path(fx.project.journal_dir("initial"), "alice")
    first = path.read_bytes().splitlines(keepends=True)[0]
    path.write_bytes(first)  # replaced: one line left
    for s in (one, two):
        assert s.states() == open_session().states() and len(s.states()) == 1
