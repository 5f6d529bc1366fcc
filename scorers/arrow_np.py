"""numpy <-> Arrow through raw buffers, and the few Arrow kernels the trec_eval
engine calls, so that path imports neither pandas nor `pyarrow.compute`.

Pure. pyarrow imports pandas (a few tenths of a CPU-second, more than the whole
evaluation of a run by `evaudit trec_eval`) the first time `pa.array`, `pa.scalar`,
`to_numpy` or a compute call with a Python scalar runs: each probes for pandas
objects. Building arrays with `Array.from_buffers` and reading them back with
`np.frombuffer` skips the probe; nothing else about the arrays differs. And
`pyarrow.compute` builds a Python wrapper with a parsed docstring for each of its
~300 kernels on import (about 0.04 CPU-s); the kernels here go through
`call_function`, which needs none of that (`Array.take`/`filter` import it too).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pyarrow as pa

try:  # the kernels without pyarrow.compute's wrappers; the same objects it exports
    _kernels = importlib.import_module("pyarrow._compute")
except ImportError:  # pragma: no cover - a pyarrow that moved its private module
    _kernels = importlib.import_module("pyarrow.compute")
JoinOptions = _kernels.JoinOptions
MatchSubstringOptions = _kernels.MatchSubstringOptions
ScalarAggregateOptions = _kernels.ScalarAggregateOptions
SetLookupOptions = _kernels.SetLookupOptions
SortOptions = _kernels.SortOptions
call_function = _kernels.call_function


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


def repeat_dictionary(text: str, n: int) -> pa.DictionaryArray:
    """`text` n times as a dictionary column (one value, n indices): a run's tag column."""
    return pa.DictionaryArray.from_arrays(
        from_np(np.zeros(n, dtype=np.int32)), repeat_string(text, 1)
    )


def string_scalar(text: str) -> pa.Scalar:
    """`text` as an Arrow string scalar (for compute calls that take one)."""
    return repeat_string(text, 1)[0]


def unique(arr: Any) -> pa.Array:
    return call_function("unique", [arr])


def sort_indices(data: Any, keys: list[tuple[str, str]] | None = None) -> pa.Array:
    """Indices that sort an array ascending, or a table by (column, order) keys."""
    return call_function("sort_indices", [data], SortOptions(keys or [("", "ascending")]))


def index_in(arr: Any, values: Any) -> pa.Array:
    """Position of each value in `values` (null when absent)."""
    return call_function("index_in", [arr], SetLookupOptions(values))


def join(a: Any, b: Any, sep: pa.Scalar) -> pa.Array:
    """a + sep + b, element-wise."""
    return call_function("binary_join_element_wise", [a, b, sep], JoinOptions())


def take(arr: Any, indices: np.ndarray) -> Any:
    return call_function("take", [arr, from_np(np.asarray(indices, dtype=np.int64))])


def keep(arr: Any, mask: np.ndarray) -> Any:
    """The rows where a numpy bool mask is true."""
    return call_function("filter", [arr, from_np(mask)])


def any_starts_with(arr: Any, prefix: str) -> bool:
    hits = call_function("starts_with", [arr], MatchSubstringOptions(prefix))
    return bool(call_function("any", [hits], ScalarAggregateOptions()).as_py())


def min_length(arr: Any) -> int:
    lengths = call_function("binary_length", [arr])
    return int(call_function("min", [lengths], ScalarAggregateOptions()).as_py())
