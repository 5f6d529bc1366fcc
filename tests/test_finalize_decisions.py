"""Adjudication decisions, overrides, the distinct-page gate, duplicate streams, tie-breaks, finalize."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from evaudit.cli import cli
from tests.audit_fixture import Pair, new_project, page_text, write_journal, write_packet


def run(*args: str) -> dict[str, Any]:
    res = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def fail(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args))
    assert res.exit_code != 0, res.output
    assert "Traceback" not in res.output
    return res.output


def _campaign(tmp_path: Path, adjudicated: bool = True) -> tuple[Path, dict[str, Any]]:
    """Two pairs both split in the initial audit, then (if `adjudicated`) a 3-stream
    adjudication.

    q1/d1 (n=2, grade 1): C1 locked on physical page 11 only; C2 adjudicated and every
    yes-voter cites only page 11 too -> J061's case, stays partial.
    q2/d2 (n=2, grade 2, the query's only gold): C2 majority-negative -> 2->1 and the query
    loses its gold; an override can flip it back.
    """
    p1 = Pair("q1", "d1", 2, 1, "SourceShift", "arXiv")
    p2 = Pair("q2", "d2", 2, 2, "CrossPage", "World Bank")
    project = new_project(tmp_path / "p", [p1, p2], [("q1", "gold-doc", 2)])
    sha, items = write_packet(project, "init", "initial", [p1, p2])
    a = {"J001": {"C1": ["J001-C1-A"], "C2": ["J001-C2-A"]}, "J002": {"C1": ["J002-C1-A"]}}
    e = {"J001": {"C1": ["J001-C1-A"]}, "J002": {"C1": ["J002-C1-A"], "C2": ["J002-C2-A"]}}
    write_journal(project, "init", sha, "A", a, items)  # type: ignore[arg-type]
    write_journal(project, "init", sha, "E", e, items)  # type: ignore[arg-type]
    plan = run("repair", "plan", str(project.root), "init", "--queue-out", str(tmp_path / "q.json"))
    assert plan["split_pairs"] == 2
    if not adjudicated:
        return project.root, {"items": []}
    a1 = Pair("q1", "d1", 2, 1, "SourceShift", "arXiv", pools={"C2": [11, 201, 202]})
    a2 = Pair("q2", "d2", 2, 2, "CrossPage", "World Bank", pools={"C2": [301, 302, 303]})
    asha, aitems = write_packet(project, "adj", "adjudication", [a1, a2], [["C2"], ["C2"]])
    votes = {
        "A": {"J001": {"C2": ["J001-C2-A"]}, "J002": {}},
        "E": {"J001": {"C2": ["J001-C2-A"]}, "J002": {"C2": ["J002-C2-B"]}},
        "F": {"J001": {}, "J002": {}},
    }
    for r, ans in votes.items():
        write_journal(project, "adj", asha, r, ans, aitems)  # type: ignore[arg-type]
    return project.root, {"items": aitems}


def test_gate_keeps_majority_gold_partial(tmp_path: Path) -> None:
    root, _ = _campaign(tmp_path)
    out = run("adjudicate", str(root), "adj")
    pairs = {p["query_id"]: p for p in out["pairs"]}
    assert pairs["q1"]["new_grade"] == 1 and pairs["q1"]["gate_blocked"]
    assert out["gate_blocked"] == ["J001"]
    assert pairs["q2"]["new_grade"] == 1  # majority no on C2: 2 -> 1
    assert out["unanimous"] == 0 and len(out["non_unanimous"]) == 2


def test_override_flips_majority_and_never_votes(tmp_path: Path) -> None:
    root, _ = _campaign(tmp_path)
    before = run("agreement", "audit", str(root), "adj")
    text = page_text("d2", 303)
    run(
        "override",
        str(root),
        "adj",
        "J002",
        "C2",
        "--answer",
        "yes",
        "--reason",
        "displayed page has a Conclusions heading",
        "--page",
        "J002-C2-C",
        "--quote",
        text,
    )
    out = run("adjudicate", str(root), "adj")
    ov = out["overrides"]
    assert len(ov) == 1 and ov[0]["departs_from_majority"] and ov[0]["final"] == "yes"
    assert ov[0]["votes"] == {"A": "no", "E": "yes", "F": "no"}  # votes untouched
    assert {p["query_id"]: p["new_grade"] for p in out["pairs"]}["q2"] == 2
    after = run("agreement", "audit", str(root), "adj")
    assert after["fleiss_kappa"] == before["fleiss_kappa"]  # never in kappa
    assert after["unanimous"] == before["unanimous"]
    line = json.loads((root / "decisions" / "overrides.jsonl").read_text().splitlines()[0])
    assert set(line) == {
        "ts",
        "packet_id",
        "item_id",
        "condition_key",
        "answer",
        "reason",
        "pages",
        "quotes",
    }


def test_override_rejects_bad_evidence(tmp_path: Path) -> None:
    root, _ = _campaign(tmp_path)
    msg = fail(
        "override",
        str(root),
        "adj",
        "J002",
        "C2",
        "--answer",
        "yes",
        "--reason",
        "x",
        "--page",
        "J002-C2-A",
        "--quote",
        "this sentence is not on that page",
    )
    assert "the --quote for --page J002-C2-A is not on that page" in msg
    msg = fail("override", str(root), "adj", "J002", "C2", "--answer", "yes", "--reason", "x")
    assert "a 'yes' needs at least one --page KEY" in msg
    # the issue's case: a "no" with a page and no quote is a "no" that takes no page
    msg = fail(
        "override", str(root), "adj", "J002", "C2", "--answer", "no", "--reason", "x",
        "--page", "J002-C2-A",
    )  # fmt: skip
    assert "a 'no' takes no --page" in msg and "--quote per --page" not in msg
    assert "page selection" not in msg  # the browser's wording, not the command line's
    msg = fail(
        "override", str(root), "adj", "J002", "C2", "--answer", "yes", "--reason", "x",
        "--page", "J002-C2-A", "--page", "J002-C2-B", "--quote", "one quote only here",
    )  # fmt: skip
    assert "give one --quote per --page" in msg and "(2 --page, 1 --quote)" in msg
    msg = fail("override", str(root), "adj", "J009", "C2", "--answer", "no", "--reason", "x")
    assert "no item J009" in msg
    msg = fail("override", str(root), "adj", "J002", "C1", "--answer", "no", "--reason", "x")
    assert "shows no condition C1" in msg and "shown: C2" in msg
    assert not (root / "decisions" / "overrides.jsonl").exists()


def test_finalize_transitions_removal_and_rerun(tmp_path: Path) -> None:
    root, _ = _campaign(tmp_path)
    out = run("finalize", str(root), "--out", str(tmp_path / "o1"))
    assert out["transitions"] == {"2->1": 1}
    assert out["transition_detail"]["2->1"]["left_gold"] == 1
    assert [r["query_id"] for r in out["removed_queries"]] == ["q2"]
    qrels = (tmp_path / "o1" / "qrels.txt").read_text()
    assert qrels == "q1 0 d1 1\nq1 0 gold-doc 2\n"
    manifest = json.loads((tmp_path / "o1" / "manifest.json").read_text())
    assert manifest["changes"] == [
        {
            "query_id": "q2",
            "doc_id": "d2",
            "old_grade": 2,
            "new_grade": 1,
            "path": "audit:init:split/adjudication:majority",
        }
    ]
    assert (
        "journals/adj/F.jsonl" in manifest["inputs"] and "store:queries+qrels" in manifest["inputs"]
    )
    import hashlib

    for name, digest in manifest["outputs"].items():
        assert hashlib.sha256((tmp_path / "o1" / name).read_bytes()).hexdigest() == digest
    out2 = run("finalize", str(root), "--out", str(tmp_path / "o2"))
    assert out2["outputs"] == out["outputs"]
    for name in ("qrels.txt", "qrels.jsonl", "report.json", "manifest.json"):
        assert (tmp_path / "o1" / name).read_bytes() == (tmp_path / "o2" / name).read_bytes()


def test_finalize_refuses_pending_pairs(tmp_path: Path) -> None:
    root, _ = _campaign(tmp_path, adjudicated=False)  # the queue exists, no packet for it yet
    msg = fail("finalize", str(root), "--out", str(tmp_path / "o"))
    assert "2 queued pair(s) have no adjudication decision" in msg
    assert not (tmp_path / "o").exists()
    out = run("finalize", str(root), "--out", str(tmp_path / "o"), "--allow-pending")
    assert out["changed"] == 0 and len(out["pending"]) == 2


def test_duplicate_streams_collapse_and_tiebreak(tmp_path: Path) -> None:
    """Challenge packet: a journal copied under another name (the same file, its lines
    naming S1) is one stream counted twice and collapses; the remaining disagreement is
    decided by the tie-break stream, which answers only it."""
    p = Pair("q1", "d1", 2, 1)
    project = new_project(tmp_path / "p", [p], [("q1", "g", 2)])
    sha, items = write_packet(project, "ch", "challenge", [p])
    first = {"J001": {"C1": ["J001-C1-A"], "C2": ["J001-C2-B"]}}
    write_journal(project, "ch", sha, "S1", first, items)  # type: ignore[arg-type]
    jdir = project.journal_dir("ch")
    (jdir / "S1copy.jsonl").write_bytes((jdir / "S1.jsonl").read_bytes())
    write_journal(project, "ch", sha, "S2", {"J001": {"C1": ["J001-C1-A"]}}, items)  # type: ignore[arg-type]
    # the tie-break answers only C2 (C1 left unanswered)
    write_journal(project, "ch", sha, "T", {"J001": {"C1": None, "C2": ["J001-C2-C"]}}, items)  # type: ignore[dict-item]
    root = str(project.root)
    integ = run("integrity", root, "ch")
    assert integ["duplicate_streams"] == [["S1", "S1copy"]]
    assert integ["streams_after_collapse"] == ["S1", "S2", "T"]
    out = run("adjudicate", root, "ch", "--tiebreak", "T")
    assert out["voters"] == ["S1", "S2"] and out["duplicate_streams"] == [["S1", "S1copy"]]
    assert out["tiebreak_decided"] == 1 and out["tiebreak_agrees_with"] == {"S1": 1}
    assert out["pairs"][0]["new_grade"] == 2
    # without a tie-break the 1-1 split is undecided and finalize refuses
    untied = run("adjudicate", root, "ch", "--raters", "S1,S2")
    assert len(untied["undecided"]) == 1 and untied["pairs"][0]["new_grade"] is None
    fin = run("finalize", root, "--out", str(tmp_path / "o"), "--tiebreak", "T")
    assert fin["transitions"] == {"1->2": 1}
    assert fin["stages"][0]["stage"] == "challenge:ch"
