"""TREC qrels and run lines as trec_eval reads them: the one line reader every TREC
qrels/run parser shares.

trec_eval (version 10) skips lines whose first character is `#` and lines that are
blank, reads exactly 4 whitespace-separated fields from a qrels line
(`qid iteration docno grade`) and the first 6 from a run line
(`qid Q0 docno rank score tag`), ignoring any text after the tag. A `#` inside a
field (`CR#93E-1860`) is part of the field. Everything else is a malformed line,
reported as `file:line: what is wrong`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from scorers.arrow_np import any_starts_with, join, min_length, string_scalar, to_np, unique
from vocabulary.errors import InputError
from vocabulary.jsonlines import text_lines

QREL_WHAT = "a TREC qrel (qid 0 docid grade)"
RUN_WHAT = "a TREC run line (qid Q0 docid rank score tag)"


def is_skipped(line: str) -> bool:
    """A blank line or a `#` comment line (trec_eval skips both)."""
    stripped = line.lstrip()
    return not stripped or stripped.startswith("#")


def trec_fields(
    path: Path,
    nfields: int,
    what: str,
    *,
    extra_ok: bool,
    checks: tuple[tuple[int, type, str], ...] = (),
) -> Iterator[tuple[int, list[str]]]:
    """(line number, first `nfields` fields) of every line that is not blank or a comment.

    `extra_ok` accepts text after the last field (trec_eval's run lines); `checks`
    are (field index, int or float, label) conversions a line must pass.
    """
    for lineno, line in text_lines(path):
        if is_skipped(line):
            continue
        parts = line.split()
        if len(parts) < nfields or (len(parts) > nfields and not extra_ok):
            raise InputError(
                f"expected {nfields} fields for {what}, found {len(parts)}",
                file=path,
                line=lineno,
            )
        for idx, typ, label in checks:
            try:
                typ(parts[idx])
            except ValueError:
                raise InputError(
                    f"{label} {parts[idx]!r} is not a valid {typ.__name__}", file=path, line=lineno
                ) from None
        yield lineno, parts[:nfields]


def data_line_of(path: Path, row_index: int) -> int:
    """1-based file line of the row_index-th (0-based) line that is not blank or a comment."""
    seen = -1
    for lineno, line in text_lines(path):
        if not is_skipped(line):
            seen += 1
            if seen == row_index:
                return lineno
    return 0


def first_data_line(path: Path) -> str:
    """The first line that is not blank or a comment, stripped ('' when there is none)."""
    for _, line in text_lines(path):
        if not is_skipped(line):
            return line.strip()
    return ""


_STR = pa.string()
# Columns of few distinct values (query ids, Q0, tags) read as dictionaries: a 4-byte code
# per row instead of a string, and the checks below run on each value once.
_DICT = pa.dictionary(pa.int32(), pa.string())


def _arrow_trec(path: Path, types: list[pa.DataType]) -> pa.Table | None:
    """Read a single-space separated TREC file with pyarrow, or None when it is not that clean.

    None sends the caller down the line reader above, which accepts any whitespace,
    comments and text after a run's tag and names the first bad line; so this fast
    path never changes what is accepted.
    """
    names = [f"c{i}" for i in range(len(types))]
    try:
        table = pacsv.read_csv(
            path,
            # one thread: as fast on a file of a few MB, and less CPU on a shared machine
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, double_quote=False, escape_char=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict(zip(names, types, strict=True)),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    if table.num_rows == 0 or any(table.column(i).null_count for i in range(len(types))):
        return None
    if any_starts_with(_values(table.column(0)), "#"):
        return None  # a comment line that happens to have the right number of fields
    for i, typ in enumerate(types):
        # An empty id means two spaces in a row; let the line reader handle it.
        if typ in (_STR, _DICT) and min_length(_values(table.column(i))) == 0:
            return None
    return table


def _values(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """The strings a check must see: a dictionary column's dictionaries (each value once)."""
    if pa.types.is_dictionary(column.type):
        return pa.chunked_array([c.dictionary for c in column.chunks], type=pa.string())
    return column


def _has_duplicate_pairs(qids: pa.ChunkedArray, dids: pa.ChunkedArray) -> bool:
    """Whether any (query, document) pair repeats: one hash pass over joined ids."""
    pairs = join(qids, dids, string_scalar("\x00"))
    return len(unique(pairs)) != len(pairs)


def arrow_qrels(path: Path) -> tuple[Any, Any, np.ndarray] | None:
    """Clean TREC qrels as Arrow columns (query ids, doc ids) and numpy grades (negative
    grades kept), without pandas; None for anything the line reader must take."""
    table = _arrow_trec(path, [_STR, _STR, _STR, pa.int64()])
    if table is None or _has_duplicate_pairs(table.column(0), table.column(2)):
        return None
    return table.column(0), table.column(2), to_np(table.column(3))


def arrow_run(
    path: Path, *, duplicates: bool = True, compact: bool = False
) -> tuple[Any, Any, np.ndarray, str] | None:
    """A clean TREC run as Arrow columns, numpy scores and the first tag; None otherwise.

    duplicates=False leaves the (query, document) repeat check to the caller (the
    trec_eval engine finds repeats on integer keys it builds anyway). compact=True returns
    the query ids as a dictionary-encoded column (what fusion reads; same acceptance)."""
    if not path.is_file() or path.stat().st_size == 0:
        return None
    ids = _DICT if compact else _STR
    table = _arrow_trec(path, [ids, ids, _STR, pa.int64(), pa.float64(), ids])
    if table is None:
        return None
    qids = table.column(0)
    if duplicates and _has_duplicate_pairs(qids.cast(_STR), table.column(2)):
        return None
    return qids, table.column(2), to_np(table.column(4)), str(table.column(5)[0].as_py())
