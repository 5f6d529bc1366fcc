"""The vectorised evaluator agrees with the plain per-record reference loop, and the records
parser (Arrow blocks with the stdlib re-read) with the stdlib parser alone."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorers.rop import Declaration, records, validate
from scorers.rop.columns import RecordColumns
from scorers.rop.evaluate import evaluate
from scorers.rop.membership import assign_verdicts
from scorers.rop.records import parse_records, stdlib_records
from tests.test_rop_helpers import agrees_with_reference, bundle
from tests.test_rop_parser import same_columns

RESOLVER = {
    "version": "t1",
    "objects": {"A": ["a1", "a2"], "B": ["b1"], "C": [], "D": ["d1", "d2", "d3"]},
}
RAW = ["A", "a1", "a2", "B", "b1", "C", "D", "d1", "d2", "d3", "zz", "a3"]  # zz, a3 unknown
IDS = [f"r{i}" for i in range(6)]
TYPED_SEEN: list[int] = []  # records the Arrow reader read itself, per file

TRICKY = [
    '{"record_id": "r1", "record_id": "r2", "s": {"key": "a1"}, "ranking": []}\n',
    '{"record_id": "r1", "s": {"key": "zz", "key": "a1"}, "ranking": ["A", {"oid": "A"}]}\n',
    '{"record_id": "r1", "s": {"key": "a1"}, "ranking": [{"oid": "A"},]}\n',
    '{"record_id": "r2", "x": nan, "s": {"key": "a1"}, "ranking": []}\n',
    '{"record_id": "r2", "x": NaN, "s": {"key": "a1"}, "ranking": [{"oid": "A"}]}\n',
    '{"record_id": "r\\u0033", "s": {"key": "a\\u0031"}, "ranking": [{"oid": "\\u0041"}]}\n',
    '{"record_id": "r3", "s": {"key": ["a1", "B"]}, "ranking": ["a\\u0031", "B"]}\n',
    '{"record_id": 3, "s": {"key": "a1"}, "ranking": ["A"]}\n',
    "\n",
    "  \t\n",
    "[1]\n",
]
raw_id = st.sampled_from(RAW)
broken = st.sampled_from([None, 5, "", ["a1"], {"x": 1}])


def _returned(plain: bool, typed: bool) -> st.SearchStrategy[Any]:
    elem = raw_id if plain else raw_id.map(lambda r: {"oid": r})
    bad_elem = broken if plain else st.sampled_from([{"other": "a1"}, {"oid": 3}, "a1", None])
    if typed:  # only nulls, absences and empty strings: the Arrow reader reads these files
        bad_elem = st.sampled_from([None, ""] if plain else [{"other": "a1"}, None, {"oid": ""}])
        broken_ = st.sampled_from([None])
    else:
        broken_ = broken
    good = st.lists(elem, max_size=6)
    return st.one_of(
        good,
        good,
        good,
        st.lists(st.one_of(elem, bad_elem), min_size=1, max_size=4),
        broken_,
        st.just("<absent>"),
    )


@st.composite
def scenario(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["field", "alternatives"]))
    plain = draw(st.booleans())
    membership = draw(st.sampled_from(["any", "all"]))
    cutoff = draw(st.integers(1, 5))
    typed = draw(st.booleans())
    bad = st.sampled_from([None, ""]) if typed else broken
    sel = raw_id if kind == "field" else st.lists(raw_id, min_size=1, max_size=3)
    rows: list[Any] = []
    for _ in range(draw(st.integers(0, 8))):
        rid = draw(st.sampled_from(IDS) if typed else st.one_of(st.sampled_from(IDS), broken))
        row: dict[str, Any] = {"record_id": rid}
        value = draw(st.one_of(sel, sel, sel, bad, st.just("<absent>")))
        if value != "<absent>":
            row["s"] = {"key": value}
        ret = draw(_returned(plain, typed))
        if ret != "<absent>":
            row["ranking"] = ret
        rows.append(row)
    if not typed and draw(st.booleans()) and rows:
        rows.insert(draw(st.integers(0, len(rows))), "{broken json\n")
    if not typed:  # lines the Arrow reader must leave to the stdlib parser
        for line in draw(st.lists(st.sampled_from(TRICKY), max_size=2)):
            rows.insert(draw(st.integers(0, len(rows))), line)
    return {
        "rows": rows,
        "selection": {"field": "s.key"} if kind == "field" else {"alternatives_field": "s.key"},
        "output": {
            "list_field": "ranking",
            "id_field": None if plain else "oid",
            "cutoff": cutoff,
            "membership": membership,
        },
    }


def _typed_count(data: bytes, decl: Declaration, block: int) -> tuple[RecordColumns, int]:
    """parse_records' columns and how many records the Arrow reader read itself."""
    seen: list[int] = []
    real = records.read_block

    def counted(reader: Any, body: bytes) -> Any:
        table = real(reader, body)
        seen.append(table.num_rows if table is not None else 0)
        return table

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(records, "read_block", counted)
        cols = parse_records(data, decl.id_path, decl, block=block)
    return cols, sum(seen)


def _compare(sc: dict[str, Any]) -> None:
    data, files = bundle(
        sc["rows"], IDS[:4], RESOLVER, selection=sc["selection"], output=sc["output"]
    )
    decl, data = agrees_with_reference(data, files)
    # One line per block and one block for the file: the stdlib parser's columns and verdicts.
    slow = stdlib_records(data, decl.id_path, decl)
    for block in (1, 1 << 20):
        fast, n_typed = _typed_count(data, decl, block)
        TYPED_SEEN.append(n_typed)
        same_columns(fast, slow)
        assert assign_verdicts(fast, decl).tolist() == assign_verdicts(slow, decl).tolist()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario())
def test_vectorised_matches_reference(sc: dict[str, Any]) -> None:
    _compare(sc)


def test_arrow_reader_was_exercised_by_the_property_test() -> None:
    assert sum(1 for n in TYPED_SEEN if n > 0) >= 20


def test_arrow_reader_reads_well_typed_files() -> None:
    rows = [
        {"record_id": f"r{i}", "s": {"key": "a1"}, "ranking": [{"oid": "zz"}, {"oid": "A"}]}
        for i in range(4)
    ]
    data, files = bundle(
        rows,
        [f"r{i}" for i in range(4)],
        RESOLVER,
        selection={"field": "s.key"},
        output={"list_field": "ranking", "id_field": "oid", "cutoff": 2, "membership": "any"},
    )
    check = validate(data, files, "decl.json")
    assert check.declaration is not None and check.records is not None
    fast, n_typed = _typed_count(check.records, check.declaration, 1 << 20)
    assert n_typed == 4  # the Arrow reader read every line itself
    verdicts = assign_verdicts(fast, check.declaration)
    assert verdicts.tolist() == [5, 5, 5, 5]  # PASS: a1 and A resolve to the same object


def test_timestamp_like_ids_fall_back_and_still_evaluate() -> None:
    # Ids that look like timestamps stay strings.
    rows = [{"record_id": "2024-01-01", "s": {"key": "B"}, "ranking": ["b1"]}]
    data, files = bundle(rows, ["2024-01-01"], RESOLVER, selection={"field": "s.key"})
    result = evaluate(data, files, "decl.json")
    assert result.run_status == "RUN_PASS"
    assert json.loads(files["records.jsonl"] or b"")["record_id"] == "2024-01-01"
