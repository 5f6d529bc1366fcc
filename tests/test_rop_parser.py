"""The compiled records scan gives the reference loop's results on awkward lines.

Every case is evaluated three ways: the reference loop (stdlib json per line,
`evaluate_reference`), the evaluator (`evaluate`, with the compiled scan forced
on however small the file), and the two parsers' columns through the same
vectorised rules. Lines the scan must not judge itself (duplicate needed keys,
trailing commas, nan/inf spellings, escapes in needed values, BOM, invalid
UTF-8, encoded surrogates) must be handed to the line-by-line parser; random
byte-level mutations of valid lines check that nothing else slips through.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.rop import columns, evaluate_reference, scan_rows, validate
from scorers.rop.columns import RecordColumns, finish, python_columns
from scorers.rop.evaluate import evaluate
from scorers.rop.membership import assign_verdicts
from scorers.rop.scan_rows import fast_rows
from tests.test_rop_helpers import agrees_with_reference, bundle

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
]


def _records(lines: list[str]) -> list[bytes]:
    return [(line + "\n").encode("utf-8", "surrogatepass") for line in lines]


@pytest.fixture(autouse=True)
def _scan_small_files(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`evaluate` takes the compiled scan for files of any size (and small blocks, so
    that files span several blocks)."""
    monkeypatch.setattr(columns, "SCAN_MIN", 0)
    monkeypatch.setattr(scan_rows, "_BLOCK", 64)
    yield


def _check(rows: list[Any], **kw: Any) -> int:
    """Assert the three evaluations agree; returns how many lines the scan read itself."""
    decl, records = agrees_with_reference(*bundle(rows, POP, RESOLVER, **kw))
    slow = python_columns(records, decl.id_path, decl)
    out = fast_rows(records, decl.id_path, decl)
    if out is None:  # the whole file went to the line parser (checked by `evaluate` above)
        return 0
    fast = finish(out[0], decl)
    assert fast.record_ids == slow.record_ids
    assert fast.malformed_lines == slow.malformed_lines
    for membership in ("any", "all"):
        for cutoff in (1, 2, 3):
            a = assign_verdicts(fast, decl.resolver, cutoff, membership).tolist()
            b = assign_verdicts(slow, decl.resolver, cutoff, membership).tolist()
            assert a == b, (membership, cutoff)
    return out[1]


@pytest.mark.parametrize("name,line", OBJECT_LINES, ids=[n for n, _ in OBJECT_LINES])
def test_each_awkward_line_alone(name: str, line: str) -> None:
    _check(_records([line]), selection={"field": "s.key"}, output=OBJ_OUT, id_field="meta.id")


def test_all_awkward_lines_in_one_file() -> None:
    lines = [line for _, line in OBJECT_LINES]
    parsed = _check(
        _records(lines), selection={"field": "s.key"}, output=OBJ_OUT, id_field="meta.id"
    )
    assert 0 < parsed < len(lines)  # the scan took some lines, Python the rest


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


def test_alternatives_and_plain_lists() -> None:
    rows = _records(PLAIN_LINES)
    parsed = _check(rows, selection={"alternatives_field": "alts"}, output=PLAIN_OUT)
    assert parsed >= 6
    for line in PLAIN_LINES:
        _check(_records([line]), selection={"alternatives_field": "alts"}, output=PLAIN_OUT)


def test_invalid_utf8_and_missing_final_newline() -> None:
    good = b'{"record_id": "r0", "alts": ["a1"], "ranking": ["A"]}'
    bad = b'{"record_id": "r1", "alts": ["a1"], "ranking": ["\xff"]}'
    for rows in ([good], [good + b"\n", bad], [bad + b"\n", good + b"\n"]):
        _check(rows, selection={"alternatives_field": "alts"}, output=PLAIN_OUT)


def test_paths_that_overlap_use_the_line_parser() -> None:
    # The id path is a prefix of the selection path: no single strict structure exists.
    rows = _records(['{"record_id": "r0", "ranking": ["A"]}'])
    data, files = bundle(rows, POP, RESOLVER, selection={"field": "record_id.key"})
    check = validate(data, files, "decl.json")
    assert check.declaration is not None and check.records is not None
    assert fast_rows(check.records, check.declaration.id_path, check.declaration) is None
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
    out = fast_rows(check.records, decl.id_path, decl)
    assert out is not None and out[1] == len(lines)
    fast = finish(out[0], decl)
    slow = python_columns(check.records, decl.id_path, decl)
    for cutoff in (1, 2, 3):
        got = assign_verdicts(fast, decl.resolver, cutoff, "any").tolist()
        assert got == assign_verdicts(slow, decl.resolver, cutoff, "any").tolist()
    # r0 FAIL, r1 PASS (xa1 at 2), r2 FAIL (ya1 at 3), r3 FAIL, é FAIL, r4 PASS (ca1 at 2)
    assert assign_verdicts(fast, decl.resolver, 2, "any").tolist() == [6, 5, 6, 6, 6, 5]
    ref = evaluate_reference(decl, check.records).to_json()
    assert evaluate(data, files, "decl.json").to_json()["record_verdicts"] == ref["record_verdicts"]


# ---------------------------------------------------------------- random mutations


def _plain(values: Any) -> list[Any]:
    return values.to_pylist() if isinstance(values, pa.Array) else list(values)


def _same_columns(a: RecordColumns, b: RecordColumns) -> None:
    assert a.record_ids == b.record_ids
    assert a.malformed_lines == b.malformed_lines
    assert a.sel_status.tolist() == b.sel_status.tolist()
    # merged rows keep each parser's selection values together, tied to rows by parents
    sel_a = sorted(zip(a.sel_parents.tolist(), _plain(a.sel_values), strict=True))
    assert sel_a == sorted(zip(b.sel_parents.tolist(), _plain(b.sel_values), strict=True))
    assert a.ret_ok.tolist() == b.ret_ok.tolist()
    assert _plain(a.ret_values) == _plain(b.ret_values)
    assert a.ret_offsets.tolist() == b.ret_offsets.tolist()


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
    b'"ranking"', b'"a1"', b'""', b"\n",
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
        # one byte overwritten: the value keeps its width, so a template line's fast
        # same-width check meets it
        line[at : at + 1] = draw(st.sampled_from(ONE_BYTE))
        return line
    piece = draw(st.sampled_from(PIECES))
    stop = min(len(line), at + draw(st.integers(0, 3)))
    line[at:stop] = piece if draw(st.booleans()) else b""
    return line


ONE_BYTE = [b"\\", b'"', b"\x00", b"\x1f", b"\t", b"\x7f", b"\x80", b"\xc3", b"\xff", b"z"]


@st.composite
def template_file(draw: Any) -> bytes:
    """A valid line, then variants of it: the scan's template path (a line that repeats
    the previous line's bytes between its values) meets near misses of every kind."""
    base = draw(st.sampled_from(BASE_LINES[:4])).encode()
    lines = [base]
    for _ in range(draw(st.integers(1, 6))):
        line = bytearray(base)
        for _ in range(draw(st.integers(0, 2))):
            line = _mutate(draw, line, draw(st.booleans()))
        edge = draw(st.sampled_from(["", "append", "prepend"]))
        if edge:  # bytes after the template's last byte, or before its first
            piece = draw(st.sampled_from([*PIECES, b"}", b" ", b"\r", b"{}"]))
            line = line + piece if edge == "append" else piece + line
        lines.append(bytes(line))
    return b"\n".join(lines) + b"\n"


def _declaration(rows: list[bytes], output: dict[str, Any], selection: dict[str, Any]) -> Any:
    data, files = bundle(
        rows, POP, RESOLVER, selection=selection, output=output, id_field="meta.id"
    )
    check = validate(data, files, "decl.json")
    assert check.declaration is not None, check.problems
    return check.declaration


DECL_OBJECTS = _declaration([b"{}\n"], OBJ_OUT, {"field": "s.key"})
DECL_PLAIN = _declaration(
    [b"{}\n"], {**PLAIN_OUT, "list_field": "out.ranking"}, {"alternatives_field": "s.key"}
)


@settings(max_examples=400, deadline=None)
@given(mutated_file(), st.sampled_from([DECL_OBJECTS, DECL_PLAIN]), st.sampled_from([16, 4096]))
def test_mutated_lines_read_as_python_reads_them(data: bytes, decl: Any, block: int) -> None:
    scan_rows._BLOCK = block  # restored by the autouse fixture
    out = fast_rows(data, decl.id_path, decl)
    assert out is not None
    _same_columns(finish(out[0], decl), python_columns(data, decl.id_path, decl))


@settings(max_examples=500, deadline=None)
@given(template_file(), st.sampled_from([DECL_OBJECTS, DECL_PLAIN]))
def test_lines_near_the_template_read_as_python_reads_them(data: bytes, decl: Any) -> None:
    scan_rows._BLOCK = 1 << 20  # one block: every line after the first meets a template
    out = fast_rows(data, decl.id_path, decl)
    assert out is not None
    _same_columns(finish(out[0], decl), python_columns(data, decl.id_path, decl))
    _fingerprints_match(out[0])


def _fingerprints_match(rows: Any) -> None:
    """The scan's fingerprints are `prefilter.fingerprints` of the same values."""
    from scorers.rop.prefilter import fingerprints

    if rows.ret_fp is not None and isinstance(rows.ret_values, pa.Array):
        expected = fingerprints(rows.ret_values)
        if expected is not None:
            assert rows.ret_fp.tolist() == expected.tolist()


def test_valid_lines_are_read_by_the_scan_itself() -> None:
    # Every unmutated line is valid JSON the scan must accept without the line parser.
    data = ("\n".join(BASE_LINES[:3]) + "\n").encode()
    for line in BASE_LINES[:4]:
        json.loads(line)
    out = fast_rows(data, DECL_OBJECTS.id_path, DECL_OBJECTS)
    assert out is not None and out[1] == 3
    assert out[0].record_ids == ["r0", "r1", "r2"]
    assert np.diff(out[0].ret_offsets).tolist() == [2, 1, 0]
    assert out[0].ret_fp is not None
    _fingerprints_match(out[0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=30))
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


def test_eight_byte_plain_test_equals_the_byte_table() -> None:
    from numba import njit

    from scorers.rop.scan_kernel import PLAIN, _plain8, load_u64

    @njit(cache=False)
    def both(buf: np.ndarray, k: int) -> tuple[int, bool]:
        x = load_u64(buf, k)
        return x, _plain8(x)

    rng = np.random.default_rng(5)
    cases = [bytes([v if j == k else 97 for j in range(8)]) for v in range(256) for k in range(8)]
    cases += [bytes(rng.integers(0, 256, 8, dtype=np.uint8)) for _ in range(2000)]
    picks = np.array([32, 33, 34, 35, 91, 92, 93, 126, 127, 128, 31], dtype=np.uint8)
    cases += [bytes(rng.choice(picks, 8)) for _ in range(2000)]
    for case in cases:
        word, plain = both(np.frombuffer(b"xx" + case + b"yy", dtype=np.uint8), 2)
        assert int(word) == int.from_bytes(case, "little")
        assert plain == all(PLAIN[b] for b in case), case


@pytest.mark.parametrize("decl", [DECL_OBJECTS, DECL_PLAIN], ids=["objects", "plain"])
def test_every_byte_of_every_string_after_a_template(decl: Any) -> None:
    # Each byte inside each string of a template line overwritten by each awkward byte,
    # one variant per line: the same-width fast checks (eight bytes at a time) meet all.
    for base in (BASE_LINES[0], BASE_LINES[3]):
        raw = base.encode()
        quotes = [i for i, b in enumerate(raw) if b == 34]
        lines = [raw]
        for k in range(0, len(quotes) - 1, 2):
            for at in range(quotes[k] + 1, quotes[k + 1]):
                for piece in ONE_BYTE:
                    lines += [raw[:at] + piece + raw[at + 1 :], raw]
        data = b"\n".join(lines) + b"\n"
        scan_rows._BLOCK = 1 << 22
        out = fast_rows(data, decl.id_path, decl)
        assert out is not None
        _same_columns(finish(out[0], decl), python_columns(data, decl.id_path, decl))


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=40), st.data())
def test_gather_copies_spans_and_fingerprints_them(buf: bytes, data: Any) -> None:
    # Spans anywhere, also ending at the buffer's last byte (the eight-byte loads must
    # then fall back to single bytes), kept or not line by line.
    from scorers.rop.scan_kernel import gather

    span = st.integers(0, len(buf) - 1).flatmap(
        lambda a: st.tuples(st.just(a), st.integers(a + 1, len(buf)))
    )
    lines = data.draw(st.lists(st.tuples(st.lists(span, max_size=4), st.booleans()), max_size=6))
    spans = [s for group, _ in lines for s in group]
    offsets, out, per_line, fp = gather(
        np.frombuffer(buf, dtype=np.uint8),
        np.array([a for a, _ in spans], dtype=np.int64),
        np.array([e for _, e in spans], dtype=np.int64),
        np.array([len(group) for group, _ in lines], dtype=np.int64),
        np.array([keep for _, keep in lines], dtype=bool),
    )
    kept = [buf[a:e] for group, keep in lines if keep for a, e in group]
    assert bytes(out) == b"".join(kept)
    assert offsets.tolist() == [0, *itertools.accumulate(len(v) for v in kept)]
    assert per_line.tolist() == [len(group) if keep else 0 for group, keep in lines]
    assert fp.tolist() == [(int.from_bytes(v[-4:], "little") ^ len(v)) & 0x7FFFFFFF for v in kept]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([10, 34, 0, 9, 11, 33, 35, 42, 128, 138, 162, 255]), max_size=70),
    st.data(),
)
def test_count_lines_counts_newlines_and_quotes(values: list[int], data: Any) -> None:
    # Eight bytes per step (a SWAR byte count), then single bytes: any start and end.
    from scorers.rop.scan_kernel import count_lines

    buf = np.array(values, dtype=np.uint8)
    lo = data.draw(st.integers(0, len(values)))
    hi = data.draw(st.integers(lo, len(values)))
    piece = buf[lo:hi]
    assert count_lines(buf, lo, hi) == (int((piece == 10).sum()), int((piece == 34).sum()))
