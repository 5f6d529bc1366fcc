"""Declaration checks: shipped schema, every cross-file problem, hash formulas, rules."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scorers.rop import binding_hash, population_sha256, validate
from scorers.rop import resolver as resolver_module
from scorers.rop.resolver import parse_resolver
from tests.conftest import REPO, run_cli
from tests.test_rop_helpers import bundle, run

EXAMPLES = REPO / "examples" / "rop"
RESOLVER = {"version": "v", "objects": {"A": ["a1", "a2"], "B": []}}


def test_schema_command_prints_a_valid_draft_2020_12_schema() -> None:
    schema = json.loads(run_cli("rop", "schema").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    decl = json.loads((EXAMPLES / "hard-fixture" / "declaration.json").read_text())
    jsonschema.validate(decl, schema)
    assert schema["properties"]["mode"]["enum"] == ["hard", "soft", "open"]


def test_hash_formulas_are_the_documented_ones() -> None:
    ids = ["run_beta", "run_alpha"]
    assert population_sha256(ids) == hashlib.sha256(b"run_alpha\nrun_beta\n").hexdigest()
    text = "rop-witness-v1\nd\nP\nr1\nw\n/wiki/X\nI"
    assert (
        binding_hash(
            declaration_id="d",
            population_sha256="P",
            record_id="r1",
            witness="w",
            decoded_selection="/wiki/X",
            inverse_map_sha256="I",
        )
        == hashlib.sha256(text.encode()).hexdigest()
    )


def test_validate_reports_every_problem_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    decl = json.loads((EXAMPLES / "hard-fixture" / "declaration.json").read_text())
    decl["population"]["count"] = 5
    decl["population"]["sha256"] = "f" * 64
    decl["output"]["cutoff"] = 0
    decl["records"]["path"] = "gone.jsonl"
    (folder / "declaration.json").write_text(json.dumps(decl))
    (folder / "resolver.json").write_text('{"version": "x", "objects": {"A": ["m"], "B": ["m"]}}')
    result = run_cli("rop", "validate", folder / "declaration.json", "--json", expect=3)
    problems = json.loads(result.stdout)["problems"]
    text = "\n".join(problems)
    for fragment in (
        "output.cutoff",
        "population.count",
        "population.sha256",
        "resolver.sha256",
        "already owned",
        "cannot read 'gone.jsonl'",
    ):
        assert fragment in text, fragment
    human = run_cli("rop", "validate", folder / "declaration.json", expect=3).stdout
    assert "invalid:" in human


def test_validate_ok_and_unreadable_declaration(tmp_path: Path) -> None:
    ok = run_cli("rop", "validate", EXAMPLES / "hard-fixture" / "declaration.json")
    assert ok.stdout.startswith("valid:")
    bad = tmp_path / "decl.json"
    bad.write_text("{not json")
    result = run_cli("rop", "evaluate", bad, "--json", expect=3)
    got = json.loads(result.stdout)
    assert (
        got["run_status"] == "RUN_INVALID" and "decl.json:1: malformed JSON" in got["problems"][0]
    )
    missing = run_cli("rop", "evaluate", tmp_path / "nope.json", expect=3)
    assert "nope.json: declaration file not found" in missing.stderr


def test_prompt_never_changes_the_mode() -> None:
    rows = [{"record_id": "r1", "sel": "A", "ranking": []}]
    data, files = bundle(rows, ["r1"], RESOLVER, mode="soft")
    decl = json.loads(data)
    decl["prompt"] = "mode=hard; evaluate as hard"
    result = validate(json.dumps(decl).encode(), files, "d.json")
    assert result.valid and result.mode == "soft"


def test_unknown_top_level_field_is_rejected_but_x_extensions_pass() -> None:
    data, files = bundle([], ["r1"], RESOLVER)
    decl = json.loads(data)
    decl["cutof"] = 3
    assert any("cutof" in p for p in validate(json.dumps(decl).encode(), files, "d").problems)
    decl.pop("cutof")
    decl["x-team"] = "search"
    assert validate(json.dumps(decl).encode(), files, "d").valid


@pytest.mark.parametrize(
    ("ranking", "cutoff", "membership", "verdict"),
    [
        (["a2"], 1, "any", "PASS"),  # member resolves to its object
        (["zz", "A"], 1, "any", "FAIL"),  # cutoff applies before the rule
        (["A", "A", "a1"], 2, "all", "FAIL"),  # duplicates use slots; a2 missing
        (["a1", "a1", "a2"], 3, "all", "PASS"),
        (["a1", "A"], 2, "all", "FAIL"),  # canonical id is not a member of A's set
        (["a1", 7], 1, "any", "UNVERIFIABLE"),  # malformed anywhere in the list
        ([], 3, "any", "FAIL"),  # an empty, well-formed list omits the target
    ],
)
def test_membership_rules(ranking: list, cutoff: int, membership: str, verdict: str) -> None:
    rows = [{"record_id": "r1", "sel": "A", "ranking": ranking}]
    output = {"list_field": "ranking", "id_field": None, "cutoff": cutoff, "membership": membership}
    assert run(rows, ["r1"], RESOLVER, output=output).record_verdicts == {"r1": verdict}


def test_object_without_members_is_its_own_member_under_all() -> None:
    rows = [{"record_id": "r1", "sel": "B", "ranking": ["B"]}]
    output = {"list_field": "ranking", "id_field": None, "cutoff": 1, "membership": "all"}
    assert run(rows, ["r1"], RESOLVER, output=output).run_status == "RUN_PASS"


RAW_IDS = st.sampled_from(["A", "B", "a1", "a2", "b1", ""])
OBJECTS = st.dictionaries(
    RAW_IDS,
    st.one_of(st.lists(st.one_of(RAW_IDS, st.integers(0, 2)), max_size=4), st.none()),
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(OBJECTS)
@example({"A": ["a1", "a2", "b1"], "B": ["B", "a2"]})  # a raw id under two objects
@example({"A": ["A", "a2", "a1"], "B": [], "a1x": ["b1", "B1"]})  # clean, several members
def test_resolver_fast_path_equals_the_checking_loop(objects: dict[str, Any]) -> None:
    # Whole-list operations read clean resolvers; the loop reads (and reports on) the rest.
    # Both must give the same maps in the same order, or the same problems.
    data = json.dumps({"version": "v", "objects": objects}).encode()
    fast = parse_resolver(data, "r.json")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(resolver_module, "_clean_objects", lambda objects: None)
        slow = parse_resolver(data, "r.json")
    assert fast[1] == slow[1]
    assert (fast[0] is None) == (slow[0] is None)
    if fast[0] is not None and slow[0] is not None:
        assert fast[0] == slow[0]
        assert list(fast[0].raw_to_canonical.items()) == list(slow[0].raw_to_canonical.items())
        assert list(fast[0].members.items()) == list(slow[0].members.items())
