"""The records parser reads every line exactly as `json.loads` does.

`scorers.rop.records.parse_records` reads blocks of lines with Arrow's JSON reader
(an explicit schema of the needed fields) and re-reads any block it cannot vouch for
with the stdlib parser. Every
case here is evaluated by the per-record reference loop and by `evaluate`, and
parsed at several block sizes (one line per block, a few lines, the whole file)
against the stdlib parser alone: same columns, same verdicts. Random byte-level
mutations of valid lines check that the Arrow reader accepts nothing the stdlib
reads differently (multi-line values, two values on a line, invalid UTF-8 in
skipped fields, integers over Python's 4,300-digit limit, BOMs, NaN, Inf, deep
nesting...).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scorers.rop import evaluate_reference, records, validate
from scorers.rop.arrow_rows import block_reader
from scorers.rop.columns import RecordColumns
from scorers.rop.evaluate import evaluate
from scorers.rop.membership import assign_verdicts
from scorers.rop.records import parse_records, stdlib_records
from scorers.rop.strings import index_codes, strings
from tests.test_rop_helpers import agrees_with_reference, bundle
from vocabulary.jsonblocks import long_integer as _long_integer

LONG_INT = b"1" * (sys.get_int_max_str_digits() + 1)  # json.loads refuses it as an integer
BLOCKS = (1, 64, 1 << 20)  # one line per block, a few lines, the whole file

RESOLVER = {"version": "t1", "objects": {"A": ["a1", "a2"], "B": ["b1"], "C": [], "é": ["ü1"]}}
POP = ["r0", "r1", "r2", "r3", "é"]
OBJ_OUT = {"list_field": "out.ranking", "id_field": "oid", "cutoff": 2, "membership": "any"}
PLAIN_OUT = {"list_field": "ranking", "id_field": None, "cutoff": 2, "membership": "all"}

# (name, raw line) pairs for the object-list declaration (id meta.id, selection s.key).
OBJECT_LINES = [
    ("good", '{"meta": {"id": "r0"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": "A"}]}}'),
    ("number id", '{"meta": {"id": 5}, "s": {"key": "a1"}, "out": {"ranking": []}}'),
    ("string five", '{"meta": {"id": "5"}, "s": {"key": "a1"}, "out": {"ranking": []}}'),
    ("bool id", '{"meta": {"id": true}, "s": {"key": "a1"}, "out": {"ranking": []}}'),
    ("number key", '{"meta": {"id": "r1"}, "s": {"key": 7}, "out": {"ranking": [{"oid": "A"}]}}'),
    ("number oid", '{"meta": {"id": "r1"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": 1}]}}'),
    ("null element", '{"meta": {"id": "r1"}, "s": {"key": "b1"}, "out": {"ranking": [null]}}'),
    ("null oid", '{"meta": {"id": "r1"}, "s": {"key": "B"}, "out": {"ranking": [{"oid": null}]}}'),
    ("string element", '{"meta": {"id": "r1"}, "s": {"key": "B"}, "out": {"ranking": ["b1"]}}'),
    ("no oid", '{"meta": {"id": "r1"}, "s": {"key": "B"}, "out": {"ranking": [{"x": "b1"}]}}'),
    ("no ranking", '{"meta": {"id": "r2"}, "s": {"key": "B"}, "out": {}}'),
    ("no out", '{"meta": {"id": "r2"}, "s": {"key": "B"}}'),
    ("no s", '{"meta": {"id": "r2"}, "out": {"ranking": [{"oid": "B"}]}}'),
    ("s not object", '{"meta": {"id": "r2"}, "s": "B", "out": {"ranking": [{"oid": "B"}]}}'),
    ("s empty", '{"meta": {"id": "r2"}, "s": {}, "out": {"ranking": [{"oid": "B"}]}}'),
    (
        "ranking object",
        '{"meta": {"id": "r2"}, "s": {"key": "B"}, "out": {"ranking": {"oid": "B"}}}',
    ),
    ("ranking null", '{"meta": {"id": "r2"}, "s": {"key": "B"}, "out": {"ranking": null}}'),
    ("meta null", '{"meta": null, "s": {"key": "B"}}'),
    ("empty id", '{"meta": {"id": ""}, "s": {"key": "B"}}'),
    ("empty key", '{"meta": {"id": "r3"}, "s": {"key": ""}, "out": {"ranking": [{"oid": "B"}]}}'),
    ("empty oid", '{"meta": {"id": "r3"}, "s": {"key": "B"}, "out": {"ranking": [{"oid": ""}]}}'),
    ("unknown", '{"meta": {"id": "r3"}, "s": {"key": "zz"}, "out": {"ranking": [{"oid": "B"}]}}'),
    (
        "extra keys",
        '{"meta": {"id": "r3", "x": [1]}, "s": {"key": "C", "y": {}}, "z": null,'
        ' "out": {"ranking": [{"oid": "q", "w": 2}, {"oid": "C"}], "v": 1}}',
    ),
    (
        "cutoff",
        '{"meta": {"id": "r3"}, "s": {"key": "C"}, "out": {"ranking": '
        '[{"oid": "q"}, {"oid": "q"}, {"oid": "C"}]}}',
    ),
    (
        "duplicate id key",
        '{"meta": {"id": "r0", "id": "r9"}, "s": {"key": "a1"}, '
        '"out": {"ranking": [{"oid": "A"}]}}',
    ),
    (
        "duplicate sel key",
        '{"meta": {"id": "r1"}, "s": {"key": "zz", "key": "a1"}, '
        '"out": {"ranking": [{"oid": "A"}]}}',
    ),
    (
        "duplicate oid key",
        '{"meta": {"id": "r1"}, "s": {"key": "a1"}, '
        '"out": {"ranking": [{"oid": "zz", "oid": "A"}]}}',
    ),
    (
        "duplicate list key",
        '{"meta": {"id": "r1"}, "s": {"key": "a1"}, '
        '"out": {"ranking": [], "ranking": [{"oid": "A"}]}}',
    ),
    ("trailing comma", '{"meta": {"id": "r2"}, "s": {"key": "a1"}, "out": {"ranking": [],}}'),
    (
        "trailing comma list",
        '{"meta": {"id": "r2"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": "A"} , ]}}',
    ),
    (
        "python NaN",
        '{"meta": {"id": "r2"}, "x": NaN, "y": -Infinity, "s": {"key": "a1"}, '
        '"out": {"ranking": [{"oid": "A"}]}}',
    ),
    ("lower nan", '{"meta": {"id": "r2"}, "x": nan, "s": {"key": "a1"}, "out": {"ranking": []}}'),
    ("inf", '{"meta": {"id": "r2"}, "x": [ -inf], "s": {"key": "a1"}, "out": {"ranking": []}}'),
    (
        "nan text",
        '{"meta": {"id": "r2"}, "x": ": nan, [inf", "s": {"key": "a1"}, '
        '"out": {"ranking": [{"oid": "A"}]}}',
    ),
    (
        "escaped id",
        '{"meta": {"id": "r\\u0033"}, "s": {"key": "a\\u0031"}, '
        '"out": {"ranking": [{"oid": "\\u0041"}]}}',
    ),
    (
        "escaped key name",
        '{"meta": {"i\\u0064": "r3"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": "A"}]}}',
    ),
    (
        "escaped other",
        '{"meta": {"id": "r3"}, "note": "tab\\tquote\\"", "s": {"key": "a1"}, '
        '"out": {"ranking": [{"oid": "A"}]}}',
    ),
    (
        "lone surrogate",
        '{"meta": {"id": "r3"}, "s": {"key": "a1"}, '
        '"out": {"ranking": [{"oid": "\\ud800"}, {"oid": "A"}]}}',
    ),
    ("non-ascii", '{"meta": {"id": "é"}, "s": {"key": "ü1"}, "out": {"ranking": [{"oid": "é"}]}}'),
    (
        "raw surrogate",
        '{"meta": {"id": "r\ud800"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": "\udfff"}]}}',
    ),
    ("tab in id", '{"meta": {"id": "r\t0"}, "s": {"key": "a1"}, "out": {"ranking": []}}'),
    ("astral", '{"meta": {"id": "r\U0001d11e"}, "s": {"key": "a1"}, "out": {"ranking": []}}'),
    ("bom", '\ufeff{"meta": {"id": "r0"}, "s": {"key": "a1"}, "out": {"ranking": []}}'),
    ("crlf", '{"meta": {"id": "r0"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": "A"}]}}\r'),
    ("leading space", '   {"meta": {"id": "r0"}, "s": {"key": "b1"}, "out": {"ranking": []}}'),
    ("blank", ""),
    ("spaces", "  \t "),
    ("array line", '[{"meta": {"id": "r0"}}]'),
    ("string line", '"r0"'),
    ("number line", "5"),
    ("null line", "null"),
    ("two objects", '{"meta": {"id": "r0"}} {"meta": {"id": "r1"}}'),
    ("broken", '{"meta": {"id": "r0"'),
    ("single quotes", "{'meta': {'id': 'r0'}}"),
    # Deeper than the recursion limit of both JSON readers: a malformed line, not a crash.
    (
        "too deep",
        '{"meta": {"id": "r1"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": "A"}]}, "x": '
        + "[" * 5000
        + "]" * 5000
        + "}",
    ),
    (
        "too deep needed",
        '{"meta": {"id": "r1"}, "s": {"key": "a1"}, "out": {"ranking": '
        + "[" * 5000
        + "]" * 5000
        + "}}",
    ),
]


def _records(lines: list[str]) -> list[bytes]:
    return [(line + "\n").encode("utf-8", "surrogatepass") for line in lines]


@pytest.fixture(autouse=True)
def typed_lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Count the records the Arrow reader read itself per block (blocks it accepted), in
    the order the blocks were read (blocks are read on several threads)."""
    seen: list[int] = []
    real = records.read_block

    def counted(*args: Any) -> Any:
        table = real(*args)
        seen.append(table.num_rows if table is not None else 0)
        return table

    monkeypatch.setattr(records, "read_block", counted)
    yield seen


def _plain(values: Any) -> list[Any]:
    return values.to_pylist() if isinstance(values, pa.Array) else list(values)


def same_columns(a: RecordColumns, b: RecordColumns) -> None:
    assert a.record_ids == b.record_ids
    assert a.malformed_lines == b.malformed_lines
    assert a.sel_status.tolist() == b.sel_status.tolist()
    assert _plain(a.sel_values) == _plain(b.sel_values)
    assert a.sel_parents.tolist() == b.sel_parents.tolist()
    assert a.ret_ok.tolist() == b.ret_ok.tolist()
    assert _plain(a.ret_values) == _plain(b.ret_values)
    assert a.ret_offsets.tolist() == b.ret_offsets.tolist()
    assert a.witnesses == b.witnesses
    assert a.bindings == b.bindings


def parses_as_stdlib(data: bytes, decl: Any) -> None:
    """Every block size gives the stdlib parser's columns, with the declaration's paths
    and with the record ids alone."""
    for block in BLOCKS:
        for d in (decl, None):
            same_columns(
                parse_records(data, decl.id_path, d, block=block),
                stdlib_records(data, decl.id_path, d),
            )


def _check(rows: list[Any], **kw: Any) -> None:
    """`evaluate` equals the reference loop; columns and verdicts (any/all, cutoffs 1-3)
    equal the stdlib parser's at every block size."""
    decl, data = agrees_with_reference(*bundle(rows, POP, RESOLVER, **kw))
    parses_as_stdlib(data, decl)
    slow = stdlib_records(data, decl.id_path, decl)
    for block in BLOCKS:
        fast = parse_records(data, decl.id_path, decl, block=block)
        for membership in ("any", "all"):
            for cutoff in (1, 2, 3):
                d = replace(decl, cutoff=cutoff, membership=membership)
                a = assign_verdicts(fast, d).tolist()
                assert a == assign_verdicts(slow, d).tolist(), (block, membership, cutoff)


@pytest.mark.parametrize("name,line", OBJECT_LINES, ids=[n for n, _ in OBJECT_LINES])
def test_each_awkward_line_alone(name: str, line: str) -> None:
    _check(_records([line]), selection={"field": "s.key"}, output=OBJ_OUT, id_field="meta.id")


def test_all_awkward_lines_in_one_file(typed_lines: list[int]) -> None:
    lines = [line for _, line in OBJECT_LINES]
    _check(_records(lines), selection={"field": "s.key"}, output=OBJ_OUT, id_field="meta.id")
    assert sum(typed_lines) > 0  # Arrow read some lines itself, stdlib the rest


def test_duplicate_record_ids_keep_first_verdict_in_both_parsers() -> None:
    good = '{"meta": {"id": "r0"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": "A"}]}}'
    fail = '{"meta": {"id": "r0"}, "s": {"key": "B"}, "out": {"ranking": [{"oid": "A"}]}}'
    escaped = '{"meta": {"id": "r\\u0030"}, "s": {"key": "B"}, "out": {"ranking": []}}'
    for lines in ([good, fail], [fail, good], [escaped, good], [good, escaped, fail]):
        _check(_records(lines), selection={"field": "s.key"}, output=OBJ_OUT, id_field="meta.id")


PLAIN_LINES = [
    '{"record_id": "r0", "alts": ["a1", "B"], "ranking": ["a1", "a2", "b1"]}',
    '{"record_id": "r1", "alts": ["a1", null], "ranking": ["a1", "a2"]}',
    '{"record_id": "r1", "alts": [], "ranking": ["a1"]}',
    '{"record_id": "r2", "alts": "a1", "ranking": ["a1"]}',
    '{"record_id": "r2", "alts": ["C"], "ranking": ["C", null]}',
    '{"record_id": "r2", "alts": ["C"], "ranking": [3, "C"]}',
    '{"record_id": "r3", "alts": ["a\\u0032", "zz"], "ranking": ["a2"]}',
    '{"record_id": 3, "alts": ["C"], "ranking": ["C"]}',
    '{"record_id": "r3", "alts": ["C"], "ranking": ["C",]}',
    '{"record_id": "r3", "alts": ["b1"], "ranking": ["x", "y", "b1"]}',
    '{"record_id": "é", "alts": ["é"], "ranking": ["ü1"]}',
    "",
]


def test_alternatives_and_plain_lists(typed_lines: list[int]) -> None:
    rows = _records(PLAIN_LINES)
    _check(rows, selection={"alternatives_field": "alts"}, output=PLAIN_OUT)
    assert sum(typed_lines) >= 6
    for line in PLAIN_LINES:
        _check(_records([line]), selection={"alternatives_field": "alts"}, output=PLAIN_OUT)


def test_invalid_utf8_and_missing_final_newline() -> None:
    good = b'{"record_id": "r0", "alts": ["a1"], "ranking": ["A"]}'
    bad = b'{"record_id": "r1", "alts": ["a1"], "ranking": ["\xff"]}'
    for rows in ([good], [good + b"\n", bad], [bad + b"\n", good + b"\n"]):
        _check(rows, selection={"alternatives_field": "alts"}, output=PLAIN_OUT)


TWO = b'{"record_id": "r2"} {"record_id": "r3"}'
GUARDED = [
    # Arrow alone reads each of these lines (with no guard); json.loads refuses it
    b'{"record_id": "r1", "note": "\xff", "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": ' + LONG_INT + b', "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": [-' + LONG_INT + b'], "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": Inf, "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": [1, -Inf], "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": {"m": -NaN}, "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": '
    + b"[" * 1200
    + b"]" * 1200
    + b', "alts": ["a1"], "ranking": ["A"]}',
    # one value over two lines, and two values on one line
    b'{"record_id": "r1", "alts": ["a1"], "ranking": ["A",\n"B"]}',
    b'{"record_id": "r1", "alts": ["a1"],\n "ranking": ["A"]}',
    b'{"record_id": "r1", "alts": ["a1"], "ranking": ["A"]} {"record_id": "r2"}',
    b'{"record_id": "r1", "alts": ["a1"], "ranking": ["A"]}\r{"record_id": "r2"}',
    # both at once, so that the number of records equals the number of lines
    b'{"record_id": "r1", "x": {"y": 1}\n, "alts": ["a1"], "ranking": ["A"]}\n' + TWO,
    b'{"record_id": "r1", "x": [\r\n{"y": 1}], "alts": ["a1"], "ranking": ["A"]}\n' + TWO,
]
ACCEPTED = [
    # json.loads reads these; so must the evaluator (bytes are decoded with
    # "surrogatepass": an encoded surrogate is read, Arrow's UTF-8 check refuses it)
    b'{"record_id": "r1", "note": "\xed\xa0\x80", "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": ' + LONG_INT[:-1] + b', "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": 1' + LONG_INT + b'.5, "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": [NaN, Infinity, -Infinity], "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": ' + b"[" * 600 + b"]" * 600 + b', "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "n": "Inf, NaN", "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "note": "' + LONG_INT + b'", "alts": ["a1"], "ranking": ["A"]}',
    b'\xef\xbb\xbf{"record_id": "r1", "alts": ["a1"], "ranking": ["A"]}',
    b'{"record_id": "r1", "alts": ["a1"], "ranking": ["A"]}\r',
    b'  {"record_id": "r1", "alts": ["a1"], "ranking": ["A"]}',
]
GOOD = b'{"record_id": "r0", "alts": ["a1"], "ranking": ["a2"]}'


@pytest.mark.parametrize("line", GUARDED + ACCEPTED)
def test_lines_only_one_of_the_parsers_accepts(line: bytes) -> None:
    for rows in ([line + b"\n"], [GOOD + b"\n", line + b"\n", GOOD + b"\n"]):
        _check(rows, selection={"alternatives_field": "alts"}, output=PLAIN_OUT)
    data = GOOD + b"\n" + line + b"\n" + GOOD + b"\n"
    decl = _declaration([data], PLAIN_OUT, {"alternatives_field": "alts"}, "record_id")
    cols = parse_records(data, decl.id_path, decl)
    if line in GUARDED:
        assert cols.malformed_lines == list(range(2, 2 + line.count(b"\n") + 1))
    else:
        assert cols.record_ids == ["r0", "r1", "r0"]


def test_paths_that_overlap_use_the_stdlib_parser() -> None:
    # The id path is a prefix of the selection path: no single Arrow schema exists.
    rows = _records(['{"record_id": "r0", "ranking": ["A"]}'])
    data, files = bundle(rows, POP, RESOLVER, selection={"field": "record_id.key"})
    check = validate(data, files, "decl.json")
    assert check.declaration is not None and check.records is not None
    assert block_reader(check.declaration.id_path, check.declaration) is None
    _check(rows, selection={"field": "record_id.key"})


def test_fingerprint_collisions_are_resolved_exactly() -> None:
    # "xa1"/"ya1"/"a1" share their last two bytes; only exact ids may match.
    resolver = {"version": "t", "objects": {"A": ["xa1"], "B": ["ya1"], "C": ["a1", "ca1"]}}
    lines = [
        '{"record_id": "r0", "s": "A", "ranking": ["ya1", "za1"]}',
        '{"record_id": "r1", "s": "xa1", "ranking": ["ya1", "xa1"]}',
        '{"record_id": "r2", "s": "B", "ranking": ["a1", "ca1", "ya1"]}',
        '{"record_id": "r3", "s": "C", "ranking": ["xa1"]}',
        '{"record_id": "é", "s": "C", "ranking": []}',
        '{"record_id": "r4", "s": "C", "ranking": ["ya1", "ca1"]}',
    ]
    data, files = bundle(
        _records(lines),
        POP,
        resolver,
        selection={"field": "s"},
        output={"list_field": "ranking", "id_field": None, "cutoff": 2, "membership": "any"},
    )
    check = validate(data, files, "decl.json")
    decl = check.declaration
    assert decl is not None and check.records is not None
    fast = parse_records(check.records, decl.id_path, decl)
    slow = stdlib_records(check.records, decl.id_path, decl)
    for cutoff in (1, 2, 3):
        d = replace(decl, cutoff=cutoff)
        assert assign_verdicts(fast, d).tolist() == assign_verdicts(slow, d).tolist()
    # r0 FAIL, r1 PASS (xa1 at 2), r2 FAIL (ya1 at 3), r3 FAIL, é FAIL, r4 PASS (ca1 at 2)
    assert assign_verdicts(fast, decl).tolist() == [6, 5, 6, 6, 6, 5]
    ref = evaluate_reference(decl, check.records).to_json()
    assert evaluate(data, files, "decl.json").to_json()["record_verdicts"] == ref["record_verdicts"]


# ---------------------------------------------------------------- random mutations

BASE_LINES = [
    '{"meta": {"id": "r0"}, "s": {"key": "a1"}, "out": {"ranking": [{"oid": "A"}, {"oid": "b1"}]}}',
    '{"out": {"v": [1, -2.5e3, true, false, null, {}], "ranking": [{"x": [], "oid": "é"}]},'
    ' "s": {"key": "B"}, "meta": {"id": "r1"}}',
    ' {"meta":{"id":"r2","n":0},"s":{"key":"C","k":"a1"},"out":{"ranking":[]}}\r',
    '{"meta": {"id": "r2-long-record-identifier"}, "s": {"key": "a1"}, "out": {"ranking":'
    ' [{"oid": "a-very-long-object-id-0001"}, {"oid": "A"}], "note": "sixteen plus bytes"}}',
    '{"meta": {"id": "r3"}, "note": "x\\"y\\\\z\\u00e9", "s": {"key": "a2"}, "out": null}',
]
# Bytes that matter to a JSON reader, including broken UTF-8 (overlong, encoded surrogate,
# truncated sequences) and spellings only Python accepts.
PIECES = [
    b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b" ", b"\t", b"\r", b"\x0b", b"\x00",
    b"\x1f", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9d\x84\x9e", b"\xff", b"\xc0\x80",
    b"\xed\xa0\x80", b"\xe2\x82", b"NaN", b"-Infinity", b"-", b"0", b"01", b"1e5", b"1.",
    b".5", b"true", b"nul", b"\\u00e9", b"\\ud800", b"\\x", b'"oid"', b'"id"', b'"key"',
    b'"ranking"', b'"a1"', b'""', b"\n", b"\r\n", b"\n\n", b"}\n{", b"} {", b"\xef\xbb\xbf",
    LONG_INT, LONG_INT[:-1], b"-" + LONG_INT, b"0." + LONG_INT,
]  # fmt: skip


@st.composite
def mutated_file(draw: Any) -> bytes:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        line = bytearray(draw(st.sampled_from(BASE_LINES)).encode())
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, len(line)))
            op = draw(st.sampled_from(["insert", "delete", "replace"]))
            piece = draw(st.sampled_from(PIECES))
            stop = min(len(line), at + draw(st.integers(1, 4)))
            if op == "insert":
                line[at:at] = piece
            elif op == "delete":
                del line[at:stop]
            else:
                line[at:stop] = piece
        lines.append(bytes(line))
    return b"\n".join(lines) + draw(st.sampled_from([b"", b"\n"]))


def _mutate(draw: Any, line: bytearray, inside_strings: bool) -> bytearray:
    """One mutation; with `inside_strings`, at a point inside some string's content."""
    quotes = [i for i, b in enumerate(line) if b == 34]
    if inside_strings and len(quotes) >= 2:
        k = draw(st.integers(0, len(quotes) // 2 - 1))
        at = draw(st.integers(quotes[2 * k] + 1, quotes[2 * k + 1]))
    else:
        at = draw(st.integers(0, len(line)))
    if inside_strings and at < len(line) and draw(st.booleans()):
        # one byte overwritten: the value keeps its width
        line[at : at + 1] = draw(st.sampled_from(ONE_BYTE))
        return line
    piece = draw(st.sampled_from(PIECES))
    stop = min(len(line), at + draw(st.integers(0, 3)))
    line[at:stop] = piece if draw(st.booleans()) else b""
    return line


ONE_BYTE = [b"\\", b'"', b"\x00", b"\x1f", b"\t", b"\x7f", b"\x80", b"\xc3", b"\xff", b"z"]


@st.composite
def near_miss_file(draw: Any) -> bytes:
    """A valid line, then near misses of it: mutations inside strings, bytes before the
    first or after the last byte."""
    base = draw(st.sampled_from(BASE_LINES[:4])).encode()
    lines = [base]
    for _ in range(draw(st.integers(1, 6))):
        line = bytearray(base)
        for _ in range(draw(st.integers(0, 2))):
            line = _mutate(draw, line, draw(st.booleans()))
        edge = draw(st.sampled_from(["", "append", "prepend"]))
        if edge:
            piece = draw(st.sampled_from([*PIECES, b"}", b" ", b"\r", b"{}"]))
            line = line + piece if edge == "append" else piece + line
        lines.append(bytes(line))
    return b"\n".join(lines) + b"\n"


def _declaration(
    rows: list[bytes], output: dict[str, Any], selection: dict[str, Any], id_field: str = "meta.id"
) -> Any:
    data, files = bundle(rows, POP, RESOLVER, selection=selection, output=output, id_field=id_field)
    check = validate(data, files, "decl.json")
    assert check.declaration is not None, check.problems
    return check.declaration


DECL_OBJECTS = _declaration([b"{}\n"], OBJ_OUT, {"field": "s.key"})
DECL_PLAIN = _declaration(
    [b"{}\n"], {**PLAIN_OUT, "list_field": "out.ranking"}, {"alternatives_field": "s.key"}
)
DECLS = st.sampled_from([DECL_OBJECTS, DECL_PLAIN])


@settings(max_examples=400, deadline=None)
@given(mutated_file(), DECLS)
def test_mutated_lines_read_as_python_reads_them(data: bytes, decl: Any) -> None:
    parses_as_stdlib(data, decl)


@settings(max_examples=400, deadline=None)
@given(near_miss_file(), DECLS)
def test_lines_near_a_valid_line_read_as_python_reads_them(data: bytes, decl: Any) -> None:
    parses_as_stdlib(data, decl)


def test_valid_lines_are_read_by_the_arrow_reader(typed_lines: list[int]) -> None:
    # Valid JSON lines the Arrow reader must accept itself; the third starts with a space
    # (not a clean line start), so the stdlib parser reads it.
    data = ("\n".join(BASE_LINES[:4]) + "\n").encode()
    for line in BASE_LINES[:4]:
        json.loads(line)
    blocks = {}  # which line was read by Arrow: blocks finish in any order
    real = records.read_block

    def by_block(reader: Any, body: bytes) -> Any:
        blocks[body] = table = real(reader, body)
        return table

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(records, "read_block", by_block)
        cols = parse_records(data, DECL_OBJECTS.id_path, DECL_OBJECTS, block=1)
    by_arrow = [blocks[line.encode()] is not None for line in BASE_LINES[:4]]
    assert by_arrow == [True, True, False, True]
    assert cols.record_ids == ["r0", "r1", "r2", "r2-long-record-identifier"]
    assert np.diff(cols.ret_offsets).tolist() == [2, 1, 0, 2]


@pytest.mark.parametrize("decl", [DECL_OBJECTS, DECL_PLAIN], ids=["objects", "plain"])
def test_every_byte_of_every_string_overwritten(decl: Any) -> None:
    # Each byte inside each string of a valid line overwritten by each awkward byte.
    for base in (BASE_LINES[0], BASE_LINES[3]):
        raw = base.encode()
        quotes = [i for i, b in enumerate(raw) if b == 34]
        lines = [raw]
        for k in range(0, len(quotes) - 1, 2):
            for at in range(quotes[k] + 1, quotes[k + 1]):
                for piece in ONE_BYTE:
                    lines += [raw[:at] + piece + raw[at + 1 :], raw]
        data = b"\n".join(lines) + b"\n"
        for block in (1, 1 << 20):
            same_columns(
                parse_records(data, decl.id_path, decl, block=block),
                stdlib_records(data, decl.id_path, decl),
            )


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"1", b"0", b"x", b'"', b"12345", b"9" * 700]), max_size=12))
def test_long_integer_guard_finds_every_long_digit_run(pieces: list[bytes]) -> None:
    # Against a regular expression, with the smallest limit Python allows (640 digits).
    block = b"".join(pieces)
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert _long_integer(block) == (re.search(rb"[0-9]{641}", block) is not None)
    finally:
        sys.set_int_max_str_digits(old)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=6), max_size=30))
def test_strings_build_the_arrow_array_pyarrow_builds(values: list[str]) -> None:
    got = strings(values)
    try:
        want = pa.array(values, type=pa.string())
    except UnicodeEncodeError:  # a lone surrogate: kept as Python strings
        assert got == values
        return
    assert isinstance(got, pa.Array)
    got.validate(full=True)
    assert got.equals(want)


_PIECE = st.lists(
    st.one_of(st.none(), st.text(alphabet="ab\u00e9\U0001d11e", max_size=4)), max_size=8
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_PIECE, st.integers(0, 3), st.booleans()), max_size=6))
def test_concat_strings_joins_as_pyarrow_does(pieces: list[tuple[list[Any], int, bool]]) -> None:
    # Sliced arrays, empty ones, validity bitmaps without nulls (as `flatten` leaves them)
    # and arrays with nulls; the result must equal `pyarrow.concat_arrays`.
    from scorers.rop.strings import concat_strings

    parts = []
    for values, cut, as_child in pieces:
        arr = pa.array(values, type=pa.string())
        if as_child:  # a struct's field carries the struct's validity bitmap
            arr = pa.StructArray.from_arrays([arr], names=["f"]).flatten()[0]
        parts.append(arr.slice(min(cut, len(arr))))
    if not parts:
        return
    got = concat_strings(parts)
    got.validate(full=True)
    assert got.equals(pa.concat_arrays(parts))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=30))
@example(["abcde", "fghij", "é123"])  # one width in bytes: the column path
@example(["ab12", "cd34", "ef56", "gh78"])
def test_fingerprints_read_each_string_alone(values: list[str]) -> None:
    from scorers.rop.prefilter import fingerprints

    arr = pa.array(values, type=pa.string())
    try:
        arr.to_pylist()
    except UnicodeDecodeError:
        return
    got = fingerprints(arr)
    if sum(len(v.encode("utf-8", "surrogatepass")) for v in values) < 4:
        assert got is None
        return
    assert got is not None
    for value, fp in zip(values, got.tolist(), strict=True):
        raw = value.encode("utf-8", "surrogatepass")
        assert fp == (int.from_bytes(raw[-4:], "little") ^ len(raw)) & 0x7FFFFFFF


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "", "é", "ab"]), max_size=20), st.data())
def test_index_codes_are_positions_among_the_keys(values: list[str], data: Any) -> None:
    keys = data.draw(st.lists(st.sampled_from(["a", "b", "é", "zz"]), unique=True, max_size=4))
    arr, key_arr = pa.array(values, type=pa.string()), pa.array(keys, type=pa.string())
    for start in (0, min(1, len(values))):  # also an array that starts inside its buffers
        part = arr.slice(start)
        want = [keys.index(v) if v in keys else -1 for v in values[start:]]
        assert index_codes(part, key_arr).tolist() == want
