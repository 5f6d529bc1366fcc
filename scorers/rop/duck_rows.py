"""The fast records parser: DuckDB's JSON functions over every line at once.

Each line of the file becomes one row of a zero-copy Arrow string column (line
numbers are exact: lines are split on ``\\n`` as the line-by-line parser does).
DuckDB's ``json_transform_strict`` extracts every field the declaration needs
with its leaves typed ``JSON``, so a value keeps its JSON type and is never
converted: a leaf is a usable string only when its JSON text is a string
(``5`` or ``true`` is not an id, exactly as in the reference loop).

A line goes to the line-by-line parser (stdlib ``json``) instead when DuckDB
cannot vouch for it:

* ``json_transform_strict`` fails: not JSON, not an object, a needed key missing
  or given twice (Python keeps the last duplicate, DuckDB the first), an
  intermediate value of the wrong JSON type, a blank line;
* it matches a guard for the two extensions DuckDB's parser accepts and Python's
  rejects: trailing commas and ``nan``/``inf`` spellings other than Python's;
* a needed string value contains a backslash escape (decoded by Python then).

Any other surprise (DuckDB error, paths that overlap) returns None and the whole
file takes the line-by-line parser. Pure: an in-memory DuckDB connection only.
"""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorers.rop.columns import RawRows, merge_rows, python_rows
from scorers.rop.declaration import Declaration
from scorers.rop.verdicts import SELECTOR_ERROR

_SCAN_BLOCK = 1 << 22  # newline scan: 4 MiB blocks, one thread per core
_PAIR_BLOCK = 1 << 18  # guard-pair scan: 256 KiB pieces stay in cache
_BATCH_ROWS = 1 << 15  # Arrow batches: DuckDB scans them in parallel
# Trailing commas and non-Python nan/inf spellings (false positives only cost speed).
# One literal first character per pattern lets RE2 skip ahead with memchr.
_NAN_INF = r"\s*[-+]?(?i:nan|inf)"
_GUARDS = (r",\s*(?:[\]}]|[-+]?(?i:nan|inf))", ":" + _NAN_INF, r"\[" + _NAN_INF)


class _Unsupported(Exception):
    """The declaration's paths cannot be expressed as one strict structure."""


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _put(tree: dict[str, Any], path: tuple[str, ...], leaf: Any) -> None:
    node = tree
    for key in path[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise _Unsupported
        node = child
    if path[-1] in node and node[path[-1]] != leaf:
        raise _Unsupported
    node[path[-1]] = leaf


def _query(id_path: tuple[str, ...], decl: Declaration | None) -> str:
    """SQL over table `lines`: line index, has-backslash flag, the strict structure `j`.

    The guards' regular expressions only run on lines flagged `g` (a cheap byte test).
    """
    tree: dict[str, Any] = {}
    _put(tree, id_path, "JSON")
    if decl is not None:
        sel = decl.selection
        _put(tree, sel.path, ["JSON"] if sel.kind == "alternatives" else "JSON")
        if sel.kind == "witness":
            _put(tree, sel.binding_path, "JSON")
        element = "JSON" if decl.element_id_field is None else {decl.element_id_field: "JSON"}
        _put(tree, decl.list_path, [element])
    structure = _sql_str(json.dumps(tree))
    guards = " OR ".join(f"regexp_matches(line, {_sql_str(g)})" for g in _GUARDS)
    return f"""
        SELECT i, contains(line, '\\') AS bs,
               CASE WHEN g AND ({guards}) THEN NULL
                    ELSE try(json_transform_strict(line, {structure})) END AS j
        FROM lines"""


def _pairs(block: np.ndarray) -> np.ndarray:
    """Offsets k where bytes (k, k + 1) of `block` may start a guard's match.

    Every match of a guard holds such a pair: before ``n``/``N``/``i``/``I`` (nan,
    inf) comes a separator ``,:[``, whitespace or a sign; before ``]``/``}`` (a
    trailing comma) comes ``,`` or whitespace. The test is a superset (any byte up
    to space, ``(`` to ``/``, ``:`` or ``[``, then one of ``nNiI]}``); a line with
    such a pair only goes on to the exact regular expressions.
    """
    low = block[1:] | 0x20  # N->n, I->i, ]->}
    second = (low == 110) | (low == 105) | (low == 125)
    if not second.any():
        return np.zeros(0, dtype=np.int64)
    first = block[:-1]
    first = (first <= 32) | ((first & 0xF8) == 40) | (first == 58) | (first == 91)
    return np.flatnonzero(first & second)


def _scan(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(offsets of every b"\n", offsets of the second byte of every guard pair), scanned
    in blocks on all cores (NumPy releases the GIL)."""
    arr = np.frombuffer(data, dtype=np.uint8)

    def scan(start: int) -> tuple[np.ndarray, np.ndarray]:
        nl = np.flatnonzero(arr[start : start + _SCAN_BLOCK] == 10) + start
        # Pairs in L2-sized pieces (several passes each), one byte more: pairs across pieces
        stop = min(start + _SCAN_BLOCK, len(arr))
        found = [
            _pairs(arr[k : k + _PAIR_BLOCK + 1]) + (k + 1) for k in range(start, stop, _PAIR_BLOCK)
        ]
        return nl, np.concatenate(found)

    starts = range(0, len(arr), _SCAN_BLOCK)
    workers = min(os.cpu_count() or 1, 8, max(len(starts), 1))
    if workers <= 1:
        parts = [scan(s) for s in starts]
    else:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(scan, starts))
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])


def _line_table(data: bytes) -> tuple[pa.Table, np.ndarray, np.ndarray]:
    """(table of `i`, `line`, `g` in batches, line starts, line ends) for the lines of
    `data`; `g` marks the lines holding a guard pair (see `_pairs`)."""
    nl, pairs = _scan(data)
    nl = nl.astype(np.int64)
    starts = np.concatenate([[0], nl + 1]).astype(np.int64)
    ends = np.concatenate([nl, [len(data)]]).astype(np.int64)
    if len(starts) and starts[-1] == len(data):  # nothing after the final newline
        starts, ends = starts[:-1], ends[:-1]
    n = len(starts)
    offsets = np.append(starts, len(data)).astype(np.int64)  # a line keeps its b"\n"
    lines = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))
    index = pa.array(np.arange(n, dtype=np.int64))
    guarded = np.zeros(n, dtype=bool)
    if len(pairs) and n:  # the line holding the pair's second byte
        guarded[np.searchsorted(starts, pairs, side="right") - 1] = True
    flags = pa.array(guarded)
    batches = [
        pa.RecordBatch.from_arrays(
            [index.slice(k, _BATCH_ROWS), lines.slice(k, _BATCH_ROWS), flags.slice(k, _BATCH_ROWS)],
            ["i", "line", "g"],
        )
        for k in range(0, n, _BATCH_ROWS)
    ]
    schema = pa.schema([("i", pa.int64()), ("line", pa.large_string()), ("g", pa.bool_())])
    return pa.Table.from_batches(batches, schema=schema), starts, ends


def _np(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(arr.to_numpy(zero_copy_only=False))


def _valid(arr: pa.Array) -> np.ndarray:
    if arr.null_count == 0:
        return np.ones(len(arr), dtype=bool)
    return np.asarray(_np(pc.is_valid(arr)), dtype=bool)


def _json_strings(arr: pa.Array) -> np.ndarray:
    """Per JSON text: is it a non-empty JSON string (``"..."``, not ``""``, not null)?"""
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=bool)
    if pa.types.is_null(arr.type):
        return np.zeros(n, dtype=bool)
    if arr.type != pa.string():
        arr = arr.cast(pa.string())
    _, off_buf, data_buf = arr.buffers()
    off = np.frombuffer(off_buf, dtype=np.int32)[arr.offset : arr.offset + n + 1]
    ok = np.diff(off) > 2
    if data_buf is None or data_buf.size == 0:
        return np.zeros(n, dtype=bool)
    data = np.frombuffer(data_buf, dtype=np.uint8)
    first = data[np.minimum(off[:-1], data.size - 1)] == 34  # '"'
    return ok & first & _valid(arr)


def _list(arr: pa.Array) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """(row has a list, flattened values, offsets) of a list column."""
    lengths = _np(pc.list_value_length(arr).fill_null(0)).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return _valid(arr), arr.flatten(), offsets


def _rows_all(ok_values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per row: every value of its segment is ok (vacuously true for empty lists)."""
    if ok_values.all():
        return np.ones(len(offsets) - 1, dtype=bool)
    bad = np.concatenate([[0], np.cumsum(~ok_values, dtype=np.int64)])
    return bad[offsets[1:]] == bad[offsets[:-1]]


def _path(arr: pa.Array, path: tuple[str, ...]) -> pa.Array:
    for key in path:
        arr = pc.struct_field(arr, key)
    return arr


def _escaped(arr: pa.Array, offsets: np.ndarray | None) -> np.ndarray:
    """Per row: a value contains a backslash (decoded by the line-by-line parser)."""
    has = np.asarray(_np(pc.match_substring(arr, "\\").fill_null(False)), dtype=bool)
    return has if offsets is None else ~_rows_all(~has, offsets)


def _unquote(texts: list[Any]) -> list[Any]:
    return [t[1:-1] if isinstance(t, str) and t[:1] == '"' else None for t in texts]


def _leaves(
    j: pa.Array, id_path: tuple[str, ...], decl: Declaration | None
) -> dict[str, tuple[pa.Array, np.ndarray | None, np.ndarray | None]]:
    """name -> (flattened JSON texts, list offsets or None, list present or None)."""
    out: dict[str, tuple[pa.Array, np.ndarray | None, np.ndarray | None]] = {
        "rid": (_path(j, id_path), None, None)
    }
    if decl is None:
        return out
    sel = decl.selection
    raw = _path(j, sel.path)
    if sel.kind == "alternatives":
        valid, flat, offsets = _list(raw)
        out["sel"] = (flat, offsets, valid)
    else:
        out["sel"] = (raw, None, None)
    if sel.kind == "witness":
        out["bind"] = (_path(j, sel.binding_path), None, None)
    valid, flat, offsets = _list(_path(j, decl.list_path))
    if decl.element_id_field is not None:
        flat = pc.struct_field(flat, decl.element_id_field)
    out["ret"] = (flat, offsets, valid)
    return out


def _segments(flat: pa.Array, offsets: np.ndarray, keep: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """Only the segments of rows where `keep`; offsets renumbered."""
    lengths = np.diff(offsets)
    if keep.all():
        return flat, offsets
    values = flat.filter(pa.array(np.repeat(keep, lengths)))
    kept = np.where(keep, lengths, 0)
    return values, np.concatenate([[0], np.cumsum(kept)]).astype(np.int64)


def _arrow_rows(
    j: pa.Array,
    lines: np.ndarray,
    bs: np.ndarray,
    id_path: tuple[str, ...],
    decl: Declaration | None,
) -> tuple[RawRows, np.ndarray]:
    """(rows DuckDB vouched for, mask of the lines to re-check line by line)."""
    leaves = _leaves(j, id_path, decl)
    slow = ~_valid(j)
    if bs.any():  # a needed string value holds an escape: decode it in Python
        for flat, offsets, _ in leaves.values():
            slow |= bs & _escaped(flat, offsets)
    id_ok = _json_strings(leaves["rid"][0])
    good = ~slow & id_ok
    malformed = lines[~slow & ~id_ok].tolist()
    if not good.all():
        j, lines = j.filter(pa.array(good)), lines[good]
        leaves = _leaves(j, id_path, decl)
    n = len(j)
    rid = leaves["rid"][0]
    record_ids: list[str] = pc.utf8_slice_codeunits(rid, 1, -1).to_pylist() if n else []
    none = pa.array([], pa.string())
    empty = np.zeros(0, dtype=np.int64)
    rows = RawRows(
        lines=lines,
        record_ids=record_ids,
        malformed_lines=malformed,
        sel_status=np.zeros(n, dtype=np.int8),
        sel_values=none,
        sel_parents=empty,
        witnesses=[],
        bindings=[],
        ret_ok=np.zeros(n, dtype=bool),
        ret_values=none,
        ret_offsets=np.zeros(n + 1, dtype=np.int64),
        quoted=True,
    )
    if decl is None:
        return rows, slow
    sel_flat, sel_offsets, sel_valid = leaves["sel"]
    kind = decl.selection.kind
    if kind == "witness":
        rows.witnesses = _unquote(sel_flat.to_pylist())
        rows.bindings = _unquote(leaves["bind"][0].to_pylist())
    elif kind == "field":
        ok = _json_strings(sel_flat)
        rows.sel_status = np.where(ok, 0, SELECTOR_ERROR).astype(np.int8)
        rows.sel_parents = np.flatnonzero(ok).astype(np.int64)
        rows.sel_values = sel_flat if ok.all() else sel_flat.filter(pa.array(ok))
    else:
        assert sel_offsets is not None and sel_valid is not None
        lengths = np.diff(sel_offsets)
        ok = sel_valid & (lengths > 0) & _rows_all(_json_strings(sel_flat), sel_offsets)
        rows.sel_status = np.where(ok, 0, SELECTOR_ERROR).astype(np.int8)
        rows.sel_values, kept = _segments(sel_flat, sel_offsets, ok)
        rows.sel_parents = np.repeat(np.arange(n, dtype=np.int64), np.diff(kept))
    ret_flat, ret_offsets, ret_valid = leaves["ret"]
    assert ret_offsets is not None and ret_valid is not None
    rows.ret_ok = ret_valid & _rows_all(_json_strings(ret_flat), ret_offsets)
    rows.ret_values, rows.ret_offsets = _segments(ret_flat, ret_offsets, rows.ret_ok)
    return rows, slow


_BASE: list[Any] = []  # one in-memory DuckDB per process; each query gets its own cursor
_BASE_LOCK = threading.Lock()


def _cursor() -> Any:
    """A new cursor (its own connection, with its own registered tables) on one in-memory
    DuckDB database: a cursor costs microseconds, a fresh database ~25 ms."""
    import duckdb

    with _BASE_LOCK:
        if not _BASE:
            _BASE.append(duckdb.connect(config={"threads": 1}))
        return _BASE[0].cursor()


def _run(sql: str, lines: pa.Table) -> pa.Table:
    """Run `sql` over `lines`, one DuckDB connection per core on a share of the batches.

    (A registered Arrow table is scanned by one thread here, so the parallelism is ours.)
    """

    def one(part: pa.Table) -> pa.Table:
        con = _cursor()
        try:
            con.register("lines", part)
            return con.sql(sql).to_arrow_table()
        finally:
            con.close()

    workers = max(1, min(os.cpu_count() or 1, 8, lines.num_rows // _BATCH_ROWS))
    if workers == 1:
        return one(lines)
    step = -(-lines.num_rows // workers)
    parts = [lines.slice(k, step) for k in range(0, lines.num_rows, step)]
    with ThreadPoolExecutor(workers) as pool:
        return pa.concat_tables(list(pool.map(one, parts)))


def fast_rows(
    data: bytes, id_path: tuple[str, ...], decl: Declaration | None
) -> tuple[RawRows, int] | None:
    """(rows, number of lines DuckDB parsed), or None when the fast path cannot run."""
    import duckdb

    try:
        sql = _query(id_path, decl)
    except _Unsupported:
        return None
    lines, starts, ends = _line_table(data)
    try:
        result = _run(sql, lines)
    except duckdb.Error:
        return None
    index = _np(result.column("i"))
    if not np.all(index[1:] > index[:-1]):
        order = np.argsort(index, kind="stable")
        result, index = result.take(pa.array(order)), index[order]
    bs = np.asarray(_np(result.column("bs")), dtype=bool)
    j = result.column("j").combine_chunks()
    rows, slow = _arrow_rows(j, index + 1, bs, id_path, decl)
    checked = python_rows(
        ((int(i) + 1, data[starts[i] : ends[i]]) for i in index[slow].tolist()), id_path, decl
    )
    return merge_rows(rows, checked), int((~slow).sum())


def duck_rows(data: bytes, id_path: tuple[str, ...], decl: Declaration | None) -> RawRows | None:
    out = fast_rows(data, id_path, decl)
    return out[0] if out is not None else None
