"""`annotator list` shows every response stream, simulated ones marked as such."""

from __future__ import annotations

import json
from pathlib import Path

from campaign.simulated import simulated_path
from tests.audit_fixture import Pair, new_project, write_journal, write_packet
from tests.conftest import cli_json, run_cli


def test_simulated_streams_listed_and_marked(tmp_path: Path) -> None:
    pairs = [Pair("q1", "d1", 2, 1), Pair("q2", "d2", 1, 1)]
    project = new_project(tmp_path / "p", pairs)
    sha, items = write_packet(project, "init", "initial", pairs)
    root = project.root
    cli_json("annotator", "add", root, "carol", "--packet", "init")
    before = cli_json("annotator", "list", root)["annotators"]
    assert [p["name"] for p in before] == ["carol"] and before[0]["account"] is True
    cli_json("responses", "simulate", root, "init", "--annotators", "A,E")
    write_journal(project, "init", sha, "F", {"J001": {}}, items)  # imported, no account
    listed = {p["name"]: p for p in cli_json("annotator", "list", root)["annotators"]}
    assert sorted(listed) == ["A", "E", "F", "carol"]
    for name in ("A", "E"):
        assert listed[name]["simulated"] == ["init"] and listed[name]["streams"] == ["init"]
        assert listed[name]["account"] is False and listed[name]["role"] == ""
    assert listed["F"]["simulated"] == [] and listed["F"]["streams"] == ["init"]
    assert listed["carol"]["streams"] == [] and listed["carol"]["packets"] == ["init"]
    text = run_cli("annotator", "list", root).stdout
    row = next(ln for ln in text.splitlines() if ln.startswith("A "))
    assert "(no account)" in row and row.rstrip().endswith("simulated: init")
    assert "simulated" not in next(ln for ln in text.splitlines() if ln.startswith("F "))
    # the record is the project's; a corrupt one is a one-line error naming the file
    assert json.loads(simulated_path(project).read_text())["streams"] == {"init": ["A", "E"]}
    simulated_path(project).write_text("{broken")
    res = run_cli("annotator", "list", root, expect=2)
    assert res.stderr.startswith(f"error: {simulated_path(project)}:1: corrupt JSON")
