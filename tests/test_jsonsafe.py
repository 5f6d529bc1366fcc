"""`dumps_indented` writes exactly what `json.dumps(json_safe(v), indent=2)` writes."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vocabulary.jsonsafe import dumps_indented, json_safe


def definition(value: Any) -> str:
    return json.dumps(json_safe(value), indent=2, sort_keys=False, ensure_ascii=False)


class Colour(enum.IntEnum):
    RED = 1


class Name(enum.StrEnum):
    A = "a"


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["é", "\u2028", '"\\', "\x00", "</script>", "𝔘"]),
    st.builds(np.float64, st.floats(allow_nan=True, allow_infinity=True)),
    st.builds(np.int64, st.integers(min_value=-(2**40), max_value=2**40)),
    st.builds(np.bool_, st.booleans()),
    st.just(Colour.RED),
)
keys = st.one_of(st.text(max_size=5), st.integers(-3, 3), st.booleans(), st.none(), st.just(Name.A))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(keys, inner, max_size=5),
    ),
    max_leaves=40,
)


@settings(max_examples=600, deadline=None)
@given(values)
def test_same_text_as_the_standard_library(value: Any) -> None:
    assert dumps_indented(value) == definition(value)


def test_cases_that_take_each_path() -> None:
    cases: list[Any] = [
        {},
        [],
        {"a": {}},
        {"a": []},
        {"verdicts": {f"r{i}": "hit" if i % 2 else "miss" for i in range(50)}},
        {"x": [1, 2.5, None, True, "s"]},
        {"x": [1.0, math.nan]},  # a NaN forces the walk: it becomes null
        {"x": {"f": math.inf, "g": 1}},
        {1: "one", "1": "string one"},  # json_safe's str(k) makes these one key
        {True: 1, None: 2},
        (1, (2, 3), [4, {"k": (5,)}]),
        {"n": np.float64(0.1), "m": np.int32(3), "nan": np.float64("nan")},
        "plain",
        3,
        None,
    ]
    for value in cases:
        assert dumps_indented(value) == definition(value), value
