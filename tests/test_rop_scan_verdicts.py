"""Compiled verdicts from the scan's spans (`selection.field` with `any` membership).

`evaluate` takes this path for such declarations once the records file reaches
`columns.SCAN_MIN` (lowered to 0 here). Every test compares with the per-record
reference loop or with the columns path, and checks that the compiled path ran.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.rop import columns, scan_rows, scan_verdicts, validate
from scorers.rop.columns import python_columns
from scorers.rop.membership import assign_verdicts
from scorers.rop.verdict_kernel import DIRECT_MAX, build_table, find
from tests.test_rop_helpers import agrees_with_reference, bundle
from tests.test_rop_parser import POP, RESOLVER, mutated_file, template_file

# Object "M" has more raw ids than are compared directly: its ids go through the table.
MANY = [f"m{i}" for i in range(DIRECT_MAX + 3)]
# Object "L": ids longer than the eight bytes of one word, alike up to their last byte.
LONG = ["long-object-id-0001", "long-object-id-0002", "long-obj-9"]
BIG_RESOLVER = {"version": "t2", "objects": {**RESOLVER["objects"], "M": MANY, "L": LONG}}


@pytest.fixture(autouse=True)
def _scan_small_files(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Scan files of any size in small blocks, and count the compiled verdict calls."""
    monkeypatch.setattr(columns, "SCAN_MIN", 0)
    monkeypatch.setattr(scan_rows, "_BLOCK", 64)
    calls: list[int] = []
    real = scan_verdicts.scan_verdicts

    def counted(*args: Any) -> Any:
        out = real(*args)
        calls.append(len(out.codes) if out is not None else -1)
        return out

    # the evaluate module (`scorers.rop.evaluate` is the function the package exports)
    monkeypatch.setattr(sys.modules["scorers.rop.evaluate"], "scan_verdicts", counted)
    yield calls


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
@given(template_file(), st.integers(1, 3))
def test_template_files_give_the_reference_verdicts(data: bytes, cutoff: int) -> None:
    scan_rows._BLOCK = 1 << 20  # one block: lines after the first meet a template
    _agree(data, cutoff)


def _line(rid: str, key: Any, ranking: Any) -> str:
    return json.dumps({"meta": {"id": rid}, "s": {"key": key}, "out": {"ranking": ranking}})


def test_every_verdict_and_the_table_path(_scan_small_files: list[int]) -> None:
    oids = [{"oid": o} for o in ("zz", "zz", "m5")]
    lines = [
        _line("r0", "M", oids),  # m5 third: PASS at cutoff 3, FAIL at 2 (duplicates count)
        _line("r1", "m9", [{"oid": "M"}]),  # member selected, canonical returned: PASS
        _line("r2", "m1", [{"oid": "m1x"}, {"oid": "m"}]),  # near misses: FAIL
        _line("r3", "", [{"oid": "A"}]),  # SELECTOR_ERROR
        _line("r4", "nope", [{"oid": "A"}]),  # RESOLUTION_ERROR
        _line("é", "a2", [{"oid": ""}]),  # UNVERIFIABLE
        _line("r5", "a2", [{"oid": "a1"}]),  # PASS through a direct compare
        _line("r7", "L", [{"oid": "long-object-id-0003"}]),  # FAIL on the last byte
        _line("r8", LONG[0], [{"oid": "long-object-id-000"}, {"oid": LONG[1]}]),  # PASS
        _line("r9", "L", [{"oid": "long-obj"}]),  # FAIL: only the first eight bytes alike
        _line("rA", "L", [{"oid": "long-objX9"}]),  # FAIL: unlike at the ninth byte only
        '{"meta": {"id": "r6"}, "s": {"key": "a\\u0031"}, "out": {"ranking": [{"oid": "A"}]}}',
    ]  # the last line has an escape: the line parser reads it, merged back in order
    records = ("\n".join(lines) + "\n").encode()
    for cutoff in (1, 2, 3):
        _agree(records, cutoff, BIG_RESOLVER)
    assert _scan_small_files and min(_scan_small_files) >= 0  # the compiled path ran
    data, files = bundle(
        [records], POP, BIG_RESOLVER, selection={"field": "s.key"}, output=_output(2),
        id_field="meta.id",
    )  # fmt: skip
    check = validate(data, files, "decl.json")
    decl = check.declaration
    assert decl is not None and check.records is not None
    scanned = scan_verdicts.verdict_scan(check.records, decl, decl.resolver)
    assert scanned is not None
    got = scan_verdicts.scan_verdicts(check.records, scanned, decl)
    assert got is not None
    slow = python_columns(check.records, decl.id_path, decl)
    ids = ["r0", "r1", "r2", "r3", "r4", "é", "r5", "r7", "r8", "r9", "rA", "r6"]
    assert got.record_ids == slow.record_ids == ids
    expected = assign_verdicts(slow, decl.resolver, 2, "any").tolist()
    assert got.codes.tolist() == expected == [6, 5, 6, 2, 3, 4, 5, 6, 5, 6, 6, 5]


# Ids of a two-letter alphabet share long prefixes: past the eight bytes one word holds,
# only the byte-by-byte tail tells them apart.
IDS = st.one_of(st.binary(max_size=12), st.text(alphabet="ab", max_size=12).map(str.encode))


@settings(max_examples=200, deadline=None)
@given(st.lists(IDS, unique=True, max_size=40), st.lists(IDS, max_size=20))
def test_hash_table_finds_exactly_the_keys(keys: list[bytes], probes: list[bytes]) -> None:
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(k) for k in keys])
    flat = np.frombuffer(b"".join(keys), dtype=np.uint8)
    slots, rec = build_table(flat, offsets)
    assert len(slots) >= 2 * len(keys)
    assert sorted(s for s in slots.tolist() if s >= 0) == list(range(len(keys)))
    for probe in [*keys, *probes]:
        buf = np.frombuffer(b"#" + probe + b"#", dtype=np.uint8)
        got = find(buf, 1, 1 + len(probe), flat, rec, slots)
        assert got == (keys.index(probe) if probe in keys else -1)
