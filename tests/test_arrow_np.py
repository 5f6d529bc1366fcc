"""scorers.arrow_np: Arrow numbers to numpy and back without pyarrow's pandas shim (the
cases fusion and the run writer rely on)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from scorers.arrow_np import from_np, repeat_dictionary, to_np


def test_numbers_read_sliced_and_chunked_columns() -> None:
    base = pa.array(np.arange(10, dtype=np.float64))
    col = pa.chunked_array([base.slice(2, 3), base.slice(7)])
    assert to_np(col).tolist() == [2.0, 3.0, 4.0, 7.0, 8.0, 9.0]
    assert to_np(pa.array([1, 2], type=pa.int32()).slice(1)).tolist() == [2]
    assert to_np(pa.array([1, None]), null=0).tolist() == [1, 0]
    assert to_np(pa.chunked_array([], type=pa.int64())).tolist() == []


def test_from_np_and_repeat_dictionary_build_the_arrays_pyarrow_would() -> None:
    assert from_np(np.array([3, 1], dtype=np.int64)).equals(pa.array([3, 1], type=pa.int64()))
    assert from_np(np.arange(6)[::2]).to_pylist() == [0, 2, 4]  # non-contiguous input copied
    col = repeat_dictionary("Q0", 3)
    assert col.to_pylist() == ["Q0"] * 3 and col.dictionary.to_pylist() == ["Q0"]
