"""The vectorised evaluator (both parsers) agrees with the plain per-record reference loop."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorers.rop import Declaration, validate
from scorers.rop.columns import RecordColumns, finish, python_columns
from scorers.rop.evaluate import evaluate
from scorers.rop.membership import assign_verdicts
from scorers.rop.scan_rows import fast_rows
from tests.test_rop_helpers import agrees_with_reference, bundle

RESOLVER = {
    "version": "t1",
    "objects": {"A": ["a1", "a2"], "B": ["b1"], "C": [], "D": ["d1", "d2", "d3"]},
}
RAW = ["A", "a1", "a2", "B", "b1", "C", "D", "d1", "d2", "d3", "zz", "a3"]  # zz, a3 unknown
IDS = [f"r{i}" for i in range(6)]
FAST_SEEN: list[int] = []

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
    if typed:  # only nulls and absences: the pyarrow fast path accepts these files
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
    if not typed:  # lines the compiled scan must leave to Python's parser
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


def fast_columns(
    data: bytes, id_path: tuple[str, ...], decl: Declaration | None
) -> tuple[RecordColumns, int] | None:
    """The compiled scan's columns and how many lines it read itself."""
    out = fast_rows(data, id_path, decl)
    return None if out is None else (finish(out[0], decl), out[1])


def _compare(sc: dict[str, Any]) -> None:
    data, files = bundle(
        sc["rows"], IDS[:4], RESOLVER, selection=sc["selection"], output=sc["output"]
    )
    decl, records = agrees_with_reference(data, files)
    # Both parsers, when the fast one accepts the file, give identical verdicts.
    slow = python_columns(records, decl.id_path, decl)
    out = fast_columns(records, decl.id_path, decl)
    if out is not None:
        fast, n_fast = out
        FAST_SEEN.append(n_fast)
        assert fast.malformed_lines == slow.malformed_lines
        assert fast.record_ids == slow.record_ids
        args = (decl.resolver, decl.cutoff, decl.membership)
        assert assign_verdicts(fast, *args).tolist() == assign_verdicts(slow, *args).tolist()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario())
def test_vectorised_matches_reference(sc: dict[str, Any]) -> None:
    _compare(sc)


def test_fast_parser_was_exercised_by_the_property_test() -> None:
    assert sum(1 for n in FAST_SEEN if n > 0) >= 20


def test_fast_path_is_taken_for_well_typed_files() -> None:
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
    out = fast_columns(check.records, check.declaration.id_path, check.declaration)
    assert out is not None
    fast, n_fast = out
    assert n_fast == 4  # the scan read every line itself
    verdicts = assign_verdicts(fast, check.declaration.resolver, 2, "any")
    assert verdicts.tolist() == [5, 5, 5, 5]  # PASS: a1 and A resolve to the same object


def test_timestamp_like_ids_fall_back_and_still_evaluate() -> None:
    # pyarrow would read these ids as timestamps; the line parser takes over.
    rows = [{"record_id": "2024-01-01", "s": {"key": "B"}, "ranking": ["b1"]}]
    data, files = bundle(rows, ["2024-01-01"], RESOLVER, selection={"field": "s.key"})
    result = evaluate(data, files, "decl.json")
    assert result.run_status == "RUN_PASS"
    assert json.loads(files["records.jsonl"] or b"")["record_id"] == "2024-01-01"
