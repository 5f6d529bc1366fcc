"""Arrow's JSON reader over whole blocks of records, reading only the declaration's fields.

The reader is given an explicit schema of the needed fields (record id, selection, the
returned list and its element id) and ignores every other field, so it makes no Python
object per value. `read_block` returns None -- and the caller re-reads the block line
by line with the stdlib parser, the definition -- for any block it cannot vouch for, so
a block it does read reads exactly as `json.loads` reads each of its lines:

* Arrow refuses it: JSON syntax, a needed value of another JSON type (a number where an
  id should be, a string where the list should be...), a needed key given twice, a lone
  surrogate escape, a raw control character, a number too large for a double;
* a line break is not a clean record boundary `}\\n{` (or `}\\r\\n{`), or Arrow reads
  another number of records than there are lines: one value per line;
* what Arrow reads and `json.loads` does not, in skipped fields too: invalid UTF-8,
  integers over Python's digit limit, the constants `Inf`, `-Inf` and `-NaN`, and
  nesting 500 levels deep (these guards are `vocabulary.jsonblocks.vouched_lines`,
  shared with the BEIR corpus reader).

A null where an object or list is needed reads as a missing one, as `get_path` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pajson

from scorers.rop.columns import RecordColumns
from scorers.rop.declaration import Declaration
from scorers.rop.strings import positions
from scorers.rop.verdicts import SELECTOR_ERROR
from vocabulary.jsonblocks import vouched_lines

_STR, _STR_LIST, _RETURNED = "str", "str-list", "returned"
Tree = dict[str, Any]  # key -> subtree, or a leaf kind
_MAX_BLOCK = (1 << 31) - 1  # Arrow's block size and string offsets are 32-bit


@dataclass(frozen=True)
class BlockReader:
    parse: pajson.ParseOptions
    id_path: tuple[str, ...]
    sel_kind: str  # "" when only the record ids are read
    sel_path: tuple[str, ...] = ()
    binding_path: tuple[str, ...] = ()
    list_path: tuple[str, ...] = ()
    objects: bool = False  # list elements are objects holding the id (else plain strings)


def _add(tree: Tree, path: tuple[str, ...], kind: str) -> bool:
    """Put a leaf in the tree; False when it overlaps another path differently."""
    node = tree
    for key in path[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            return False
        node = child
    old = node.setdefault(path[-1], kind)
    return old == kind  # the same path twice with the same kind reads one value


def _fields(tree: Tree, kinds: dict[str, pa.DataType]) -> list[pa.Field]:
    return [
        pa.field(key, pa.struct(_fields(sub, kinds)) if isinstance(sub, dict) else kinds[sub])
        for key, sub in tree.items()
    ]


def block_reader(id_path: tuple[str, ...], decl: Declaration | None) -> BlockReader | None:
    """The reader of `decl`'s paths (ids only when None); None when paths overlap (one
    field inside another), which only the stdlib parser reads."""
    tree: Tree = {}
    if not _add(tree, id_path, _STR):
        return None
    kinds = {_STR: pa.string(), _STR_LIST: pa.list_(pa.string())}
    if decl is None:
        return BlockReader(_options(tree, kinds), id_path, sel_kind="")
    sel = decl.selection
    ok = _add(tree, sel.path, _STR_LIST if sel.kind == "alternatives" else _STR)
    if sel.kind == "witness":
        ok = ok and _add(tree, sel.binding_path, _STR)
    if not ok or not _add(tree, decl.list_path, _RETURNED):
        return None
    element = decl.element_id_field
    kinds[_RETURNED] = pa.list_(
        pa.string() if element is None else pa.struct([pa.field(element, pa.string())])
    )
    return BlockReader(
        _options(tree, kinds),
        id_path,
        sel_kind=sel.kind,
        sel_path=sel.path,
        binding_path=sel.binding_path if sel.kind == "witness" else (),
        list_path=decl.list_path,
        objects=element is not None,
    )


def _options(tree: Tree, kinds: dict[str, pa.DataType]) -> pajson.ParseOptions:
    """Arrow reads the tree's fields with these types and skips every other field."""
    schema = pa.schema(_fields(tree, kinds))
    return pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")


def read_block(reader: BlockReader, block: bytes) -> pa.Table | None:
    """The needed fields of `block` (whole lines, without the final newline), one row per
    line, or None when the block must be read by the stdlib parser."""
    if len(block) >= _MAX_BLOCK:
        return None
    lines = vouched_lines(block)
    if not lines:
        return None
    options = pajson.ReadOptions(use_threads=False, block_size=len(block) + 1)
    try:
        table = pajson.read_json(
            pa.BufferReader(block), read_options=options, parse_options=reader.parse
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return table if table.num_rows == lines else None


def _valid(arr: pa.Array) -> np.ndarray:
    """Arrow validity as NumPy booleans (read from the bitmap: `to_numpy` on booleans
    imports pandas)."""
    if arr.null_count == 0:
        return np.ones(len(arr), dtype=bool)
    bits = np.unpackbits(np.frombuffer(arr.buffers()[0], dtype=np.uint8), bitorder="little")
    return bits[arr.offset : arr.offset + len(arr)].astype(bool)


def _nonempty(arr: pa.Array) -> np.ndarray:
    """Valid, non-empty strings (lengths from the offsets buffer)."""
    ends = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    return _valid(arr) & (np.diff(ends) > 0)


def _leaf(table: pa.Table, path: tuple[str, ...]) -> pa.Array:
    """The array at a dotted path; a null parent makes its children null (`flatten`)."""
    arr = table.column(path[0]).combine_chunks()
    for key in path[1:]:
        arr = arr.flatten()[arr.type.get_field_index(key)]
    return arr


def _take(arr: pa.Array, rows: np.ndarray) -> pa.Array:
    return arr.take(positions(rows))


def _lists(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """(list present per row, lengths, the elements in row order)."""
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[
        arr.offset : arr.offset + len(arr) + 1
    ]
    present = _valid(arr)
    lengths = np.where(present, np.diff(offsets), 0).astype(np.int64)
    first, last = int(offsets[0]), int(offsets[-1])
    values = arr.values.slice(first, last - first)
    if not present.all():  # a null list's slots, if any, are not its elements
        values = _take(values, np.flatnonzero(np.repeat(present, np.diff(offsets))))
    return present, lengths, values


def table_columns(reader: BlockReader, table: pa.Table) -> RecordColumns:
    """Columns of a block read by `read_block`; malformed line numbers count from 0."""
    ids = _leaf(table, reader.id_path)
    good = _nonempty(ids)
    malformed = np.flatnonzero(~good).tolist()
    keep = None if not malformed else np.flatnonzero(good)
    if keep is not None:
        ids = _take(ids, keep)
    n = len(ids)

    def leaf(path: tuple[str, ...]) -> pa.Array:
        arr = _leaf(table, path)
        return arr if keep is None else _take(arr, keep)

    cols = RecordColumns(
        record_ids=ids.to_pylist(),
        malformed_lines=malformed,
        sel_status=np.zeros(n, dtype=np.int8),
        sel_values=[],
        sel_parents=np.zeros(0, dtype=np.int64),
        ret_ok=np.zeros(n, dtype=bool),
        ret_values=[],
        ret_offsets=np.zeros(n + 1, dtype=np.int64),
    )
    if not reader.sel_kind:
        return cols
    sel = leaf(reader.sel_path)
    if reader.sel_kind == "witness":
        cols.witnesses = sel.to_pylist()
        cols.bindings = leaf(reader.binding_path).to_pylist()
    elif reader.sel_kind == "field":
        usable = _nonempty(sel)
        cols.sel_status = np.where(usable, 0, SELECTOR_ERROR).astype(np.int8)
        cols.sel_parents = np.flatnonzero(usable).astype(np.int64)
        cols.sel_values = sel if usable.all() else _take(sel, cols.sel_parents)
    else:
        present, lengths, keys = _lists(sel)
        bad = np.repeat(np.arange(n), lengths)[~_nonempty(keys)]
        usable = present & (lengths > 0) & (np.bincount(bad, minlength=n) == 0)
        cols.sel_status = np.where(usable, 0, SELECTOR_ERROR).astype(np.int8)
        cols.sel_parents = np.repeat(np.arange(n, dtype=np.int64), np.where(usable, lengths, 0))
        cols.sel_values = (
            keys if usable.all() else _take(keys, np.flatnonzero(np.repeat(usable, lengths)))
        )
    cols.ret_ok, cols.ret_values, cols.ret_offsets = _returned(
        leaf(reader.list_path), reader.objects
    )
    return cols


def _returned(arr: pa.Array, objects: bool) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """(list well-formed per row, ids of well-formed rows flattened, offsets): a list is
    well-formed when every element is a non-empty string, or an object whose id is one."""
    n = len(arr)
    present, lengths, elements = _lists(arr)
    if objects:
        inside = elements.flatten()[0]  # the element's id; a null element makes it null
        ok_element = _nonempty(inside)
        elements = inside
    else:
        ok_element = _nonempty(elements)
    ok = present.copy()
    if not ok_element.all():
        bad_rows = np.repeat(np.arange(n), lengths)[~ok_element]
        ok &= np.bincount(bad_rows, minlength=n) == 0
    if not ok.all():  # keep the ids of well-formed lists only
        elements = _take(elements, np.flatnonzero(np.repeat(ok, lengths)))
        lengths = np.where(ok, lengths, 0)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return ok, elements, offsets
