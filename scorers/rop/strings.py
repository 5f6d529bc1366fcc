"""Python strings -> an Arrow string array, without `pyarrow.array` where the text is ASCII.

`pyarrow.array` on a Python list imports pandas the first time it runs (to test for
pandas objects), and so does `Array.to_numpy(zero_copy_only=False)`: a third of a
second, and more on a cold bytecode cache. ASCII text needs no encoding step: one join
gives the data buffer and the lengths give the offsets; integer results are read
straight from their buffers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

Values: TypeAlias = list[str] | pa.Array


def strings(values: Sequence[str]) -> Values:
    """An Arrow string array, or the Python list when Arrow cannot hold the values (a lone
    surrogate, JSON "\\ud800", is a valid Python string but no UTF-8)."""
    if isinstance(values, pa.Array):
        return values
    text = "".join(values)
    if text.isascii() and len(text) < 1 << 31:  # one byte per character: lengths are offsets
        offsets = np.zeros(len(values) + 1, dtype=np.int32)
        np.cumsum(np.fromiter(map(len, values), dtype=np.int32, count=len(values)), out=offsets[1:])
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(text.encode("ascii"))]
        return pa.Array.from_buffers(pa.string(), len(values), buffers)
    try:
        return pa.array(values, type=pa.string())
    except UnicodeEncodeError:
        return list(values)


def positions(values: np.ndarray) -> pa.Array:
    """An int64 NumPy array as an Arrow array (no copy)."""
    return pa.Array.from_buffers(
        pa.int64(), len(values), [None, pa.py_buffer(np.ascontiguousarray(values, dtype=np.int64))]
    )


def index_codes(values: pa.Array, keys: pa.Array) -> np.ndarray:
    """Position of each value among `keys` (int32), -1 when absent."""
    codes = pc.index_in(values, value_set=keys)
    validity, data = codes.buffers()
    lo, hi = codes.offset, codes.offset + len(codes)
    out = np.frombuffer(data, dtype=np.int32)[lo:hi].copy()
    if codes.null_count:  # absent (null); `fill_null` would import pandas for its scalar
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        out[~bits[lo:hi].astype(bool)] = -1
    return out
