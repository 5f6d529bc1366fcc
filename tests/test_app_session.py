"""Pure page-state logic: resume, navigation, progress, drafts, highlighting, simulation."""

from __future__ import annotations

from pathlib import Path

from audit_app.session import (
    AnnotatorSession,
    ItemState,
    first_incomplete,
    highlight_html,
    progress,
    step,
)
from campaign import journal
from services.simulate import simulate
from tests.app_fixture import build
from vocabulary.gates import ConditionAnswer, check_condition


def test_step_is_clamped_and_always_live() -> None:
    assert step(0, -1, 3) == 0
    assert step(0, 1, 3) == 1
    assert step(2, 1, 3) == 2
    assert step(5, 0, 3) == 2
    assert step(0, 1, 0) == 0


def test_resume_at_first_incomplete_with_drafts(tmp_path: Path) -> None:
    fx = build(tmp_path / "p")
    s = AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", "ann")
    good = {
        ck: ConditionAnswer("yes", (f"J001-{ck}-B",), {f"J001-{ck}-B": fx.quotes[f"J001-{ck}-B"]})
        for ck in ("C1", "C2")
    }
    s.save("J001", ItemState(good))
    s.save("J002", ItemState({"C1": ConditionAnswer("no")}, True, "which year?"))
    states = s.restore()
    assert first_incomplete(s.packet, states) == 1
    assert progress(s.packet, states) == (1, 3)
    assert states["J002"].unclear and states["J002"].comment == "which year?"
    # A later line wins; nothing is rewritten.
    s.save("J002", ItemState({"C1": ConditionAnswer("no"), "C2": ConditionAnswer("no")}))
    states = s.restore()
    assert first_incomplete(s.packet, states) == 2
    assert len(journal.read_journal(s.journal_path).lines) == 3


def test_restore_ignores_other_packet_versions(tmp_path: Path) -> None:
    fx = build(tmp_path / "p")
    s = AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", "ann")
    journal.append(
        s.journal_path,
        {"annotator": "ann", "packet_id": "initial", "packet_sha256": "f" * 64, "item_id": "J001"},
    )
    assert s.restore() == {} and s.stale_lines == 1


def test_highlight_marks_the_original_span() -> None:
    text = "Intro line.\nThe “programme” met its evi-\ndence target <b>fully</b>."
    html, span = highlight_html(text, 'the "programme" met its evidence target')
    assert span is not None
    assert text[span[0] : span[1]].startswith("The “programme”")
    assert "<mark>The “programme” met its evi-<br>dence target</mark>" in html
    assert "&lt;b&gt;" in html  # page text is escaped, never interpreted
    assert highlight_html(text, "not there at all")[1] is None


def test_simulated_journals_pass_the_gates_and_disagree(tmp_path: Path) -> None:
    fx = build(tmp_path / "p", items=30)
    saved = simulate(fx.project, "initial", ("a", "b"), seed=3)
    assert saved["a"] == 60 and 0 < saved["b"] <= 60
    pkt = AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", "a")
    latest = journal.latest_states(
        fx.project.journal_dir("initial"), pkt.packet.sha256, pkt.packet.item_ids
    )
    yes_quotes = 0
    disagree = 0
    for item_id, line in latest["a"].items():
        pools = pkt.packet.pools(item_id)
        assert line["complete"] is True
        for ck, ans in ItemState.from_line(line).answers.items():
            assert check_condition(ans, pools[ck]) == []
            yes_quotes += ans.answer == "yes"
            other = latest["b"].get(item_id)
            if other is not None:
                disagree += other["conditions"][ck]["answer"] != ans.answer
    assert yes_quotes > 20 and disagree > 0
