"""Arrow columns of numbers as numpy arrays without pyarrow's pandas shim.

pyarrow's `to_numpy` checks for pandas on first use, which imports it: 0.3-0.5 s of
start-up for a command (`runs fuse`) that never needs pandas. A column of fixed-width
numbers without nulls is its values buffer, read here directly (zero-copy per chunk).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

_DTYPES = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.uint32(): np.uint32,
    pa.uint64(): np.uint64,
    pa.float64(): np.float64,
}


def numbers(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The numbers of an Arrow array or chunked array (nulls or other types: to_numpy)."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    dtype = _DTYPES.get(values.type)
    if dtype is None or any(c.null_count for c in chunks):
        return np.asarray(values.to_numpy(zero_copy_only=False))
    parts: list[Any] = [
        np.frombuffer(c.buffers()[1], dtype, len(c), c.offset * np.dtype(dtype).itemsize)
        for c in chunks
    ]
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


_TYPES = {np.dtype(v): k for k, v in _DTYPES.items()}


def arrow(values: np.ndarray) -> pa.Array:
    """A numpy array of numbers as an Arrow array (zero-copy; pa.array would import pandas)."""
    arr = np.ascontiguousarray(values)
    typ = _TYPES.get(arr.dtype)
    if typ is None:
        return pa.array(arr)
    return pa.Array.from_buffers(typ, len(arr), [None, pa.py_buffer(arr)])


def text(value: str, n: int) -> pa.DictionaryArray:
    """One string n times, as a dictionary column (built from buffers, as ``arrow``)."""
    data = value.encode("utf-8")
    offsets = np.array([0, len(data)], dtype=np.int32)
    values = pa.Array.from_buffers(
        pa.string(), 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    return pa.DictionaryArray.from_arrays(arrow(np.zeros(n, dtype=np.int32)), values)
