"""Every reader of the response journal counts the same lines (campaign.journal's one rule).

The journal below mixes what a real campaign can leave behind: a later line saved on an
older version of the packet, lines without a packet hash, a line naming another annotator,
an item the packet does not have, and a crash's partial last line. The expected answer is
written out by hand; each reader (agreement/integrity, pool building, the admin page, the
annotator's session and export) must give exactly that.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from audit_app.admin import data
from audit_app.session import AnnotatorSession, load_packet
from audit_chain.campaign_io import load_packet_info, load_streams
from campaign import journal
from packet_builder import history
from services.responses import session_export
from tests.app_fixture import Fixture, build

OLD = "0" * 64  # the hash of an earlier build of the same packet name


def _line(fx: Fixture, item: str, page: str | None, sha: str | None, who: str) -> dict[str, Any]:
    """A complete answer: C1 yes on `page` (quoted), C2 no; `page=None` answers C1 no."""
    c1: dict[str, Any] = {"answer": "no", "pages": [], "quotes": {}}
    if page is not None:
        c1 = {"answer": "yes", "pages": [page], "quotes": {page: fx.quotes[page]}}
    line: dict[str, Any] = {
        "annotator": who,
        "packet_id": fx.packet_id,
        "item_id": item,
        "conditions": {"C1": c1, "C2": {"answer": "no", "pages": [], "quotes": {}}},
        "unclear": False,
        "comment": "",
        "complete": True,
    }
    if sha is not None:
        line["packet_sha256"] = sha
    return line


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    fx = build(tmp_path_factory.mktemp("readers") / "proj", items=4, conditions=2)
    sha = load_packet(fx.project.packet_path(fx.packet_id)).sha256
    jdir = fx.project.journal_dir(fx.packet_id)
    a = journal.journal_path(jdir, "a")
    for line in (
        _line(fx, "J001", "J001-C1-A", sha, "a"),  # seq 1: counts (J001's latest of this version)
        _line(fx, "J001", "J001-C1-B", OLD, "a"),  # seq 2: later, but another version
        _line(fx, "J002", "J002-C1-B", sha, "a"),  # seq 3: counts
        _line(fx, "J002", None, None, "a"),  # seq 4: no hash: not of the current version
        _line(fx, "J003", "J003-C1-A", None, "a"),  # seq 5: no hash, J003's only line
        _line(fx, "J004", "J004-C1-C", OLD, "a"),  # seq 6: another version, J004's only line
        _line(fx, "J004", "J004-C1-A", sha, "b"),  # seq 7: names another annotator
        {**_line(fx, "J002", None, sha, "a"), "item_id": "J999"},  # seq 8: unknown item
        _line(fx, "J002", "J002-C1-C", sha, "a"),  # seq 9: counts, replaces seq 3
    ):
        journal.append(a, line)
    with a.open("ab") as fh:  # a crash in the middle of the next save
        fh.write(b'{"seq": 10, "item_id": "J003", "packet_sha')
    journal.append(journal.journal_path(jdir, "b"), _line(fx, "J003", "J003-C1-B", sha, "b"))
    # the partial line stayed isolated: b's journal is a separate file, a's ends unterminated
    assert not a.read_bytes().endswith(b"\n")
    return fx


# What the rule says, by hand: annotator -> item -> C1's selected page (None: answered no).
EXPECTED = {"a": {"J001": "J001-C1-A", "J002": "J002-C1-C"}, "b": {"J003": "J003-C1-B"}}
# Page numbers of those page keys in the admin key (app_fixture: C1 pages A, B, C = 11, 12, 13).
PAGE_NO = {"A": 11, "B": 12, "C": 13}
PROBLEMS_A = {"unparsable_lines": 1, "other_packet_lines": 5, "unknown_items": 1}


def _c1(line: dict[str, Any]) -> str | None:
    pages = line["conditions"]["C1"]["pages"]
    return pages[0] if pages else None


def test_read_stream_applies_the_rule(fx: Fixture) -> None:
    packet = load_packet(fx.project.packet_path(fx.packet_id))
    reads = journal.read_streams(
        fx.project.journal_dir(fx.packet_id), packet.sha256, packet.item_ids
    )
    assert {n: {i: _c1(ln) for i, ln in r.latest.items()} for n, r in reads.items()} == EXPECTED
    assert reads["a"].problems() == PROBLEMS_A
    assert [ln["seq"] for ln in reads["a"].lines] == [1, 3, 9]  # counted lines, seq order
    assert reads["b"].problems() == {
        "unparsable_lines": 0,
        "other_packet_lines": 0,
        "unknown_items": 0,
    }


def test_agreement_and_integrity_streams(fx: Fixture) -> None:
    streams = load_streams(fx.project, load_packet_info(fx.project, fx.packet_id))
    got = {
        name: {i: (r.conditions["C1"].pages or (None,))[0] for i, r in items.items()}
        for name, items in streams.all_responses.items()
    }
    assert got == EXPECTED
    assert streams.read_problems["a"] == PROBLEMS_A


def test_pool_building_selected_pages(fx: Fixture) -> None:
    table = history.selected_pages(fx.project, [fx.packet_id])
    key = json.loads(fx.project.key_path(fx.packet_id).read_text())
    expected: dict[tuple[str, str, str], dict[int, float]] = {}
    for items in EXPECTED.values():
        for item, page in items.items():
            kit = key["items"][item]
            ident = (kit["query_id"], kit["doc_id"], kit["conditions"]["C1"]["condition_id"])
            expected.setdefault(ident, {})[PAGE_NO[page[-1]]] = 1.0
    assert table == expected


def test_admin_page_progress_and_timeline(fx: Fixture) -> None:
    progress = data.progress_table(fx.project).set_index("annotator")
    assert progress.loc["a", "started"] == 2 and progress.loc["a", "complete"] == 2
    assert progress.loc["b", "started"] == 1
    timeline = data.progress_timeline(fx.project, fx.packet_id)
    assert timeline[timeline.annotator == "a"]["complete"].tolist() == [1, 2, 2]
    assert data.answered_streams(fx.project, fx.packet_id) == ["a", "b"]


def test_annotator_session_and_export(fx: Fixture) -> None:
    p = fx.project
    for name, items in EXPECTED.items():
        session = AnnotatorSession.open(p.packets_dir, p.journals_dir, fx.packet_id, name)
        restored = session.restore()
        got = {i: (s.answer("C1").pages or (None,))[0] for i, s in restored.items()}
        assert got == items
        assert session.states() == restored  # the cached view says the same
        exported = session_export(session)["items"]
        assert {i: _c1(body) for i, body in exported.items()} == items
    a = AnnotatorSession.open(p.packets_dir, p.journals_dir, fx.packet_id, "a")
    a.restore()
    assert a.stale_lines == PROBLEMS_A["other_packet_lines"]
