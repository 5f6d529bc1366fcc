"""A typed msgspec decoder of the declaration's needed fields, for whole blocks of lines.

The decoder is a tree of `msgspec.Struct` types built from the declaration's
dotted paths (record id, selection, returned list and element id); every other
field of a record is skipped. `decode_block` returns None -- and the caller
re-reads the block line by line with the stdlib parser, the definition -- for
any block it cannot vouch for, so a block it does decode reads exactly as
`json.loads` reads each of its lines:

* msgspec rejects it (syntax, a needed value of another JSON type, or a value nested
  past the recursion limit);
* a line break is not a clean boundary `}\\n{` (or `}\\r\\n{`): blank lines, a
  BOM, leading spaces... With clean boundaries no value can span two lines (a
  `}` followed by a `{` never occurs inside a JSON value), and the number of
  decoded records must then equal the number of lines: one value per line;
* two guards for what msgspec accepts in skipped values and `json.loads` does
  not: invalid UTF-8 (checked on blocks with non-ASCII bytes) and integers of
  more digits than Python's int-conversion limit (4,300 digits).

The line-boundary and long-integer guards are `vocabulary.jsonread`'s, shared with the
BEIR corpus reader's Arrow path.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa

from scorers.rop.columns import RecordColumns
from scorers.rop.declaration import Declaration
from scorers.rop.strings import Values, positions, strings
from scorers.rop.verdicts import SELECTOR_ERROR
from vocabulary.jsonread import clean_lines, long_integer

_STR, _STR_LIST, _RETURNED = "str", "str-list", "returned"
Tree = dict[str, Any]  # key -> subtree, or a leaf kind


@dataclass(frozen=True)
class TypedDecoder:
    decoder: msgspec.json.Decoder[Any]
    get_id: Callable[[Any], Any]
    get_sel: Callable[[Any], Any] | None
    get_binding: Callable[[Any], Any] | None
    get_list: Callable[[Any], Any] | None
    sel_kind: str
    objects: bool  # list elements are objects holding the id (else plain strings)


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


def _struct(tree: Tree, kinds: dict[str, Any], name: str) -> tuple[type, dict[str, str]]:
    """A Struct type for a tree node and, per key, its attribute path ("f0.f2")."""
    fields: list[tuple[str, Any, Any]] = []
    rename: dict[str, str] = {}
    where: dict[str, str] = {}
    for i, (key, sub) in enumerate(tree.items()):
        attr = f"f{i}"
        rename[attr] = key
        if isinstance(sub, dict):
            # A missing object reads as an empty one (its leaves None); null or any other
            # JSON type is a validation error (then the block goes to the stdlib parser).
            child, inner = _struct(sub, kinds, f"{name}_{i}")
            fields.append((attr, child, msgspec.field(default_factory=child)))
            where.update({f"{key}\0{k}": f"{attr}.{v}" for k, v in inner.items()})
        else:
            fields.append((attr, kinds[sub], None))
            where[key] = attr
    struct = msgspec.defstruct(name, fields, rename=rename, gc=False)
    return struct, where


def typed_decoder(id_path: tuple[str, ...], decl: Declaration | None) -> TypedDecoder | None:
    """The decoder of `decl`'s paths (ids only when None); None when paths overlap (one
    field inside another), which only the stdlib parser reads."""
    tree: Tree = {}
    if not _add(tree, id_path, _STR):
        return None
    objects = False
    kinds: dict[str, Any] = {_STR: str | None, _STR_LIST: list[str | None] | None}
    sel_kind = ""
    if decl is not None:
        sel = decl.selection
        sel_kind = sel.kind
        ok = _add(tree, sel.path, _STR_LIST if sel.kind == "alternatives" else _STR)
        if sel.kind == "witness":
            ok = ok and _add(tree, sel.binding_path, _STR)
        if not ok or not _add(tree, decl.list_path, _RETURNED):
            return None
        if decl.element_id_field is not None:
            objects = True
            # The element's id is required: an element without one (or with null) sends
            # the block to the stdlib parser, which makes that list UNVERIFIABLE.
            element = msgspec.defstruct(
                "Element", [("f0", str)], rename={"f0": decl.element_id_field}, gc=False
            )
            kinds[_RETURNED] = list[element] | None  # type: ignore[valid-type]
        else:
            kinds[_RETURNED] = list[str] | None
    root, where = _struct(tree, kinds, "Record")

    def getter(path: tuple[str, ...]) -> Callable[[Any], Any]:
        return attrgetter(where["\0".join(path)])

    return TypedDecoder(
        decoder=msgspec.json.Decoder(root),
        get_id=getter(id_path),
        get_sel=getter(decl.selection.path) if decl is not None else None,
        get_binding=getter(decl.selection.binding_path)
        if decl is not None and decl.selection.kind == "witness"
        else None,
        get_list=getter(decl.list_path) if decl is not None else None,
        sel_kind=sel_kind,
        objects=objects,
    )


def decode_block(typed: TypedDecoder, block: bytes) -> list[Any] | None:
    """The records of `block` (whole lines, without the final newline), one per line, or
    None when the block must be read by the stdlib parser."""
    lines = clean_lines(block)
    if not lines:
        return None
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if long_integer(block):
        return None
    try:
        rows = typed.decoder.decode_lines(block)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        # RecursionError: a value nested about a thousand levels deep, which `json.loads`
        # cannot read either; the stdlib parser counts that line as malformed.
        return None
    return rows if len(rows) == lines else None


def block_columns(typed: TypedDecoder, rows: list[Any], first_line: int) -> RecordColumns:
    """Columns of decoded records; row i was line `first_line + i`."""
    ids = list(map(typed.get_id, rows))
    malformed: list[int] = []
    if None in ids or "" in ids:  # not a non-empty string: the line is malformed
        keep = [i for i, v in enumerate(ids) if v]
        malformed = [first_line + i for i, v in enumerate(ids) if not v]
        rows = [rows[i] for i in keep]
        ids = [ids[i] for i in keep]
    n = len(ids)
    if typed.get_list is None or typed.get_sel is None:
        return RecordColumns(
            record_ids=ids,
            malformed_lines=malformed,
            sel_status=np.zeros(n, dtype=np.int8),
            sel_values=[],
            sel_parents=np.zeros(0, dtype=np.int64),
            ret_ok=np.zeros(n, dtype=bool),
            ret_values=[],
            ret_offsets=np.zeros(n + 1, dtype=np.int64),
        )
    sel = list(map(typed.get_sel, rows))
    witnesses: list[Any] = []
    bindings: list[Any] = []
    values: list[str] = []
    if typed.sel_kind == "witness":
        assert typed.get_binding is not None
        witnesses, bindings = sel, list(map(typed.get_binding, rows))
        status, parents = np.zeros(n, dtype=np.int8), np.zeros(0, dtype=np.int64)
    elif typed.sel_kind == "field":
        status, values, parents = _field(sel)
    else:
        status, values, parents = _alternatives(sel)
    ok, ret_values, offsets = _returned(list(map(typed.get_list, rows)), typed.objects)
    return RecordColumns(
        record_ids=ids,
        malformed_lines=malformed,
        sel_status=status,
        sel_values=strings(values),
        sel_parents=parents,
        ret_ok=ok,
        ret_values=ret_values,
        ret_offsets=offsets,
        witnesses=witnesses,
        bindings=bindings,
    )


def _field(sel: list[Any]) -> tuple[np.ndarray, list[str], np.ndarray]:
    n = len(sel)
    if None not in sel and "" not in sel:
        return np.zeros(n, dtype=np.int8), sel, np.arange(n, dtype=np.int64)
    good = np.fromiter(map(bool, sel), dtype=bool, count=n)
    status = np.where(good, 0, SELECTOR_ERROR).astype(np.int8)
    return status, [v for v in sel if v], np.flatnonzero(good).astype(np.int64)


def _alternatives(sel: list[Any]) -> tuple[np.ndarray, list[str], np.ndarray]:
    status = np.zeros(len(sel), dtype=np.int8)
    values: list[str] = []
    parents: list[int] = []
    for row, keys in enumerate(sel):
        if keys and None not in keys and "" not in keys:
            values += keys
            parents += [row] * len(keys)
        else:
            status[row] = SELECTOR_ERROR
    return status, values, np.asarray(parents, dtype=np.int64)


def _returned(lists: list[Any], objects: bool) -> tuple[np.ndarray, Values, np.ndarray]:
    """(list well-formed per row, ids of well-formed rows flattened, offsets)."""
    n = len(lists)
    ok = np.ones(n, dtype=bool)
    if None in lists:  # no list at all
        ok = np.fromiter((v is not None for v in lists), dtype=bool, count=n)
        lists = [v if v is not None else [] for v in lists]
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=n)
    chained = itertools.chain.from_iterable(lists)
    flat: list[Any] = list(map(attrgetter("f0"), chained) if objects else chained)
    values = strings(flat)
    # The type admits strings only: an empty one spoils its whole list (read from the
    # Arrow offsets; a Python list is searched).
    if isinstance(values, pa.Array):
        at = values.offset
        ends = np.frombuffer(values.buffers()[1], dtype=np.int32)[at : at + len(values) + 1]
        empty = np.diff(ends) == 0
    else:
        empty = np.fromiter((not v for v in values), dtype=bool, count=len(values))
    if empty.any():
        rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
        ok &= np.bincount(rows[empty], minlength=n) == 0
    if not ok.all():  # keep the ids of well-formed lists only
        keep = np.repeat(ok, lengths)
        if isinstance(values, pa.Array):
            values = values.take(positions(np.flatnonzero(keep)))
        else:
            values = [v for v, k in zip(values, keep.tolist(), strict=True) if k]
        lengths = np.where(ok, lengths, 0)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return ok, values, offsets
