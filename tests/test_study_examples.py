"""The worked examples of the ROP study commands and the orbit input checks: each script
writes the committed bytes, and every command runs on its example."""

from __future__ import annotations

import json
import runpy
import shutil
from pathlib import Path

from tests.conftest import REPO, cli_json, run_cli

STUDY = REPO / "examples" / "rop-study"
ORBIT = REPO / "examples" / "orbit"


def test_rop_study_examples_regenerate_identically(tmp_path: Path) -> None:
    module = runpy.run_path(str(STUDY / "make_examples.py"))
    module["main"](tmp_path)
    for path in sorted(tmp_path.iterdir()):
        assert (STUDY / path.name).read_bytes() == path.read_bytes(), path.name


def test_orbit_checks_example_regenerates_identically(tmp_path: Path) -> None:
    shutil.copy(ORBIT / "make_checks_example.py", tmp_path / "make_checks_example.py")
    runpy.run_path(str(tmp_path / "make_checks_example.py"), run_name="__main__")
    name = "orbit_checks_example.csv"
    assert (tmp_path / name).read_bytes() == (ORBIT / name).read_bytes()


def test_every_rop_study_command_runs_on_its_example() -> None:
    acc = cli_json(
        "rop",
        "accounting",
        "--records",
        STUDY / "records.jsonl",
        "--resolver",
        STUDY / "resolver.json",
        "--planned",
        STUDY / "planned.jsonl",
    )
    total = acc["table"][-1]
    assert total["model"] is None and total["planned"] == 120
    assert sum(total[c] for c in acc["columns"]) == total["planned"]
    misses = cli_json(
        "rop",
        "misses",
        "--records",
        STUDY / "records.jsonl",
        "--resolver",
        STUDY / "resolver.json",
        "--stack",
        "final",
        "--subset",
        "aligned",
        "--by",
        "model",
    )
    pooled = misses["partition"][-1]
    assert (
        pooled["absent_at_k"] == pooled["near_cutoff"] + pooled["nonmatch"] + pooled["unresolved"]
    )
    assert pooled["nonmatch"] >= 1 and pooled["near_cutoff"] >= 1
    assoc = cli_json(
        "rop",
        "association",
        STUDY / "reader.jsonl",
        "--pair",
        "id:question",
        "--passages",
        "5",
        "--bootstrap",
        "2000",
    )
    assert assoc["pairs"][0]["excluded_not_aligned"] > 0
    dele = cli_json("rop", "deletion", STUDY / "calls.jsonl", "--bootstrap", "2000")
    assert [c["contrast"] for c in dele["contrasts"]] == [
        "intact/trace_drop",
        "sham_drop/trace_drop",
        "intact/sham_drop",
    ]
    result = run_cli(
        "rop",
        "replay-check",
        "--runs",
        STUDY / "records.jsonl",
        "--reader",
        STUDY / "reader_records.jsonl",
        "--json",
        expect=1,
    )
    rejections = json.loads(result.stdout)["rejections"]
    assert [r["line"] for r in rejections] == [5, 10, 11]
    assert rejections[2]["fields"] == ["cutoff", "terminal_attempt"]


def test_orbit_check_commands_run_on_their_example() -> None:
    table = ORBIT / "orbit_checks_example.csv"
    diag = cli_json("orbit", "diagnostics", table)
    assert diag["invalidity_range"][0] == 0.0 and diag["invalidity_range"][1] > 0.5
    cov = cli_json("orbit", "coverage", table, "--required", "0.96")
    assert [d["meets_requirement"] for d in cov["datasets"]] == [True, False]
