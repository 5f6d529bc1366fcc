"""Records file -> columns for the vectorised evaluator.

Two parsers fill the same columns: `scorers.rop.scan_rows` (a compiled scan of
every line, the fast path for files of `SCAN_MIN` bytes and more) and the
line-by-line parser here (the definition, stdlib `json` per line). The fast
path hands every line it cannot vouch for to the line-by-line parser, and the
two sets of rows are merged in file order, so malformed input never changes a
verdict, only the speed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

import numpy as np
import pyarrow as pa

from scorers.rop.declaration import Declaration, get_path
from scorers.rop.verdicts import RESOLUTION_ERROR, SELECTOR_ERROR
from scorers.rop.witness import binding_hash

_HEX = frozenset("0123456789abcdef")
# From 1 MiB up the compiled scan reads the file (below, loading it costs more than it saves).
SCAN_MIN = 1 << 20
Values: TypeAlias = list[str] | pa.Array


@dataclass
class RecordColumns:
    """One row per observed record with a readable id, in file order."""

    record_ids: list[str]
    malformed_lines: list[int]
    # 0 = selection usable, else SELECTOR_ERROR / RESOLUTION_ERROR decided while parsing
    sel_status: np.ndarray
    sel_values: Values  # acceptable keys of usable rows, flattened
    sel_parents: np.ndarray
    ret_ok: np.ndarray  # returned-ID list present and well-formed
    ret_values: Values  # returned raw ids of well-formed rows, flattened in rank order
    ret_offsets: np.ndarray  # row r's ids are ret_values[offsets[r]:offsets[r + 1]]
    ret_fp: np.ndarray | None = None  # fingerprints of ret_values, when the parser made them

    @property
    def n(self) -> int:
        return len(self.record_ids)


@dataclass
class RawRows:
    """Parsed rows before witness decoding, each with its 1-based line number."""

    lines: np.ndarray
    record_ids: list[str]
    malformed_lines: list[int]
    sel_status: np.ndarray
    sel_values: Values
    sel_parents: np.ndarray
    witnesses: list[Any]  # witness mode only (else empty)
    bindings: list[Any]
    ret_ok: np.ndarray
    ret_values: Values
    ret_offsets: np.ndarray
    ret_fp: np.ndarray | None = None


def parse_records(data: bytes, id_path: tuple[str, ...], decl: Declaration | None) -> RecordColumns:
    """Columns of a records file; with `decl` None only the record ids are read."""
    return finish(parse_rows(data, id_path, decl), decl)


def parse_rows(data: bytes, id_path: tuple[str, ...], decl: Declaration | None) -> RawRows:
    """Rows before witness decoding: only `decl`'s paths are used (see `record_shape`)."""
    from scorers.rop.scan_rows import scan_rows

    rows = scan_rows(data, id_path, decl) if len(data) >= SCAN_MIN else None
    if rows is None:
        rows = python_rows(split_lines(data), id_path, decl)
    return rows


def python_columns(
    data: bytes, id_path: tuple[str, ...], decl: Declaration | None
) -> RecordColumns:
    """The line-by-line parser over a whole file."""
    return finish(python_rows(split_lines(data), id_path, decl), decl)


def split_lines(data: bytes) -> Iterable[tuple[int, bytes]]:
    return enumerate(data.split(b"\n"), start=1)


# ---------------------------------------------------------------- line by line (the definition)


def _is_sha(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX


def python_rows(
    lines: Iterable[tuple[int, bytes]], id_path: tuple[str, ...], decl: Declaration | None
) -> RawRows:
    """Parse (line number, line) pairs one at a time with the stdlib JSON parser."""
    linenos: list[int] = []
    ids: list[str] = []
    malformed: list[int] = []
    sel_status: list[int] = []
    sel_values: list[str] = []
    sel_parents: list[int] = []
    witnesses: list[Any] = []
    bindings: list[Any] = []
    ret_ok: list[bool] = []
    ret_values: list[str] = []
    ret_offsets: list[int] = [0]
    for lineno, line in lines:
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
        linenos.append(lineno)
        if decl is None:
            sel_status.append(0)
            ret_ok.append(False)
            ret_offsets.append(len(ret_values))
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
        ret_offsets.append(len(ret_values))
    return RawRows(
        lines=np.asarray(linenos, dtype=np.int64),
        record_ids=ids,
        malformed_lines=malformed,
        sel_status=np.asarray(sel_status, dtype=np.int8),
        sel_values=sel_values,
        sel_parents=np.asarray(sel_parents, dtype=np.int64),
        witnesses=witnesses,
        bindings=bindings,
        ret_ok=np.asarray(ret_ok, dtype=bool),
        ret_values=ret_values,
        ret_offsets=np.asarray(ret_offsets, dtype=np.int64),
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


# ---------------------------------------------------------------- merging and finishing


def _arrow(values: Values) -> pa.Array:
    arr = values if isinstance(values, pa.Array) else pa.array(values, type=pa.string())
    return arr if arr.type == pa.string() else arr.cast(pa.string())


def _concat(a: RawRows, b: RawRows, field: str) -> Values:
    """Two parsers' flat values as one array; a Python list if Arrow cannot hold them
    (lone surrogates are valid in Python strings, not in UTF-8)."""
    try:
        return pa.concat_arrays([_arrow(getattr(r, field)) for r in (a, b)])
    except UnicodeEncodeError:
        out: list[str] = []
        for rows in (a, b):
            values = getattr(rows, field)
            out += values.to_pylist() if isinstance(values, pa.Array) else list(values)
        return out


def _regroup(
    values: Values, offsets: np.ndarray, new_row: np.ndarray, n: int
) -> tuple[Values, np.ndarray]:
    """Reorder variable-length row segments so that row r moves to new_row[r]."""
    lengths = np.diff(offsets)
    parents = new_row[np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)]
    order = np.argsort(parents, kind="stable")  # keeps rank order inside a row
    new_offsets = np.concatenate([[0], np.cumsum(np.bincount(parents, minlength=n))])
    if isinstance(values, pa.Array):
        return values.take(pa.array(order)), new_offsets.astype(np.int64)
    return [values[i] for i in order.tolist()], new_offsets.astype(np.int64)


def merge_rows(a: RawRows, b: RawRows) -> RawRows:
    """The rows of two parsers of disjoint lines of one file, in file (line) order."""
    malformed = sorted(a.malformed_lines + b.malformed_lines)
    if not b.record_ids:
        return replace(a, malformed_lines=malformed)
    if not a.record_ids:
        return replace(b, malformed_lines=malformed)
    na, n = len(a.record_ids), len(a.record_ids) + len(b.record_ids)
    lines = np.concatenate([a.lines, b.lines])
    order = np.argsort(lines, kind="stable")  # new position -> old row
    new_of = np.empty_like(order)
    new_of[order] = np.arange(n)  # old row -> new position
    ids = a.record_ids + b.record_ids
    w = a.witnesses + b.witnesses
    bd = a.bindings + b.bindings
    sel_values = _concat(a, b, "sel_values")
    ret_values = _concat(a, b, "ret_values")
    offsets = np.concatenate([a.ret_offsets, b.ret_offsets[1:] + a.ret_offsets[-1]])
    ret_values, offsets = _regroup(ret_values, offsets, new_of, n)
    return RawRows(
        lines=lines[order],
        record_ids=[ids[i] for i in order.tolist()],
        malformed_lines=malformed,
        sel_status=np.concatenate([a.sel_status, b.sel_status])[order],
        sel_values=sel_values,
        sel_parents=new_of[np.concatenate([a.sel_parents, b.sel_parents + na])],
        witnesses=[w[i] for i in order.tolist()] if w else [],
        bindings=[bd[i] for i in order.tolist()] if bd else [],
        ret_ok=np.concatenate([a.ret_ok, b.ret_ok])[order],
        ret_values=ret_values,
        ret_offsets=offsets,
    )


def finish(rows: RawRows, decl: Declaration | None) -> RecordColumns:
    """Decode witnesses (witness mode) and drop the line numbers."""
    status, values, parents = rows.sel_status, rows.sel_values, rows.sel_parents
    if decl is not None and decl.selection.kind == "witness":
        status, values, parents = decode_witnesses(
            rows.record_ids, rows.witnesses, rows.bindings, decl
        )
    return RecordColumns(
        record_ids=rows.record_ids,
        malformed_lines=rows.malformed_lines,
        sel_status=status,
        sel_values=values,
        sel_parents=parents,
        ret_ok=rows.ret_ok,
        ret_values=rows.ret_values,
        ret_offsets=rows.ret_offsets,
        ret_fp=rows.ret_fp,
    )


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
