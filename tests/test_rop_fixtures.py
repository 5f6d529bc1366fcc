"""Every ROP fixture in examples/rop gives the verdicts and status recorded in expected.json."""

from __future__ import annotations

import json
import runpy
import subprocess
from pathlib import Path

import pytest

from formats.rop_files import evaluate_declaration_file, read_declaration_bundle
from scorers.rop import (
    EXIT_CODES,
    RECORD_VERDICTS,
    RUN_STATUSES,
    evaluate,
    evaluate_reference,
    validate,
)
from tests.conftest import REPO, run_cli

EXAMPLES = REPO / "examples" / "rop"
EXPECTED: dict[str, dict] = json.loads((EXAMPLES / "expected.json").read_text())
KEYS = (
    "run_status",
    "record_verdicts",
    "missing_record_ids",
    "duplicate_record_ids",
    "unexpected_record_ids",
    "malformed_record_ids",
    "pass_fraction",
    "evaluable_records",
)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_gives_declared_result(name: str) -> None:
    got = evaluate_declaration_file(EXAMPLES / name / "declaration.json").to_json()
    # big=0: the records file is hashed in a thread while the declaration is validated
    b = read_declaration_bundle(EXAMPLES / name / "declaration.json")
    assert evaluate(b.data, b.files, b.name, big=0).to_json() == got
    want = EXPECTED[name]
    for key in KEYS:
        expected = pytest.approx(want[key]) if key == "pass_fraction" else want[key]
        assert got[key] == expected, (name, key, got[key], want[key])
    # the histogram counts observed rows plus MISSING and always lists every bucket in order
    assert list(got["histogram"]) == [*RECORD_VERDICTS, "MISSING"]
    assert got["histogram"]["MISSING"] == len(want["missing_record_ids"])
    assert got["evaluable_records"] == got["histogram"]["PASS"] + got["histogram"]["FAIL"]
    assert (got["run_status"] == "RUN_INVALID") == bool(
        got["problems"]
        or got["duplicate_record_ids"]
        or got["unexpected_record_ids"]
        or got["malformed_record_ids"]
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cli_exit_code_and_json(name: str) -> None:
    want = EXPECTED[name]
    result = run_cli(
        "rop",
        "evaluate",
        EXAMPLES / name / "declaration.json",
        "--json",
        expect=EXIT_CODES[want["run_status"]],
    )
    got = json.loads(result.stdout)
    assert got["run_status"] == want["run_status"]
    assert got["record_verdicts"] == want["record_verdicts"]


def test_fixtures_cover_every_verdict_and_status() -> None:
    verdicts = {v for e in EXPECTED.values() for v in e["record_verdicts"].values()}
    statuses = {e["run_status"] for e in EXPECTED.values()}
    assert verdicts == set(RECORD_VERDICTS)
    assert statuses == set(RUN_STATUSES)


def test_table2_population_accounting() -> None:
    """Table 2 of "Does the Selected Object Reach the Reader?": identical pass fraction 1.0, different run status."""
    rows = []
    for name in ("hard-fixture", "hard-fixture-one-missing"):
        r = evaluate_declaration_file(EXAMPLES / name / "declaration.json")
        rows.append(
            (
                r.expected_records,
                r.observed_records,
                r.histogram["PASS"],
                r.pass_fraction,
                r.run_status,
            )
        )
    assert rows == [(2, 2, 2, 1.0, "RUN_PASS"), (2, 1, 1, 1.0, "RUN_UNVERIFIABLE")]


def test_seed_hard_fixture_shape() -> None:
    """App. B.1: fixture-ranker-api/v1, selector.selected_key, object_id, first three, any."""
    decl = json.loads((EXAMPLES / "hard-fixture" / "declaration.json").read_text())
    assert decl["interface"] == {"name": "fixture-ranker-api", "version": "v1"}
    assert decl["mode"] == "hard"
    assert decl["selection"] == {"field": "selector.selected_key"}
    assert decl["output"] == {
        "list_field": "ranking",
        "id_field": "object_id",
        "cutoff": 3,
        "membership": "any",
    }
    assert decl["population"]["ids"] == ["run_alpha", "run_beta"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reference_loop_agrees_on_valid_hard_fixtures(name: str) -> None:
    b = read_declaration_bundle(EXAMPLES / name / "declaration.json")
    check = validate(b.data, b.files, b.name)
    if check.declaration is None or check.declaration.mode != "hard":
        pytest.skip("reference loop covers valid hard-mode declarations")
    assert check.records is not None
    ref = evaluate_reference(check.declaration, check.records).to_json()
    got = evaluate_declaration_file(EXAMPLES / name / "declaration.json").to_json()
    for key in (*KEYS, "histogram", "observed_records"):
        assert ref[key] == got[key], key


def test_committed_fixtures_match_generator(tmp_path: Path) -> None:
    module = runpy.run_path(str(EXAMPLES / "make_fixtures.py"))
    module["main"](tmp_path)
    for path in sorted(tmp_path.rglob("*")):
        if path.is_file():
            rel = path.relative_to(tmp_path)
            assert (EXAMPLES / rel).read_bytes() == path.read_bytes(), rel


def test_exit_codes_through_the_console_script() -> None:
    exe = REPO / ".venv" / "bin" / "evaudit"
    for name, code in (("fail-outside-cutoff", 1), ("selector-error", 2)):
        proc = subprocess.run(
            [str(exe), "rop", "evaluate", str(EXAMPLES / name / "declaration.json"), "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == code, (name, proc.stderr)
        assert json.loads(proc.stdout)["run_status"] == EXPECTED[name]["run_status"]
