"""The declaration envelope: interface, component, mode and policy revision equal to the
instruction sheet's ("Does the Selected Object Reach the Reader?", Appendix A)."""

from __future__ import annotations

import json

import pytest

from formats.rop_files import evaluate_declaration_file
from scorers.rop.envelope import envelope_problems, envelope_report
from tests.conftest import REPO, cli_json, run_cli

EXAMPLES = REPO / "examples" / "rop"
BROKEN = {
    "envelope-interface-differs": "envelope.interface:",
    "envelope-component-differs": "envelope.component: 'another-ranker' differs",
    "envelope-mode-differs": "envelope.mode: 'soft' differs from the instruction sheet's mode",
    "envelope-policy-revision-differs": "envelope.policy_revision: 'r2' differs",
    "envelope-sheet-without-component": "output.component None",
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_broken_envelope_invalidates_the_run(name: str) -> None:
    result = evaluate_declaration_file(EXAMPLES / name / "declaration.json")
    assert result.run_status == "RUN_INVALID"
    envelope_lines = [p for p in result.problems if "envelope." in p]
    assert len(envelope_lines) == 1 and BROKEN[name] in envelope_lines[0], result.problems
    out = json.loads(
        run_cli("rop", "envelope", EXAMPLES / name / "declaration.json", "--json", expect=3).stdout
    )
    assert out["envelope"] == "invalid"
    assert [c["status"] for c in out["checks"]].count("differs") == 1


def test_matching_envelope_passes_and_is_checked() -> None:
    path = EXAMPLES / "envelope" / "declaration.json"
    assert evaluate_declaration_file(path).run_status == "RUN_PASS"
    out = cli_json("rop", "envelope", path)
    assert out["envelope"] == "valid"
    assert {c["status"] for c in out["checks"]} == {"equal"}


def test_without_an_envelope_the_checks_are_not_applicable_never_passed() -> None:
    path = EXAMPLES / "hard-fixture" / "declaration.json"
    assert evaluate_declaration_file(path).run_status == "RUN_PASS"
    out = cli_json("rop", "envelope", path)
    assert out["envelope"] == "not_applicable" and out["present"] is False
    assert {c["status"] for c in out["checks"]} == {"not_applicable"}
    assert envelope_problems(json.loads(path.read_text()), "d") == []


def test_every_check_compares_its_own_field() -> None:
    sheet = {
        "interface": {"name": "a", "version": "1"},
        "mode": "hard",
        "policy": {"revision": "r1"},
        "output": {"component": "c"},
    }
    env = {
        "interface": {"name": "a", "version": "1"},
        "component": "c",
        "mode": "hard",
        "policy_revision": "r1",
    }
    assert envelope_report({**sheet, "envelope": env}).status == "valid"
    for key, value in (
        ("interface", {"name": "a", "version": "2"}),
        ("component", "d"),
        ("mode", "open"),
        ("policy_revision", "r9"),
    ):
        report = envelope_report({**sheet, "envelope": {**env, key: value}})
        assert [c.check for c in report.checks if c.status == "differs"] == [key]


def test_schema_rejects_an_incomplete_envelope(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = EXAMPLES / "envelope"
    for f in src.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    decl = json.loads((tmp_path / "declaration.json").read_text())
    del decl["envelope"]["policy_revision"]
    (tmp_path / "declaration.json").write_text(json.dumps(decl))
    result = evaluate_declaration_file(tmp_path / "declaration.json")
    assert result.run_status == "RUN_INVALID"
    assert any("'policy_revision' is a required property" in p for p in result.problems)
