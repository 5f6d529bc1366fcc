"""Two reruns of one browser session applying the same outbox at once (Streamlit can
start a rerun's callback in a new thread while the previous one still saves): each
action is applied once. Seen with the PostgreSQL journal, whose commits take longer."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from audit_app.judging import CardSession, apply_outbox
from audit_app.session import AnnotatorSession
from campaign import journal
from tests.app_fixture import build


def test_concurrent_reruns_apply_each_action_once(tmp_path: Path) -> None:
    fx = build(tmp_path / "p", items=2)
    s = AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", "a")
    slow_save = s.save

    def save(item_id: str, state: Any) -> dict[str, Any]:
        time.sleep(0.05)  # a commit over the network
        return slow_save(item_id, state)

    s.save = save  # type: ignore[method-assign]
    card = CardSession()
    box = {
        "nonce": "tab",
        "actions": [
            {"id": 1, "op": "answer", "item": "J001", "cond": "C1", "value": "no"},
            {"id": 2, "op": "answer", "item": "J001", "cond": "C2", "value": "no"},
        ],
    }
    runs = [
        threading.Thread(target=apply_outbox, args=(s, card, box, lambda: True)) for _ in range(3)
    ]
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    assert [ln["seq"] for ln in journal.read_journal(s.journal_path).lines] == [1, 2]
    assert card.applied == {"tab": 2}
