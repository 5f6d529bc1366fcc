"""numpy <-> Arrow through raw buffers, so the trec_eval path never imports pandas.

Pure. pyarrow imports pandas (about 0.4 CPU-s, the largest start-up cost of a
`evaudit trec_eval` process) the first time `pa.array`, `pa.scalar`, `to_numpy` or a
compute call with a Python scalar runs: each probes for pandas objects. Building
arrays with `Array.from_buffers` and reading them back with `np.frombuffer` skips the
probe; nothing else about the arrays differs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa


def flat(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous array (a ChunkedArray's chunks combined)."""
    if isinstance(arr, pa.ChunkedArray):
        return arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    return arr


def from_np(x: np.ndarray) -> pa.Array:
    """A numeric numpy array (int, float) as an Arrow array, without copying."""
    x = np.ascontiguousarray(x)
    if x.dtype == np.bool_:
        bits = np.packbits(x, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(x), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(x.dtype), len(x), [None, pa.py_buffer(x)])


def _validity(arr: pa.Array) -> np.ndarray:
    buf = arr.buffers()[0]
    bits = np.unpackbits(np.frombuffer(buf, dtype=np.uint8), bitorder="little")
    return bits[arr.offset : arr.offset + len(arr)].astype(bool)


_NUMPY = {
    t.id: np.dtype(d)
    for t, d in [
        (pa.int8(), np.int8), (pa.int16(), np.int16), (pa.int32(), np.int32),
        (pa.int64(), np.int64), (pa.uint8(), np.uint8), (pa.uint16(), np.uint16),
        (pa.uint32(), np.uint32), (pa.uint64(), np.uint64), (pa.float32(), np.float32),
        (pa.float64(), np.float64),
    ]
}  # fmt: skip


def to_np(arr: pa.Array | pa.ChunkedArray, null: Any = None) -> np.ndarray:
    """A numeric or boolean Arrow array as numpy (read-only for numbers); nulls become
    `null`, which must be given when the array has any."""
    a = flat(arr)
    n, off = len(a), a.offset
    if n == 0 or a.buffers()[1] is None:
        return np.zeros(n, dtype=bool if pa.types.is_boolean(a.type) else _NUMPY[a.type.id])
    if pa.types.is_boolean(a.type):
        bits = np.unpackbits(np.frombuffer(a.buffers()[1], dtype=np.uint8), bitorder="little")
        out: np.ndarray = bits[off : off + n].astype(bool)
    else:
        out = np.frombuffer(a.buffers()[1], dtype=_NUMPY[a.type.id], count=off + n)[off:]
    if a.null_count:
        if null is None:
            raise ValueError("array has nulls and no fill value was given")
        out = np.where(_validity(a), out, null)
    return out


def repeat_string(text: str, n: int) -> pa.Array:
    """`text` n times as an Arrow string array."""
    raw = text.encode()
    offsets = np.arange(n + 1, dtype=np.int32) * len(raw)
    return pa.Array.from_buffers(
        pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(raw * n)]
    )


def string_scalar(text: str) -> pa.Scalar:
    """`text` as an Arrow string scalar (for compute calls that take one)."""
    return repeat_string(text, 1)[0]
