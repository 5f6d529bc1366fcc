"""Writing TREC runs, and page ids inside a run's docno (`doc_id#page`).

Reading stays in `formats.readers.read_run`; this module writes what
`evaudit runs fuse` and `evaudit runs compose` produce, atomically (a
temporary file in the same folder, renamed), so a failed write leaves nothing.
Scores are written as the shortest text that reads back to the same float.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from scorers.arrow_np import from_np, repeat_dictionary
from vocabulary.errors import InputError

PAGE_SEP = "#"


def write_run(path: Path, query_id: Any, doc_id: Any, rank: Any, score: Any, tag: str) -> int:
    """Write `qid Q0 docid rank score tag` lines; returns the number of lines."""
    _check_tag(tag)
    n = len(rank)
    table = pa.table(
        {
            "q": _strings(query_id),
            "z": repeat_dictionary("Q0", n),
            "d": _strings(doc_id),
            "r": _ints(rank),
            "s": from_np(np.asarray(score, dtype=np.float64)),
            "t": repeat_dictionary(tag, n),
        }
    )
    return _write_table(Path(path), table)


def write_coded_run(
    path: Path, query_ids: Sequence[str], query_of: np.ndarray, doc_ids: Sequence[str],
    doc_of: np.ndarray, rank: np.ndarray, score: np.ndarray, tag: str,
) -> int:  # fmt: skip
    """`write_run` of rows given as indices: line i is query_ids[query_of[i]],
    doc_ids[doc_of[i]], rank[i], score[i]; the same bytes.

    Every column is built from numpy buffers, the text ones as dictionary columns that
    the CSV writer expands, with no Python object per line (`pa.array` on a million
    strings, and the pandas import it starts, were most of the time of writing a
    baseline run; `Array.take` would import pyarrow.compute).
    """
    _check_tag(tag)
    n = len(rank)
    zeros = np.zeros(n, np.int64)
    table = pa.table(
        {
            "q": _coded(query_ids, query_of),
            "z": _coded(["Q0"], zeros),
            "d": _coded(doc_ids, doc_of),
            "r": _ints(rank),
            "s": from_np(np.asarray(score, dtype=np.float64)),
            "t": _coded([tag], zeros),
        }
    )
    return _write_table(Path(path), table)


def _coded(values: Sequence[str], index: np.ndarray) -> pa.Array:
    return pa.DictionaryArray.from_arrays(_ints(index), _strings(values))


def _ints(values: np.ndarray) -> pa.Array:
    return from_np(np.asarray(values, dtype=np.int64))


def _strings(values: Any) -> pa.Array | pa.ChunkedArray:
    """Arrow ids stay Arrow; a sequence of str is built from buffers (`pa.array` on a
    million strings, and the pandas import it starts, cost most of a write)."""
    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values
    encoded = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.large_string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])  # fmt: skip


def _check_tag(tag: str) -> None:
    if not tag or any(ch.isspace() for ch in tag):
        raise InputError(f"run tag {tag!r} must be one word", hint="pass --tag NAME")


def _write_table(path: Path, table: pa.Table) -> int:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as fh:
            pacsv.write_csv(
                table,
                fh,
                write_options=pacsv.WriteOptions(
                    include_header=False, delimiter=" ", quoting_style="none"
                ),
            )
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write the run ({exc.strerror})", file=path) from exc
    return table.num_rows


def read_run_columns(
    path: Path, *, check_pairs: bool = True, compact: bool = False
) -> tuple[pa.Array, pa.Array, np.ndarray, str]:
    """A TREC run as Arrow columns (query ids, doc ids), numpy scores and the first tag.

    The same acceptance and errors as `readers.read_run`: clean single-space
    files take its Arrow fast path and stay Arrow (no Python string per row,
    which is most of the cost of reading 70 runs); anything else goes through
    `read_run` itself, which names the bad line. `check_pairs=False` leaves a repeated
    (query, document) pair on the fast path to the caller (RRF finds repeats in its own
    sort; `read_run(path)` then names the line). `compact=True` may return the query ids
    dictionary-encoded (fusion; any Arrow string-like column is accepted there).
    """
    from formats.trec_lines import arrow_run

    path = Path(path)
    fast = arrow_run(path, duplicates=check_pairs, compact=compact)
    if fast is not None:
        return fast
    from formats.readers import read_run

    df = read_run(path)
    return (
        pa.array(df["query_id"].to_numpy(dtype=object), type=pa.string()),
        pa.array(df["doc_id"].to_numpy(dtype=object), type=pa.string()),
        df["score"].to_numpy(dtype=np.float64),
        str(df["tag"].iloc[0]),
    )


def is_page_run(doc_ids: Any) -> bool:
    """Every docno is DOC_ID#PAGE with a page number >= 1 (a page-level run, docs/formats.md)."""
    import pandas as pd

    arr = np.asarray(doc_ids, dtype=object)
    if not len(arr) or PAGE_SEP not in str(arr[0]):  # a document run is told at once
        return False
    docnos = pd.Series(arr, dtype=object).astype(str)
    return bool(docnos.str.fullmatch(r".+#0*[1-9][0-9]*").all())


def split_page_ids(doc_ids: Any, source: str) -> tuple[np.ndarray, np.ndarray]:
    """`doc_id#page` docnos as (doc ids, 1-based page numbers); the last '#' splits.

    A docno without '#', or with a page that is not a positive integer, is an
    error naming the run file (page-level runs are stated in docs/formats.md).
    """
    arr = np.asarray(doc_ids, dtype=object)
    docs = np.empty(len(arr), dtype=object)
    pages = np.empty(len(arr), dtype=np.int64)
    for i, docno in enumerate(arr):
        doc, sep, page = str(docno).rpartition(PAGE_SEP)
        if not sep or not doc or not page.isdigit() or int(page) < 1:
            raise InputError(
                f"docno {docno!r} is not DOC_ID#PAGE with a page number >= 1",
                file=source,
                hint="a page-level run names pages as doc_id#page",
            )
        docs[i] = doc
        pages[i] = int(page)
    return docs, pages
