"""One test per branch of the evidence-asymmetric repair policy, through `repair plan`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from evaudit.cli import cli
from policies.repair import pairs_sha256
from tests.audit_fixture import Pair, new_project, write_journal, write_packet


def run(*args: str) -> dict[str, Any]:
    res = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


# Each pair: (n, benchmark grade, A's pages per condition, E's pages per condition).
# Page keys are given by letter: "A" -> J00i-Ck-A. Physical pages of Ck are 10k+1..10k+3,
# except where a pool is overridden to make two conditions show the same page.
CASES: dict[str, tuple[Pair, dict[str, list[str]], dict[str, list[str]]]] = {
    "accept": (Pair("q1", "d1", 2, 1), {"C1": ["A"], "C2": ["A"]}, {"C1": ["B"], "C2": ["A", "B"]}),
    "same_page": (
        Pair("q2", "d2", 2, 1, pools={"C1": [5, 6], "C2": [5, 7]}),
        {"C1": ["A"], "C2": ["A"]},  # both conditions only on physical page 5
        {"C1": ["A"], "C2": ["A"]},
    ),
    "split": (Pair("q3", "d3", 3, 1), {"C1": ["A"], "C2": ["A"]}, {"C1": ["A"]}),
    "decrease": (Pair("q4", "d4", 3, 3), {"C1": ["A"]}, {"C1": ["B"]}),
    "keep": (Pair("q5", "d5", 2, 2), {"C1": ["A"], "C2": ["A"]}, {"C1": ["A"], "C2": ["C"]}),
}


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    pairs = [c[0] for c in CASES.values()]
    project = new_project(tmp_path / "p", pairs)
    sha, items = write_packet(project, "init", "initial", pairs)
    ids = {}
    for rater, idx in (("A", 1), ("E", 2)):
        answers = {}
        for it, (name, case) in zip(items, CASES.items(), strict=True):
            ids[name] = it["item_id"]
            answers[it["item_id"]] = {
                ck: [f"{it['item_id']}-{ck}-{x}" for x in pages] for ck, pages in case[idx].items()
            }
        write_journal(project, "init", sha, rater, answers, items)  # type: ignore[arg-type]
    return project.root, ids


def test_each_policy_branch(tmp_path: Path) -> None:
    root, ids = _project(tmp_path)
    queue_path = tmp_path / "queue.json"
    out = run("repair", "plan", str(root), "init", "--queue-out", str(queue_path))
    by = {d["item_id"]: d for d in out["decisions"]}
    # accepted increase: equal grades above the benchmark with distinct pages
    acc = by[ids["accept"]]
    assert (acc["action"], acc["new_grade"], acc["grades"]) == (
        "accept_increase",
        2,
        {"A": 2, "E": 2},
    )
    # both support both conditions, but only on one shared page: grades stay 1, no increase
    sp = by[ids["same_page"]]
    assert (sp["action"], sp["grades"]) == ("unchanged", {"A": 1, "E": 1})
    # grade split -> queued; C2 split and C3 both-negative unresolved, C1 locked
    s = by[ids["split"]]
    assert s["action"] == "split"
    assert s["unresolved"] == ["q3-c2", "q3-c3"] and s["locked"] == ["q3-c1"]
    # consensus decrease -> queued, never accepted
    d = by[ids["decrease"]]
    assert d["action"] == "decrease" and d["grades"] == {"A": 1, "E": 1}
    assert d["locked"] == ["q4-c1"] and d["unresolved"] == ["q4-c2", "q4-c3"]
    assert by[ids["keep"]]["action"] == "unchanged"
    assert out["accepted_increases"] == 1 and out["queued_pairs"] == 2
    assert out["unresolved_conditions"] == {"split": 1, "both_negative": 3, "total": 4}
    assert out["locked_conditions"] == 2
    queue = json.loads(queue_path.read_text())
    split = {
        "query_id": "q3",
        "doc_id": "d3",
        "reason": "split",
        "unresolved": ["q3-c2", "q3-c3"],
        "locked": ["q3-c1"],
        "page_adjudication": [],
    }
    decrease = {
        "query_id": "q4",
        "doc_id": "d4",
        "reason": "decrease",
        "unresolved": ["q4-c2", "q4-c3"],
        "locked": ["q4-c1"],
        "page_adjudication": [],
    }
    pairs = [split, decrease] if ids["split"] < ids["decrease"] else [decrease, split]
    assert {k: v for k, v in queue.items() if k != "plan"} == {
        "format": "evaudit-adjudication-queue",
        "version": 2,
        "source_packet": "init",
        "pairs": pairs,
    }
    assert queue["plan"]["raters"] == ["A", "E"]
    assert queue["plan"]["pairs_sha256"] == pairs_sha256(pairs)


def test_invalid_quote_is_not_support(tmp_path: Path) -> None:
    """A yes whose quote is not on the page supports nothing (and integrity counts it)."""
    pair = Pair("q1", "d1", 2, 1)
    project = new_project(tmp_path / "p", [pair])
    sha, items = write_packet(project, "init", "initial", [pair])
    good = {"J001": {"C1": ["J001-C1-A"], "C2": ["J001-C2-A"]}}
    write_journal(project, "init", sha, "A", good, items)  # type: ignore[arg-type]
    # E cites a page key outside the condition's pool
    bad = {"J001": {"C1": ["J001-C1-A"], "C2": ["J001-C1-B"]}}
    write_journal(project, "init", sha, "E", bad, items)  # type: ignore[arg-type]
    out = run("repair", "plan", str(project.root), "init")
    assert out["decisions"][0]["grades"] == {"A": 2, "E": 1} and out["split_pairs"] == 1
    res = CliRunner().invoke(cli, ["integrity", str(project.root), "init", "--json"])
    integ = json.loads(res.output)
    assert integ["streams"]["E"]["page_pool_errors"] == 1 and not integ["ok"]
    assert res.exit_code == 1  # a report whose own `ok` is false exits non-zero


def test_repair_plan_needs_two_raters(tmp_path: Path) -> None:
    pair = Pair("q1", "d1", 2, 1)
    project = new_project(tmp_path / "p", [pair])
    sha, items = write_packet(project, "init", "initial", [pair])
    picks = {"A": {"C1": ["J001-C1-A"]}, "B": {"C1": ["J001-C1-B"]}, "C": {"C2": ["J001-C2-A"]}}
    for r, ans in picks.items():
        write_journal(project, "init", sha, r, {"J001": ans}, items)  # type: ignore[dict-item]
    res = CliRunner().invoke(cli, ["repair", "plan", str(project.root), "init", "--json"])
    assert res.exit_code != 0 and "needs exactly 2 raters, found 3 (A, B, C)" in res.output
    assert f"`evaudit raters {project.root} init A,B`" in res.output
    res = CliRunner().invoke(cli, ["repair", "plan", str(project.root), "init", "--raters", "A,Z"])
    assert res.exit_code != 0 and "no journal for rater(s) Z" in res.output
    res = CliRunner().invoke(cli, ["repair", "plan", str(project.root), "nope"])
    assert res.exit_code != 0 and "unknown packet 'nope'" in res.output
    assert "Traceback" not in res.output
