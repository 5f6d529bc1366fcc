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


def concat_strings(parts: list[pa.Array]) -> pa.Array:
    """String arrays joined in order. Arrays without nulls are joined from their buffers,
    twice as fast as `pyarrow.concat_arrays` on the parser's blocks (which carry validity
    bitmaps to merge); raises `pyarrow.ArrowInvalid` over 2 GiB of text, as it does."""
    if any(p.null_count for p in parts):
        return pa.concat_arrays(parts)
    offsets: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
    data: list[memoryview] = []
    size = 0
    for part in parts:
        if not len(part):
            continue
        buffers = part.buffers()
        ends = np.frombuffer(buffers[1], dtype=np.int32)[part.offset : part.offset + len(part) + 1]
        first, last = int(ends[0]), int(ends[-1])
        offsets.append(ends[1:].astype(np.int64) + (size - first))
        if last > first:
            data.append(memoryview(buffers[2])[first:last])  # type: ignore[index]
        size += last - first
    if size >= 1 << 31:
        raise pa.ArrowInvalid("offset overflow while concatenating arrays")
    joined = np.concatenate(offsets).astype(np.int32)
    buffers = [None, pa.py_buffer(joined), pa.py_buffer(b"".join(data))]
    return pa.Array.from_buffers(pa.string(), len(joined) - 1, buffers)


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
