"""Corrections by audit stratum per stage: the stratified sample's table apart from the
targeted challenge, whose targets and controls are counted apart ("Do Current Retrievers
Cover All the Evidence?" (supplement), "Evidence Audit and Adjudication": the table
"Corrections by audit stratum" and "Targeted Residual-Qrel Challenge")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from evaudit.cli import cli
from tests.audit_fixture import Pair, new_project, write_journal, write_packet


def run(*args: str, as_json: bool = True) -> Any:
    res = CliRunner().invoke(cli, [*args, *(["--json"] if as_json else [])])
    assert res.exit_code == 0, res.output
    return json.loads(res.output) if as_json else res.output


def _answers(
    pairs: list[Pair], yes_c2: set[str], page: str
) -> dict[str, dict[str, list[str] | None]]:
    """C1 yes everywhere; C2 yes for the pairs whose doc is in `yes_c2`. Raters cite
    different pages (`page`), so their streams are not duplicates."""
    out: dict[str, dict[str, list[str] | None]] = {}
    for i, p in enumerate(pairs, start=1):
        iid = f"J{i:03d}"
        out[iid] = {
            "C1": [f"{iid}-C1-{page}"],
            "C2": [f"{iid}-C2-{page}"] if p.doc_id in yes_c2 else [],
        }
    return out


def test_stratified_sample_and_challenge_apart(tmp_path: Path) -> None:
    ss, cp = "SourceShift", "CrossPage"
    initial = [
        Pair("q1", "d1", 2, 1, ss, "arXiv"),  # both raters: gold -> 1->2 (corrected)
        Pair("q2", "d2", 2, 2, cp, "World Bank"),  # gold stays gold
        Pair("q3", "d3", 2, 1, ss, "ERIC"),  # stays partial
    ]
    challenge = [
        Pair("q3", "d3", 2, 1, ss, "ERIC", status="target"),  # 1->2 in the challenge
        Pair("q4", "d5", 2, 1, ss, "arXiv", status="target"),  # stays 1
        Pair("q1", "d1", 2, 2, ss, "arXiv", status="control"),  # 2 stays 2
        Pair("q1", "d8", 2, 1, ss, "arXiv", status="control"),  # 1 stays 1
    ]
    project = new_project(tmp_path / "p", initial + challenge[1:2] + challenge[3:])
    sha, items = write_packet(project, "init", "initial", initial)
    for rater, page in (("A", "A"), ("E", "B")):
        write_journal(project, "init", sha, rater, _answers(initial, {"d1", "d2"}, page), items)  # type: ignore[arg-type]
    csha, citems = write_packet(project, "ch", "challenge", challenge)
    for rater, page in (("S1", "A"), ("S2", "C")):
        answers = _answers(challenge, {"d3", "d1"}, page)
        write_journal(project, "ch", csha, rater, answers, citems)  # type: ignore[arg-type]
    root = str(project.root)
    fin = run("finalize", root, "--out", str(tmp_path / "o"))
    assert fin["transitions"] == {"1->2": 2}
    # By hand: the audit stage reviewed 3 sampled pairs, one per stratum, and corrected
    # q1/d1 only; q3/d3's correction belongs to the challenge, not to the ERIC stratum.
    assert fin["corrections_by_stratum"] == [
        {"release": cp, "source": "World Bank", "sampled": 1, "corrected": 0},
        {"release": ss, "source": "ERIC", "sampled": 1, "corrected": 0},
        {"release": ss, "source": "arXiv", "sampled": 1, "corrected": 1},
    ]
    rows = [
        (r["stage"], r["set"], r["release"], r["source"], r["reviewed"], r["corrected"])
        for r in fin["corrections_by_stage"]
    ]
    assert rows == [
        ("audit:init", "sampled", cp, "World Bank", 1, 0),
        ("audit:init", "sampled", ss, "ERIC", 1, 0),
        ("audit:init", "sampled", ss, "arXiv", 1, 1),
        ("audit:init", "sampled", "All", "", 3, 1),
        ("challenge:ch", "target", ss, "ERIC", 1, 1),
        ("challenge:ch", "target", ss, "arXiv", 1, 0),
        ("challenge:ch", "target", "All", "", 2, 1),
        ("challenge:ch", "control", ss, "arXiv", 2, 0),
    ]
    by_stage = {s["stage"]: s["corrections_by_stratum"] for s in fin["stages"]}
    assert sum(r["reviewed"] for r in by_stage["challenge:ch"]) == 4
    text = run("finalize", root, "--out", str(tmp_path / "o2"), as_json=False)
    assert "corrections by audit stratum, per stage" in text
    line = next(ln for ln in text.splitlines() if "challenge:ch" in ln and "control" in ln)
    assert line.split()[-2:] == ["2", "0"]
