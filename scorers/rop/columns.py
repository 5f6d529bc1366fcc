"""Records file -> columns for the vectorised evaluator.

Two parsers give the same columns: a fast path through pyarrow's JSON reader
for well-typed files, and a line-by-line path (the definition) for everything
else. The fast path accepts a file only when every column has exactly the
expected Arrow type and every record id is readable; any surprise sends the
whole file down the line-by-line path, so malformed input never changes a
verdict, only the speed.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from scorers.rop.declaration import Declaration, get_path
from scorers.rop.verdicts import RESOLUTION_ERROR, SELECTOR_ERROR
from scorers.rop.witness import binding_hash

_BLOCK = 1 << 24
_HEX = frozenset("0123456789abcdef")


@dataclass
class RecordColumns:
    """One row per observed record with a readable id, in file order."""

    record_ids: list[str]
    malformed_lines: list[int]
    # 0 = selection usable, else SELECTOR_ERROR / RESOLUTION_ERROR decided while parsing
    sel_status: np.ndarray
    sel_values: list[str] | pa.Array  # acceptable keys of usable rows, flattened
    sel_parents: np.ndarray
    ret_ok: np.ndarray  # returned-ID list present and well-formed
    ret_values: list[str] | pa.Array  # returned raw ids of well-formed rows, flattened
    ret_parents: np.ndarray
    ret_pos: np.ndarray  # 0-based rank position inside its list

    @property
    def n(self) -> int:
        return len(self.record_ids)


def parse_records(data: bytes, id_path: tuple[str, ...], decl: Declaration | None) -> RecordColumns:
    """Columns of a records file; with `decl` None only the record ids are read."""
    cols = _arrow_columns(data, id_path, decl)
    return cols if cols is not None else _python_columns(data, id_path, decl)


# ---------------------------------------------------------------- line by line (the definition)


def _is_sha(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX


def _python_columns(
    data: bytes, id_path: tuple[str, ...], decl: Declaration | None
) -> RecordColumns:
    ids: list[str] = []
    malformed: list[int] = []
    sel_status: list[int] = []
    sel_values: list[str] = []
    sel_parents: list[int] = []
    witnesses: list[Any] = []
    bindings: list[Any] = []
    ret_ok: list[bool] = []
    ret_values: list[str] = []
    ret_parents: list[int] = []
    ret_pos: list[int] = []
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            malformed.append(lineno)
            continue
        rid = get_path(obj, id_path) if isinstance(obj, dict) else None
        if not isinstance(rid, str) or not rid:
            malformed.append(lineno)
            continue
        row = len(ids)
        ids.append(rid)
        if decl is None:
            continue
        sel = decl.selection
        value = get_path(obj, sel.path)
        if sel.kind == "witness":
            witnesses.append(value)
            bindings.append(get_path(obj, sel.binding_path))
            sel_status.append(0)
        elif sel.kind == "field":
            ok = isinstance(value, str) and bool(value)
            sel_status.append(0 if ok else SELECTOR_ERROR)
            if ok:
                sel_values.append(value)
                sel_parents.append(row)
        else:
            ok = (
                isinstance(value, list)
                and bool(value)
                and all(isinstance(v, str) and v for v in value)
            )
            sel_status.append(0 if ok else SELECTOR_ERROR)
            if ok:
                sel_values.extend(value)
                sel_parents.extend([row] * len(value))
        returned = _returned_ids(get_path(obj, decl.list_path), decl.element_id_field)
        ret_ok.append(returned is not None)
        if returned is not None:
            ret_values.extend(returned)
            ret_parents.extend([row] * len(returned))
            ret_pos.extend(range(len(returned)))
    status = np.asarray(sel_status, dtype=np.int8)
    parents = np.asarray(sel_parents, dtype=np.int64)
    if decl is not None and decl.selection.kind == "witness":
        status, sel_values, parents = decode_witnesses(ids, witnesses, bindings, decl)
    return RecordColumns(
        record_ids=ids,
        malformed_lines=malformed,
        sel_status=status,
        sel_values=sel_values,
        sel_parents=parents,
        ret_ok=np.asarray(ret_ok, dtype=bool),
        ret_values=ret_values,
        ret_parents=np.asarray(ret_parents, dtype=np.int64),
        ret_pos=np.asarray(ret_pos, dtype=np.int64),
    )


def _returned_ids(value: Any, id_field: str | None) -> list[str] | None:
    """The raw returned ids, or None when the list is missing or malformed anywhere."""
    if not isinstance(value, list):
        return None
    if id_field is None:
        ok = all(isinstance(v, str) and v for v in value)
        return value if ok else None
    out = []
    for element in value:
        rid = element.get(id_field) if isinstance(element, dict) else None
        if not isinstance(rid, str) or not rid:
            return None
        out.append(rid)
    return out


def decode_witnesses(
    ids: list[str], witnesses: list[Any], bindings: list[Any], decl: Declaration
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Decode each record's witness through the bound inverse map.

    Missing/malformed witness or binding -> SELECTOR_ERROR; unknown witness ->
    RESOLUTION_ERROR (nothing to bind against); binding hash mismatch -> SELECTOR_ERROR.
    """
    sel = decl.selection
    assert sel.inverse_map is not None
    inverse = sel.inverse_map
    status = np.zeros(len(ids), dtype=np.int8)
    values: list[str] = []
    parents: list[int] = []
    for row, (rid, witness, bound) in enumerate(zip(ids, witnesses, bindings, strict=True)):
        if not isinstance(witness, str) or not witness or not _is_sha(bound):
            status[row] = SELECTOR_ERROR
            continue
        decoded = inverse.get(witness)
        if decoded is None:
            status[row] = RESOLUTION_ERROR
            continue
        expected = binding_hash(
            declaration_id=decl.declaration_id,
            population_sha256=decl.population_sha256,
            record_id=rid,
            witness=witness,
            decoded_selection=decoded,
            inverse_map_sha256=sel.inverse_map_sha256,
        )
        if bound != expected:
            status[row] = SELECTOR_ERROR
            continue
        values.append(decoded)
        parents.append(row)
    return status, values, np.asarray(parents, dtype=np.int64)


# ---------------------------------------------------------------- pyarrow fast path


class _Fallback(Exception):
    """The fast path cannot vouch for this file; use the line-by-line parser."""


def _column(table: pa.Table, path: tuple[str, ...]) -> pa.Array:
    """The array at a dotted path; all-null when the path never occurs."""
    n = table.num_rows
    if path[0] not in table.column_names:
        return pa.nulls(n, pa.string())
    arr = table.column(path[0]).combine_chunks()
    for key in path[1:]:
        if pa.types.is_null(arr.type):
            return pa.nulls(n, pa.string())
        if not pa.types.is_struct(arr.type):
            raise _Fallback
        if arr.type.get_field_index(key) < 0:
            return pa.nulls(n, pa.string())
        arr = pc.struct_field(arr, key)
    return arr


def _strings(arr: pa.Array) -> pa.Array:
    """A string array, or fallback for any other type (null type counts as all-null)."""
    if pa.types.is_null(arr.type):
        return pa.nulls(len(arr), pa.string())
    if not pa.types.is_string(arr.type):
        raise _Fallback
    return arr


def _usable(arr: pa.Array) -> np.ndarray:
    """Non-null, non-empty strings."""
    ok = pc.and_kleene(pc.is_valid(arr), pc.greater(pc.binary_length(arr), 0))
    return np.asarray(ok.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def _list_parts(arr: pa.Array) -> tuple[np.ndarray, pa.Array, np.ndarray, np.ndarray]:
    """(row has a list, flattened values, parent row, position) of a list column."""
    n = len(arr)
    if pa.types.is_null(arr.type):
        return np.zeros(n, bool), pa.nulls(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
    if not pa.types.is_list(arr.type):
        raise _Fallback
    valid = np.asarray(pc.is_valid(arr).to_numpy(zero_copy_only=False), dtype=bool)
    lengths = pc.list_value_length(arr).fill_null(0).to_numpy(zero_copy_only=False)
    lengths = lengths.astype(np.int64)
    values = arr.flatten()
    parents = np.repeat(np.arange(n, dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    pos = np.arange(len(values), dtype=np.int64) - starts[parents]
    return valid, values, parents, pos


def _rows_all(ok_values: np.ndarray, parents: np.ndarray, n: int) -> np.ndarray:
    """Per row: every flattened value is ok (vacuously true for empty lists)."""
    bad = np.zeros(n, dtype=bool)
    bad[parents[~ok_values]] = True
    return ~bad


def _arrow_columns(
    data: bytes, id_path: tuple[str, ...], decl: Declaration | None
) -> RecordColumns | None:
    try:
        table = pj.read_json(io.BytesIO(data), read_options=pj.ReadOptions(block_size=_BLOCK))
        # pyarrow 26 builds an invalid list array for a null object inside a list of
        # objects (offsets past the values); full validation catches it.
        table.validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    try:
        return _from_table(table, id_path, decl)
    except _Fallback:
        return None


def _from_table(
    table: pa.Table, id_path: tuple[str, ...], decl: Declaration | None
) -> RecordColumns:
    n = table.num_rows
    ids = _strings(_column(table, id_path))
    if not _usable(ids).all():
        raise _Fallback  # malformed ids need their line numbers: use the slow path
    record_ids: list[str] = ids.to_pylist()
    empty = np.zeros(0, dtype=np.int64)
    if decl is None:
        z = np.zeros(n, dtype=np.int8)
        return RecordColumns(record_ids, [], z, [], empty, z.astype(bool), [], empty, empty)

    sel = decl.selection
    raw_sel = _column(table, sel.path)
    if sel.kind == "witness":
        witnesses = _strings(raw_sel).to_pylist()
        bindings = _strings(_column(table, sel.binding_path)).to_pylist()
        status, values_list, sel_parents = decode_witnesses(record_ids, witnesses, bindings, decl)
        sel_values: pa.Array = pa.array(values_list, type=pa.string())
    elif sel.kind == "field":
        strings = _strings(raw_sel)
        ok = _usable(strings)
        status = np.where(ok, 0, SELECTOR_ERROR).astype(np.int8)
        sel_parents = np.flatnonzero(ok).astype(np.int64)
        sel_values = strings.filter(pa.array(ok))
    else:
        valid, flat, parents, _ = _list_parts(raw_sel)
        flat = _strings(flat)
        lengths = np.bincount(parents, minlength=n)
        ok = valid & (lengths > 0) & _rows_all(_usable(flat), parents, n)
        status = np.where(ok, 0, SELECTOR_ERROR).astype(np.int8)
        keep = ok[parents]
        sel_parents = parents[keep]
        sel_values = flat.filter(pa.array(keep))

    valid, elems, parents, pos = _list_parts(_column(table, decl.list_path))
    if decl.element_id_field is None:
        ret = _strings(elems)
    elif pa.types.is_null(elems.type):
        ret = pa.nulls(len(elems), pa.string())
    elif not pa.types.is_struct(elems.type):
        raise _Fallback
    elif elems.type.get_field_index(decl.element_id_field) < 0:
        ret = pa.nulls(len(elems), pa.string())
    else:
        ret = _strings(pc.struct_field(elems, decl.element_id_field))
    ret_ok = valid & _rows_all(_usable(ret), parents, n)
    keep = ret_ok[parents]
    return RecordColumns(
        record_ids=record_ids,
        malformed_lines=[],
        sel_status=status,
        sel_values=sel_values,
        sel_parents=sel_parents,
        ret_ok=ret_ok,
        ret_values=ret.filter(pa.array(keep)),
        ret_parents=parents[keep],
        ret_pos=pos[keep],
    )
