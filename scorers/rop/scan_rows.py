"""The fast records parser: a compiled scan of every line (`scorers.rop.scan_kernel`).

The file is cut into blocks at line boundaries; each block is scanned by the
compiled kernel in a thread (it releases the GIL), which validates every line
and records where the needed values sit. Lines the kernel does not vouch for
(see the kernel's docstring) go to the line-by-line parser (stdlib ``json``),
and the two sets of rows are merged in file order. Needed strings are copied
out of the file into Arrow string arrays without decoding them one by one.

Returns None -- and the caller uses the line parser -- when Numba is missing,
the declaration's paths overlap (one path a prefix of another), or the needed
strings pass the 2 GiB an Arrow string array holds.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from scorers.rop.columns import RawRows, merge_rows, python_rows
from scorers.rop.declaration import Declaration
from scorers.rop.verdicts import SELECTOR_ERROR

_BLOCK = 1 << 22  # 4 MiB of lines per kernel call
# The resolver and rules as `verdict_kernel.any_verdicts` takes them after the spans
# (built by `scorers.rop.scan_verdicts.verdict_args`).
Verdicts = tuple[Any, ...]


class _Overlap(Exception):
    """Two needed paths overlap: no single walk of the keys serves both."""


class _Trie:
    """Nodes of the needed key paths, as the arrays the kernel reads."""

    def __init__(self) -> None:
        from scorers.rop.scan_kernel import INTERNAL

        self.kind, self.slot, self.parent, self.key = [INTERNAL], [-1], [-1], [b""]

    def _node(self, parent: int, key: bytes, kind: int, slot: int) -> int:
        self.kind.append(kind)
        self.slot.append(slot)
        self.parent.append(parent)
        self.key.append(key)
        return len(self.kind) - 1

    def add(self, path: tuple[str, ...], kind: int, slot: int) -> int:
        from scorers.rop.scan_kernel import INTERNAL

        node = 0
        for i, name in enumerate(path):
            key = name.encode("utf-8", "surrogatepass")
            found = [
                c for c in range(len(self.kind)) if self.parent[c] == node and self.key[c] == key
            ]
            last = i == len(path) - 1
            if found:
                node = found[0]
                if last or self.kind[node] != INTERNAL:
                    raise _Overlap
            else:
                node = self._node(node, key, kind if last else INTERNAL, slot if last else -1)
        return node

    def arrays(self) -> tuple[np.ndarray, ...]:
        """(kind, slot, first, key offsets, key lengths, key bytes) with the nodes renumbered
        so that the children of node n are first[n]..first[n + 1] - 1 (breadth first)."""
        order = [0]
        for n in order:  # grows while it is walked
            order += [c for c in range(len(self.kind)) if self.parent[c] == n]
        new = {old: i for i, old in enumerate(order)}
        first = [0] * (len(order) + 1)
        count = [0] * len(order)
        for old in order[1:]:
            count[new[self.parent[old]]] += 1
        at = 1
        for i in range(len(order)):
            first[i] = at
            at += count[i]
        first[len(order)] = at
        key = [self.key[old] for old in order]
        lengths = [len(k) for k in key]
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        return (
            np.asarray([self.kind[old] for old in order], dtype=np.int8),
            np.asarray([self.slot[old] for old in order], dtype=np.int64),
            np.asarray(first, dtype=np.int64),
            offsets,
            np.asarray(lengths, dtype=np.int64),
            np.frombuffer(b"".join(key) or b"\0", dtype=np.uint8),
        )


def _trie(id_path: tuple[str, ...], decl: Declaration | None) -> tuple[_Trie, int, int]:
    """(trie, scalar slots, list slots). Scalar slots: 0 record id, 1 selection (field or
    witness), 2 binding. List slots: the alternatives (if any), then the returned ids."""
    from scorers.rop import scan_kernel as k

    trie = _Trie()
    trie.add(id_path, k.SCALAR, 0)
    if decl is None:
        return trie, 1, 0
    sel = decl.selection
    n_scalar, n_list = 1, 0
    if sel.kind == "alternatives":
        leaf = trie.add(sel.path, k.LIST_PLAIN, 0)
        trie._node(leaf, b"", k.ELEM_PLAIN, 0)
        n_list = 1
    else:
        trie.add(sel.path, k.SCALAR, 1)
        n_scalar = 2
        if sel.kind == "witness":
            trie.add(sel.binding_path, k.SCALAR, 2)
            n_scalar = 3
    ret = n_list
    if decl.element_id_field is None:
        leaf = trie.add(decl.list_path, k.LIST_PLAIN, ret)
        trie._node(leaf, b"", k.ELEM_PLAIN, ret)
    else:
        leaf = trie.add(decl.list_path, k.LIST_OBJECTS, ret)
        elem = trie._node(leaf, b"", k.ELEM_OBJECT, ret)
        trie._node(elem, decl.element_id_field.encode("utf-8", "surrogatepass"), k.ELEM_ID, ret)
    return trie, n_scalar, n_list + 1


def _blocks(data: bytes) -> list[tuple[int, int, bool]]:
    """(start, end, is last) of blocks of whole lines: each but the last ends after a newline."""
    out: list[tuple[int, int, bool]] = []
    lo = 0
    while True:
        cut = data.find(b"\n", lo + _BLOCK) if lo + _BLOCK < len(data) else -1
        if cut < 0:
            out.append((lo, len(data), True))
            return out
        out.append((lo, cut + 1, False))
        lo = cut + 1


class Part:
    """One block's rows: the needed strings already copied out, in row order (or, when
    the scan gives verdicts, the record ids and each row's verdict code)."""

    def __init__(self, n_lines: int) -> None:
        self.n_lines = n_lines
        self.rows = np.zeros(0, dtype=np.int64)  # line index in the block of each row
        self.malformed = np.zeros(0, dtype=np.int64)
        self.slow: list[tuple[int, int, int]] = []  # (line index, start, end)
        self.strings: dict[str, pa.Array] = {}
        self.counts: dict[str, np.ndarray] = {}  # per row: values kept (0 = not usable)
        self.flags: dict[str, np.ndarray] = {}  # per row: usable
        self.spans: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.fingerprints: dict[str, np.ndarray] = {}  # per value (see `prefilter`)
        self.codes = np.zeros(0, dtype=np.int8)  # per row, when the scan gives verdicts


def _array(out: tuple[np.ndarray, ...]) -> pa.Array:
    offsets, values = out[0], out[1]
    n = len(offsets) - 1
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(values))


def _part(
    buf: np.ndarray,
    block: tuple[int, int, bool],
    arrays: tuple[np.ndarray, ...],
    n_scalar: int,
    n_list: int,
    kind: str,
    verdicts: Verdicts | None = None,
) -> Part:
    """Scan one block and copy out its needed strings (runs in a worker thread). With
    `verdicts` (a `field` selection only) the selected key and the returned ids are not
    copied: `verdict_kernel.any_verdicts` reads them in place and gives each row its
    verdict, so the block's spans are freed before the next block is scanned."""
    from scorers.rop import scan_kernel as k

    lo, hi, last = block
    newlines, quotes = k.count_lines(buf, lo, hi)
    n_lines = newlines + (1 if last else 0)
    cap = quotes // 2 + 1
    scan: Any = k.scan_block  # a Numba dispatcher: its call signature is not typed
    out = scan(buf, lo, hi, n_lines, cap, *arrays, n_scalar, n_list)
    status, starts, ends, sc_type, sc_start, sc_end, li_type, li_bad, li_count = out[:9]
    el_start, el_end = out[9], out[10]
    part = Part(n_lines)
    ok = status == k.OK
    has_id = ok & (sc_type[:, 0] == k.STRING) & (sc_end[:, 0] > sc_start[:, 0])
    part.rows = np.flatnonzero(has_id)
    part.malformed = np.flatnonzero(ok & ~has_id)
    slow = np.flatnonzero(status == k.SLOW)
    part.slow = list(zip(slow.tolist(), starts[slow].tolist(), ends[slow].tolist(), strict=True))
    rows = part.rows
    one = np.ones(len(rows), dtype=np.int64)
    yes = np.ones(len(rows), dtype=bool)
    part.strings["rid"] = _array(k.gather(buf, sc_start[rows, 0], sc_end[rows, 0], one, yes))
    if kind == "ids":
        return part
    if verdicts is not None:
        assert kind == "field"
        from scorers.rop import verdict_kernel as vk

        kernel: Any = vk.any_verdicts  # a Numba dispatcher: its call signature is not typed
        part.codes = kernel(
            buf, rows, sc_type[:, 1], sc_start[:, 1], sc_end[:, 1],
            li_type[:, 0], li_bad[:, 0], li_count[:, 0], el_start[0], el_end[0], *verdicts,
        )  # fmt: skip
        return part
    if kind in ("field", "witness"):
        t, a, b = sc_type[rows, 1], sc_start[rows, 1], sc_end[rows, 1]
        good = (t == k.STRING) & (b > a)
        if kind == "witness":  # decoded in Python: keep the spans of strings, empty or not
            part.spans["sel"] = (a, b, t == k.STRING)
            t2, a2, b2 = sc_type[rows, 2], sc_start[rows, 2], sc_end[rows, 2]
            part.spans["bind"] = (a2, b2, t2 == k.STRING)
        else:
            got = k.gather(buf, a, b, one, good)
            part.strings["sel"], part.counts["sel"] = _array(got), got[2]
        part.flags["sel"] = good
    is_row = np.zeros(n_lines, dtype=bool)
    is_row[rows] = True
    for name, s in (("sel", 0), ("ret", n_list - 1)) if kind == "alternatives" else (("ret", 0),):
        # Over every line, so that the elements need no index: line i owns the next
        # li_count[i, s] spans of slot s, whether it is a row or not.
        usable = (li_type[:, s] == k.STRING) & (li_bad[:, s] == 0)
        if name == "sel":
            usable &= li_count[:, s] > 0
        counts = np.ascontiguousarray(li_count[:, s])
        got = k.gather(buf, el_start[s], el_end[s], counts, is_row & usable)
        part.strings[name], part.counts[name] = _array(got), got[2][rows]
        part.flags[name], part.fingerprints[name] = usable[rows], got[3]
    return part


def _scan(
    data: bytes,
    trie: _Trie,
    n_scalar: int,
    n_list: int,
    kind: str,
    verdicts: Verdicts | None = None,
) -> list[Part]:
    """Scan every block (threads, one per core)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    arrays = trie.arrays()
    blocks = _blocks(data)
    workers = min(os.cpu_count() or 1, 8, len(blocks))

    def one(block: tuple[int, int, bool]) -> Part:
        return _part(buf, block, arrays, n_scalar, n_list, kind, verdicts)

    if workers <= 1:
        return [one(b) for b in blocks]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, blocks))


def _concat(parts: list[Part], name: str) -> pa.Array:
    return pa.concat_arrays([p.strings[name] for p in parts])


def _texts(data: bytes, spans: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[Any]:
    starts, ends, valid = spans
    return [
        data[a:b].decode("utf-8") if v else None
        for a, b, v in zip(starts.tolist(), ends.tolist(), valid.tolist(), strict=True)
    ]


@dataclass
class Scanned:
    """The blocks of one scan, with the 1-based line number of each block's first line."""

    parts: list[Part]
    base: np.ndarray

    def row_lines(self) -> np.ndarray:
        """Line number of every row the kernel read itself, in file order."""
        rows = [p.rows + b for p, b in zip(self.parts, self.base, strict=True)]
        return np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)

    def malformed_lines(self) -> np.ndarray:
        bad = [p.malformed + b for p, b in zip(self.parts, self.base, strict=True)]
        return np.concatenate(bad).astype(np.int64) if bad else np.zeros(0, np.int64)

    def slow_lines(self) -> list[tuple[int, int, int]]:
        """(line number, start, end) of every line left to the line parser."""
        return [
            (int(i + b), lo, hi)
            for p, b in zip(self.parts, self.base, strict=True)
            for i, lo, hi in p.slow
        ]

    def record_ids(self) -> list[str]:
        ids: list[str] = _concat(self.parts, "rid").to_pylist()
        return ids


def scan_parts(
    data: bytes,
    id_path: tuple[str, ...],
    decl: Declaration | None,
    verdicts: Verdicts | None = None,
) -> Scanned | None:
    """The compiled scan of every block, or None when it cannot run (see the module's
    docstring). `verdicts` (a `field` selection only): see `_part`."""
    try:
        import scorers.rop.scan_kernel  # noqa: F401  (Numba missing: another parser reads)
    except ImportError:
        return None
    try:
        trie, n_scalar, n_list = _trie(id_path, decl)
    except _Overlap:
        return None
    kind = "ids" if decl is None else decl.selection.kind
    parts = _scan(data, trie, n_scalar, n_list, kind, verdicts)
    base = np.concatenate([[1], np.cumsum([p.n_lines for p in parts])[:-1] + 1])
    return Scanned(parts, base.astype(np.int64))


def fast_rows(
    data: bytes, id_path: tuple[str, ...], decl: Declaration | None
) -> tuple[RawRows, int] | None:
    """(rows, number of lines the kernel read itself), or None when the scan cannot run."""
    scanned = scan_parts(data, id_path, decl)
    if scanned is None:
        return None
    parts = scanned.parts
    kind = "ids" if decl is None else decl.selection.kind
    lines = scanned.row_lines()
    malformed = scanned.malformed_lines()
    n = len(lines)
    try:
        out = RawRows(
            lines=lines,
            record_ids=scanned.record_ids(),
            malformed_lines=malformed.tolist(),
            sel_status=np.zeros(n, dtype=np.int8),
            sel_values=pa.array([], pa.string()),
            sel_parents=np.zeros(0, dtype=np.int64),
            witnesses=[],
            bindings=[],
            ret_ok=np.zeros(n, dtype=bool),
            ret_values=pa.array([], pa.string()),
            ret_offsets=np.zeros(n + 1, dtype=np.int64),
        )
        if decl is not None:
            _fill(out, data, parts, kind)
    except (pa.ArrowInvalid, pa.ArrowCapacityError, OverflowError):
        return None  # more string data than 32-bit offsets hold
    parsed = n + len(malformed)
    slow = scanned.slow_lines()
    if not slow:
        return out, parsed
    checked = python_rows(((ln, data[lo:hi]) for ln, lo, hi in slow), id_path, decl)
    return merge_rows(out, checked), parsed


def scan_rows(data: bytes, id_path: tuple[str, ...], decl: Declaration | None) -> RawRows | None:
    out = fast_rows(data, id_path, decl)
    return out[0] if out is not None else None


def _fill(out: RawRows, data: bytes, parts: list[Part], kind: str) -> None:
    """Selection and returned ids of every row, from the blocks' copied-out strings."""
    n = len(out.record_ids)
    rows = np.arange(n, dtype=np.int64)
    sel = np.concatenate([p.flags["sel"] for p in parts]) if parts else np.zeros(0, bool)
    out.sel_status = np.where(sel, 0, SELECTOR_ERROR).astype(np.int8)
    if kind == "witness":
        out.sel_status = np.zeros(n, dtype=np.int8)  # decided when the witness is decoded
        out.witnesses = [t for p in parts for t in _texts(data, p.spans["sel"])]
        out.bindings = [t for p in parts for t in _texts(data, p.spans["bind"])]
    else:
        counts = np.concatenate([p.counts["sel"] for p in parts])
        out.sel_values = _concat(parts, "sel")
        out.sel_parents = np.repeat(rows, counts)
    counts = np.concatenate([p.counts["ret"] for p in parts])
    out.ret_ok = np.concatenate([p.flags["ret"] for p in parts])
    out.ret_values = _concat(parts, "ret")
    out.ret_fp = np.concatenate([p.fingerprints["ret"] for p in parts])
    out.ret_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
