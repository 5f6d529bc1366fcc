"""The records as columns, and the line-by-line parser that defines how a record is read.

`scorers.rop.records.parse_records` fills `RecordColumns` block by block: with
Arrow's reader (`scorers.rop.arrow_rows`) where it vouches for a block, else
with `line_rows` here (the definition: the stdlib `json.loads` per line, the
declaration's dotted paths followed through JSON objects). Verdicts are given
from the columns by `scorers.rop.membership` alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from scorers.rop.declaration import Declaration, get_path
from scorers.rop.strings import Values, concat_strings, strings
from scorers.rop.verdicts import SELECTOR_ERROR
from vocabulary.jsonread import json_loads


@dataclass
class RecordColumns:
    """One row per observed record with a readable id, in file order."""

    record_ids: list[str]
    malformed_lines: list[int]  # 1-based numbers of lines without a readable id
    # 0 = selection usable (or, in witness mode, not yet decoded), else SELECTOR_ERROR
    sel_status: np.ndarray
    sel_values: Values  # acceptable keys of usable rows, flattened
    sel_parents: np.ndarray  # row of each acceptable key
    ret_ok: np.ndarray  # returned-ID list present and well-formed
    ret_values: Values  # returned raw ids of well-formed rows, flattened in rank order
    ret_offsets: np.ndarray  # row r's ids are ret_values[offsets[r]:offsets[r + 1]]
    witnesses: list[Any] = field(default_factory=list)  # witness mode only, one per row
    bindings: list[Any] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.record_ids)


def empty_columns() -> RecordColumns:
    return RecordColumns(
        record_ids=[],
        malformed_lines=[],
        sel_status=np.zeros(0, dtype=np.int8),
        sel_values=[],
        sel_parents=np.zeros(0, dtype=np.int64),
        ret_ok=np.zeros(0, dtype=bool),
        ret_values=[],
        ret_offsets=np.zeros(1, dtype=np.int64),
    )


def line_rows(
    lines: Iterable[tuple[int, bytes]], id_path: tuple[str, ...], decl: Declaration | None
) -> RecordColumns:
    """Parse (line number, line) pairs one at a time with the stdlib JSON parser; with
    `decl` None only the record ids are read."""
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
            obj = json_loads(line)
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
    return RecordColumns(
        record_ids=ids,
        malformed_lines=malformed,
        sel_status=np.asarray(sel_status, dtype=np.int8),
        sel_values=sel_values,
        sel_parents=np.asarray(sel_parents, dtype=np.int64),
        ret_ok=np.asarray(ret_ok, dtype=bool),
        ret_values=ret_values,
        ret_offsets=np.asarray(ret_offsets, dtype=np.int64),
        witnesses=witnesses,
        bindings=bindings,
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


def _join(parts: list[Values]) -> Values:
    if any(isinstance(p, pa.Array) for p in parts):  # the stdlib parser's blocks too
        parts = [strings(p) for p in parts]
    if all(isinstance(p, pa.Array) for p in parts):
        try:
            return concat_strings(parts) if parts else pa.array([], type=pa.string())
        except pa.ArrowInvalid:  # over 2 GiB of text: more than one string array holds
            pass
    out: list[str] = []
    for p in parts:
        out += p.to_pylist() if isinstance(p, pa.Array) else p
    return out


def concat(parts: list[RecordColumns]) -> RecordColumns:
    """The columns of consecutive pieces of one file, in file order."""
    if not parts:
        return empty_columns()
    if len(parts) == 1:
        return parts[0]
    rows = np.cumsum([0] + [p.n for p in parts[:-1]])
    ends = np.cumsum([0] + [int(p.ret_offsets[-1]) for p in parts[:-1]])
    ids: list[str] = []
    malformed: list[int] = []
    witnesses: list[Any] = []
    bindings: list[Any] = []
    for p in parts:
        ids += p.record_ids
        malformed += p.malformed_lines
        witnesses += p.witnesses
        bindings += p.bindings
    return RecordColumns(
        record_ids=ids,
        malformed_lines=malformed,
        sel_status=np.concatenate([p.sel_status for p in parts]),
        sel_values=_join([p.sel_values for p in parts]),
        sel_parents=np.concatenate(
            [p.sel_parents + r for p, r in zip(parts, rows.tolist(), strict=True)]
        ),
        ret_ok=np.concatenate([p.ret_ok for p in parts]),
        ret_values=_join([p.ret_values for p in parts]),
        ret_offsets=np.concatenate(
            [parts[0].ret_offsets[:1]]
            + [p.ret_offsets[1:] + e for p, e in zip(parts, ends.tolist(), strict=True)]
        ),
        witnesses=witnesses,
        bindings=bindings,
    )
