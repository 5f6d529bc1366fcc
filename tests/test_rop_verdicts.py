"""Record verdicts of `evaluate` against the per-record reference loop, and the evaluator's
shape: the declaration is parsed once, the records are parsed once and only after
validation, and Table 11 lives in one place.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.rop import validate
from scorers.rop.membership import assign_verdicts
from scorers.rop.records import stdlib_records
from tests.conftest import REPO
from tests.test_rop_helpers import agrees_with_reference, bundle
from tests.test_rop_parser import POP, RESOLVER, mutated_file, near_miss_file

# Object "M" has many raw ids; object "L" has ids alike up to their last byte.
MANY = [f"m{i}" for i in range(11)]
LONG = ["long-object-id-0001", "long-object-id-0002", "long-obj-9"]
BIG_RESOLVER = {"version": "t2", "objects": {**RESOLVER["objects"], "M": MANY, "L": LONG}}
EVALUATE = sys.modules["scorers.rop.evaluate"]  # the module (the package exports the function)


def _output(cutoff: int) -> dict[str, Any]:
    return {"list_field": "out.ranking", "id_field": "oid", "cutoff": cutoff, "membership": "any"}


def _agree(records: bytes, cutoff: int, resolver: dict[str, Any] = RESOLVER) -> None:
    data, files = bundle(
        [records], POP, resolver, selection={"field": "s.key"}, output=_output(cutoff),
        id_field="meta.id",
    )  # fmt: skip
    agrees_with_reference(data, files)


@settings(max_examples=300, deadline=None)
@given(mutated_file(), st.integers(1, 3))
def test_mutated_files_give_the_reference_verdicts(data: bytes, cutoff: int) -> None:
    _agree(data, cutoff)


@settings(max_examples=300, deadline=None)
@given(near_miss_file(), st.integers(1, 3))
def test_near_miss_files_give_the_reference_verdicts(data: bytes, cutoff: int) -> None:
    _agree(data, cutoff)


def _line(rid: str, key: Any, ranking: Any) -> str:
    return json.dumps({"meta": {"id": rid}, "s": {"key": key}, "out": {"ranking": ranking}})


def test_every_verdict() -> None:
    oids = [{"oid": o} for o in ("zz", "zz", "m5")]
    lines = [
        _line("r0", "M", oids),  # m5 third: PASS at cutoff 3, FAIL at 2 (duplicates count)
        _line("r1", "m9", [{"oid": "M"}]),  # member selected, canonical returned: PASS
        _line("r2", "m1", [{"oid": "m1x"}, {"oid": "m"}]),  # near misses: FAIL
        _line("r3", "", [{"oid": "A"}]),  # SELECTOR_ERROR
        _line("r4", "nope", [{"oid": "A"}]),  # RESOLUTION_ERROR
        _line("é", "a2", [{"oid": ""}]),  # UNVERIFIABLE
        _line("r5", "a2", [{"oid": "a1"}]),  # PASS
        _line("r7", "L", [{"oid": "long-object-id-0003"}]),  # FAIL on the last byte
        _line("r8", LONG[0], [{"oid": "long-object-id-000"}, {"oid": LONG[1]}]),  # PASS
        _line("r9", "L", [{"oid": "long-obj"}]),  # FAIL: only the first eight bytes alike
        _line("rA", "L", [{"oid": "long-objX9"}]),  # FAIL: unlike at the ninth byte only
        '{"meta": {"id": "r6"}, "s": {"key": "a\\u0031"}, "out": {"ranking": [{"oid": "A"}]}}',
    ]
    records = ("\n".join(lines) + "\n").encode()
    for cutoff in (1, 2, 3):
        _agree(records, cutoff, BIG_RESOLVER)
    data, files = bundle(
        [records], POP, BIG_RESOLVER, selection={"field": "s.key"}, output=_output(2),
        id_field="meta.id",
    )  # fmt: skip
    check = validate(data, files, "decl.json")
    decl = check.declaration
    assert decl is not None and check.records is not None
    slow = stdlib_records(check.records, decl.id_path, decl)
    assert slow.record_ids == [
        "r0",
        "r1",
        "r2",
        "r3",
        "r4",
        "é",
        "r5",
        "r7",
        "r8",
        "r9",
        "rA",
        "r6",
    ]
    assert assign_verdicts(slow, decl).tolist() == [6, 5, 6, 2, 3, 4, 5, 6, 5, 6, 6, 5]


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    calls: list[Any] = []
    real = getattr(EVALUATE, name)

    def spy(*args: Any, **kw: Any) -> Any:
        calls.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(EVALUATE, name, spy)
    return calls


def test_records_are_parsed_once_after_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [{"record_id": "r1", "sel": "A", "ranking": ["a1"]}]
    parses = _spy(monkeypatch, "parse_records")
    order: list[str] = []
    real_validate = EVALUATE.validate
    monkeypatch.setattr(
        EVALUATE, "validate", lambda *a, **k: order.append("validate") or real_validate(*a, **k)
    )
    data, files = bundle(rows, ["r1"], {"version": "v", "objects": {"A": ["a1"]}})
    assert EVALUATE.evaluate(data, files, "d.json", big=0).run_status == "RUN_PASS"
    assert len(parses) == 1 and order == ["validate"]
    assert parses[0][2] is not None and parses[0][2].mode == "hard"  # the validated one
    # an invalid declaration: its records are read for their ids only
    decl = json.loads(data)
    decl["output"]["cutoff"] = 0
    parses.clear()
    result = EVALUATE.evaluate(json.dumps(decl).encode(), files, "d.json")
    assert result.run_status == "RUN_INVALID" and result.record_verdicts == {
        "r1": "DECLARATION_INVALID"
    }
    assert len(parses) == 1 and parses[0][2] is None


def test_declaration_file_is_parsed_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import formats.rop_files as rop_files
    from scorers.rop import declaration

    calls: list[bytes] = []
    real = declaration.parse_declaration_json

    def counted(data: bytes, name: str) -> Any:
        calls.append(data)
        return real(data, name)

    for module in (declaration, rop_files, EVALUATE):
        monkeypatch.setattr(module, "parse_declaration_json", counted)
    example = REPO / "examples" / "rop" / "hard-fixture" / "declaration.json"
    assert rop_files.evaluate_declaration_file(example).run_status == "RUN_PASS"
    assert len(calls) == 1
    calls.clear()
    assert rop_files.validate_declaration_file(example).valid
    assert len(calls) == 1
