"""The block guards of `vocabulary.jsonblocks` against plain definitions and Arrow itself.

The property that matters: when `vouched_lines` vouches for a block and Arrow's JSON
reader reads one record per line of it, `json.loads` reads every one of those lines.
It is tested with Arrow skipping every field (where it checks least), on lines built from
the pieces on which the two readers are known to differ.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pajson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vocabulary.jsonblocks import (
    DEEP,
    arrow_only_constant,
    clean_breaks,
    deepest,
    line_blocks,
    nests_deeper,
    utf8,
    vouched_lines,
)

SKIP_ALL = pajson.ParseOptions(
    explicit_schema=pa.schema([pa.field("zz_none", pa.string())]),
    unexpected_field_behavior="ignore",
)


def arrow_rows(block: bytes) -> int | None:
    """How many records Arrow reads from `block`, skipping every field; None if it refuses."""
    options = pajson.ReadOptions(use_threads=False, block_size=len(block) + 1)
    try:
        return pajson.read_json(
            pa.BufferReader(block), read_options=options, parse_options=SKIP_ALL
        ).num_rows
    except pa.ArrowInvalid:
        return None


def stdlib_reads(line: bytes) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


# ---------------------------------------------------------------- UTF-8


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


UTF8_CASES = [
    b"",
    b"plain",
    "é€𝄞 text".encode(),
    b"ok \xff",
    "é".encode()[:1],
    b"\xed\xa0\x80",  # an encoded surrogate
    b"\xed\x9f\xbf",  # the last code point before the surrogates
    b"\xee\x80\x80",  # the first after them
    b"\xc0\x80",  # overlong NUL
    b"\xc1\xbf",
    b"\xc2\x80",
    b"\xe0\x9f\xbf",  # overlong
    b"\xe0\xa0\x80",
    b"\xf0\x8f\xbf\xbf",  # overlong
    b"\xf0\x90\x80\x80",
    b"\xf4\x8f\xbf\xbf",  # U+10FFFF
    b"\xf4\x90\x80\x80",  # over U+10FFFF
    b"\xf5\x80\x80\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\x80",
    b"a\xe2\x82",  # cut short at the end
]


@pytest.mark.parametrize("data", UTF8_CASES)
def test_utf8_agrees_with_python_on_the_boundaries(data: bytes) -> None:
    assert utf8(data) is _decodes(data)


def test_utf8_agrees_with_python_on_every_two_byte_sequence_and_lead_patterns() -> None:
    tails = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
    cases = [bytes([a, b]) for a in range(256) for b in range(256)]
    cases += [bytes([a, b, c]) for a in range(0xE0, 0x100) for b in range(256) for c in tails]
    cases += [
        bytes([a, b, c, d])
        for a in range(0xF0, 0x100)
        for b in range(256)
        for c in tails[3:9]
        for d in (0x80, 0xBF, 0x41)
    ]
    wrong = [c for c in cases if utf8(c) is not _decodes(c)]
    assert wrong == []


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=12))
def test_utf8_agrees_with_python_on_random_bytes(data: bytes) -> None:
    assert utf8(data) is _decodes(data)


# ---------------------------------------------------------------- line boundaries


def counted_lines(block: bytes) -> int:
    """The definition the NumPy check replaced: substring counts."""
    if not block.startswith(b"{") or not (block.endswith(b"}") or block.endswith(b"}\r")):
        return 0
    breaks = block.count(b"\n")
    if block.count(b"}\n{") + block.count(b"}\r\n{") != breaks:
        return 0
    return breaks + 1


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from([b"{", b"}", b"\n", b"\r", b"a", b" "]), max_size=14))
@example([b"{", b"}", b"\r", b"\n", b"{", b"}"])
@example([b"{", b"\r", b"\n", b"{", b"}"])
@example([b"{", b"}", b"\r"])
def test_clean_breaks_count_lines_as_substring_counts_do(pieces: list[bytes]) -> None:
    block = b"".join(pieces)
    breaks = clean_breaks(np.frombuffer(block, dtype=np.uint8))
    assert (0 if breaks is None else len(breaks) + 1) == counted_lines(block)


def test_line_blocks_cover_the_data_in_whole_lines() -> None:
    data = b"".join(b"{%d}\n" % i for i in range(500)) + b"{end}"
    for size in (1, 7, 100, 1 << 20):
        spans = list(line_blocks(data, size))
        assert b"".join(data[a:b] for a, b in spans) == data
        assert all(data[b - 1] == 10 for _, b in spans[:-1])


# ---------------------------------------------------------------- depth


def depth(value: Any) -> int:
    """How deep a decoded JSON value nests (without recursion: the values go deep)."""
    deepest_seen, todo = 0, [(value, 0)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            level += 1
            todo += [(v, level) for v in (item.values() if isinstance(item, dict) else item)]
        deepest_seen = max(deepest_seen, level)
    return deepest_seen


TRICKY_TEXT = st.text(alphabet='ab"\\{}[]\n\t\u00e9', max_size=6)
VALUES = st.recursive(
    st.none() | st.integers(-5, 5) | TRICKY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY_TEXT, inner, max_size=3),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.dictionaries(TRICKY_TEXT, VALUES, max_size=4), min_size=1, max_size=4))
def test_deepest_is_the_nesting_of_the_deepest_line(objects: list[dict[str, Any]]) -> None:
    for ascii_only in (True, False):
        block = "\n".join(json.dumps(o, ensure_ascii=ascii_only) for o in objects).encode()
        data = np.frombuffer(block, dtype=np.uint8)
        assert deepest(data) == max(depth(o) for o in objects)


def _line(inner: bytes) -> bytes:
    return b'{"id": "r", "x": ' + inner + b', "s": "a\\"[[[{{{\\\\"}'


@pytest.mark.parametrize(
    "inner,deep",
    [
        (b"[" * (DEEP - 1) + b"]" * (DEEP - 1), True),  # with the line's object: DEEP
        (b"[" * (DEEP - 2) + b"]" * (DEEP - 2), False),
        (b'[{"k": ' * 300 + b"1" + b"}]" * 300, True),
        (b'"' + b"[" * 2000 + b'"', False),  # brackets inside a string
        (b"[" + b", ".join([b'{"o": "[["}'] * 1500) + b"]", False),  # long, shallow
    ],
)
def test_nests_deeper_only_when_a_line_nests_deep(inner: bytes, deep: bool) -> None:
    line = _line(inner)
    assert stdlib_reads(line)
    block = b"\n".join([_line(b"1"), line, _line(b"2")])
    data = np.frombuffer(block, dtype=np.uint8)
    breaks = clean_breaks(data)
    assert breaks is not None
    assert nests_deeper(block, data, breaks) is (depth(json.loads(line)) >= DEEP)
    assert nests_deeper(block, data, breaks) is deep


# ---------------------------------------------------------------- constants


@pytest.mark.parametrize(
    "value,flagged",
    [
        (b"Inf", True),
        (b"-Inf", True),
        (b"-NaN", True),
        (b"[1, Inf]", True),
        (b"[\n-Inf ]", True),
        (b"NaN", False),
        (b"Infinity", False),
        (b"-Infinity", False),
        (b'"Information"', False),
        (b'"Inflation, Inf"', False),  # inside a string, not after a delimiter
        (b'"a, Inf "', True),  # in a string, after a comma, before a blank: harmless
    ],
)
def test_arrow_only_constants(value: bytes, flagged: bool) -> None:
    line = b'{"a": ' + value + b"}"
    assert arrow_only_constant(line) is flagged
    if flagged and not value.startswith(b'"'):
        assert arrow_rows(line) == 1 and not stdlib_reads(line)  # why the guard exists


# ---------------------------------------------------------------- all guards together

PIECES = [
    b'{"a": 1}',
    b'{"a": [1, {"b": null}], "c": "x"}',
    b"NaN",
    b"Inf",
    b"-Inf",
    b"-NaN",
    b"Infinity",
    b"-Infinity",
    b"1e999",
    b"9" * 700,
    b"[" * 600,
    b"]" * 600,
    b"[" * 1200,
    b"]" * 1200,
    b"\xff",
    b"\xed\xa0\x80",
    "é".encode(),
    b'"',
    b"\\",
    b",",
    b":",
    b"{",
    b"}",
    b"[",
    b"]",
    b"\n",
    b"\r\n",
    b" ",
    b'"k"',
    b"\xef\xbb\xbf",
]


def _lines(draw: Any) -> bytes:
    template = draw(st.sampled_from([b'{"k": %s}', b'{"k": [%s]}', b'{"k": 1, "v": %s, "w": 2}']))
    inner = b"".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=5)))
    return template.replace(b"%s", inner)


@st.composite
def near_json_blocks(draw: Any) -> bytes:
    return b"\n".join(_lines(draw) for _ in range(draw(st.integers(1, 3))))


@settings(max_examples=1500, deadline=None)
@given(near_json_blocks())
@example(b'{"k": Inf}')
@example(b'{"k": [' + b"[" * 1200 + b"]" * 1200 + b"]}")
@example(b'{"k": 1, "v": 99' + b"9" * 700 + b', "w": 2}')
@example(b'{"k": "\xff"}')
@example(b'{"k": 1} {"k": 2}\n{"k": 3}')
def test_a_vouched_block_arrow_reads_is_read_by_json_loads(block: bytes) -> None:
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)  # the smallest limit, so that 700 digits are too many
    try:
        lines = vouched_lines(block)
        rows = arrow_rows(block)
        if lines and rows == lines:
            assert all(stdlib_reads(line) for line in block.split(b"\n")), block
    finally:
        sys.set_int_max_str_digits(old)


def test_the_property_sees_blocks_arrow_alone_would_misread() -> None:
    # Without the guards Arrow's count would be trusted on each of these.
    misread = [
        b'{"k": Inf}',
        b'{"k": [' + b"[" * 1200 + b"]" * 1200 + b"]}",
        b'{"k": "\xff"}',
    ]
    for block in misread:
        assert arrow_rows(block) == 1 and not stdlib_reads(block)
        assert vouched_lines(block) == 0
