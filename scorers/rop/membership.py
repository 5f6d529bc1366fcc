"""Vectorised record verdicts: resolve identities, apply the cutoff, test any/all membership.

Rules ("Does the Selected Object Reach the Reader?", "Resolve identities and test the ranking"): the cutoff is
applied first; duplicates keep their positions and use up cutoff slots; unknown
returned ids never match; ``any`` needs one returned id resolving to an
acceptable object, ``all`` needs every raw member M_v(o) of one acceptable
object among the first k raw ids.

Returned ids arrive as one flat array with row offsets; resolution is one hash
lookup per id (``pyarrow.compute.index_in``, split across cores) and membership
is NumPy over codes, without per-record Python.

This is the only implementation of Table 11 the evaluator uses (witnesses are
decoded here too); `scorers.rop.reference` is the per-record oracle that tests
and the benchmark hold it to.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa

from scorers.rop.columns import RecordColumns
from scorers.rop.declaration import Declaration
from scorers.rop.prefilter import any_hits_single
from scorers.rop.resolver import Resolver
from scorers.rop.strings import index_codes, positions, strings
from scorers.rop.verdicts import FAIL, PASS, RESOLUTION_ERROR, SELECTOR_ERROR, UNVERIFIABLE

_HEX = frozenset("0123456789abcdef")

_LOOKUP_SPLIT = 1 << 21  # ids per thread-share when resolving large arrays


class _Keys:
    """The resolver's raw ids as a lookup table (Arrow; a dict when Arrow cannot hold them)."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        try:
            self.arrow: pa.Array | None = resolver.raw_keys()
        except UnicodeEncodeError:  # a lone surrogate (JSON "\\ud800") is no UTF-8
            self.arrow = None

    def __len__(self) -> int:
        return len(self.resolver.raw_to_canonical)

    def codes(self, values: Any) -> np.ndarray:
        """Position of each value among the resolver's raw keys; -1 when unknown."""
        if len(values) == 0:
            return np.zeros(0, dtype=np.int32)
        arr = values
        if self.arrow is not None and not isinstance(values, pa.Array):
            arr = strings(values)
        if self.arrow is None or not isinstance(arr, pa.Array):
            return self._dict_codes(values)
        return _index_in(arr, self.arrow)

    def _dict_codes(self, values: Any) -> np.ndarray:
        items = values.to_pylist() if isinstance(values, pa.Array) else values
        index = {k: i for i, k in enumerate(self.resolver.raw_to_canonical)}
        return np.fromiter((index.get(v, -1) for v in items), dtype=np.int32, count=len(items))


def _index_in(arr: pa.Array, keys: pa.Array) -> np.ndarray:
    def lookup(part: pa.Array) -> np.ndarray:
        return index_codes(part, keys)

    workers = min(os.cpu_count() or 1, 8, len(arr) // _LOOKUP_SPLIT)
    if workers <= 1:
        return lookup(arr)
    step = -(-len(arr) // workers)  # pyarrow releases the GIL: one share per core
    with ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(lookup, [arr.slice(k, step) for k in range(0, len(arr), step)]))
    return np.concatenate(parts)


def _mark(rows: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, dtype=bool)
    out[rows] = True
    return out


def _head(cols: RecordColumns, cutoff: int) -> tuple[Any, np.ndarray]:
    """The first `cutoff` returned ids of every row (duplicates keep their slots) and
    their offsets."""
    offsets = cols.ret_offsets
    lengths = np.diff(offsets)
    if len(lengths) == 0 or int(lengths.max()) <= cutoff:
        return cols.ret_values, offsets
    starts = np.repeat(offsets[:-1], lengths)
    head = np.arange(int(offsets[-1]), dtype=np.int64) - starts < cutoff
    values: Any = cols.ret_values
    if isinstance(values, pa.Array):
        values = values.take(positions(np.flatnonzero(head)))
    else:
        values = [v for v, h in zip(values, head.tolist(), strict=True) if h]
    kept = np.minimum(lengths, cutoff)
    return values, np.concatenate([[0], np.cumsum(kept)]).astype(np.int64)


def assign_verdicts(cols: RecordColumns, decl: Declaration) -> np.ndarray:
    """One verdict code per row (codes index RECORD_VERDICTS), in Table 11 order, for a
    valid hard-mode declaration."""
    if decl.selection.kind == "witness":
        status, values, parents = decode_witnesses(
            cols.record_ids, cols.witnesses, cols.bindings, decl
        )
        cols = replace(cols, sel_status=status, sel_values=values, sel_parents=parents)
    return _verdicts(cols, decl.resolver, decl.cutoff, decl.membership)


def _verdicts(cols: RecordColumns, resolver: Resolver, cutoff: int, membership: str) -> np.ndarray:
    n = cols.n
    keys = _Keys(resolver)
    to_canon = np.append(resolver.raw_to_canonical_codes(), -1).astype(np.int32)  # -1 -> -1

    # SELECTOR_ERROR, then RESOLUTION_ERROR: every acceptable key must resolve.
    verdict = np.full(n, FAIL, dtype=np.int8)
    sel_raw = keys.codes(cols.sel_values)
    unresolved = _mark(cols.sel_parents[sel_raw < 0], n) | (cols.sel_status == RESOLUTION_ERROR)
    # UNVERIFIABLE: missing or malformed returned-ID list.
    verdict[~cols.ret_ok] = UNVERIFIABLE
    verdict[unresolved] = RESOLUTION_ERROR
    verdict[cols.sel_status == SELECTOR_ERROR] = SELECTOR_ERROR
    testable = verdict == FAIL

    # Cutoff first: only the first k positions (duplicates included) take part.
    values, offsets = _head(cols, cutoff)
    sel_ok = sel_raw >= 0
    sel_rows, sel_canon = cols.sel_parents[sel_ok], to_canon[sel_raw[sel_ok]]
    hit = None
    single = len(sel_rows) == 0 or bool(np.all(np.diff(sel_rows) > 0))
    if membership == "any" and single and keys.arrow is not None:
        target = np.full(n, -2, dtype=np.int64)  # -2: no target, never a code
        target[sel_rows] = sel_canon
        hit = any_hits_single(values, offsets, target, keys.arrow, to_canon, keys.codes)
    if hit is None:
        ret_raw = keys.codes(values)  # unknown returned ids (-1) never match
        if membership == "any":
            n_canon = len(resolver.canonical)
            hit = _any_hits(offsets, to_canon[ret_raw], sel_rows, sel_canon, n, n_canon)
        else:
            hit = _all_hits(offsets, ret_raw, sel_rows, sel_canon, resolver, n, len(keys))
    verdict[testable & hit] = PASS
    return verdict


def _rows_of(offsets: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


def _any_hits(
    offsets: np.ndarray,
    ret_canon: np.ndarray,
    sel_rows: np.ndarray,
    sel_canon: np.ndarray,
    n: int,
    n_canon: int,
) -> np.ndarray:
    if len(sel_rows) == 0 or bool(np.all(np.diff(sel_rows) > 0)):
        # At most one acceptable object per row: compare in place (-2 never equals a code).
        target = np.full(n, -2, dtype=np.int64)
        target[sel_rows] = sel_canon
        lengths = np.diff(offsets)
        if n and len(ret_canon) == n * int(lengths[0]) and bool(np.all(lengths == lengths[0])):
            width = int(lengths[0])  # every list equally long: a dense (n, k) matrix
            return (ret_canon.reshape(n, width) == target[:, None]).any(axis=1)
        same = np.concatenate([[0], np.cumsum(ret_canon == np.repeat(target, lengths))])
        return same[offsets[1:]] > same[offsets[:-1]]
    # Alternatives: (row, object) pairs shared by the returned and acceptable sets.
    ret_rows = _rows_of(offsets)
    known = ret_canon >= 0
    width = max(n_canon, 1)
    ret_keys = ret_rows[known] * width + ret_canon[known]
    sel_keys = sel_rows * width + sel_canon
    return _mark(ret_rows[known][np.isin(ret_keys, sel_keys)], n)


def _all_hits(
    offsets: np.ndarray,
    ret_raw: np.ndarray,
    sel_rows: np.ndarray,
    sel_canon: np.ndarray,
    resolver: Resolver,
    n: int,
    n_raw: int,
) -> np.ndarray:
    known = ret_raw >= 0
    ret_rows, ret_raw = _rows_of(offsets)[known], ret_raw[known]
    # One task per (row, acceptable object); duplicates of an object are harmless.
    task_rows, task_canon = sel_rows, sel_canon
    member_offsets, member_raw = resolver.member_raw_codes()
    counts = member_offsets[task_canon + 1] - member_offsets[task_canon]
    task_of = np.repeat(np.arange(len(task_rows), dtype=np.int64), counts)
    starts = np.repeat(member_offsets[task_canon], counts)
    first = np.cumsum(counts) - counts  # where each task's members start in task_of
    within = np.arange(len(task_of), dtype=np.int64) - np.repeat(first, counts)
    need_raw = member_raw[starts + within]
    width = max(n_raw, 1)
    present = np.isin(task_rows[task_of] * width + need_raw, ret_rows * width + ret_raw)
    found = np.bincount(task_of[present], minlength=len(task_rows))
    complete = found == counts
    return _mark(task_rows[complete], n)


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
        if bound != decl.binding(rid, witness, decoded):
            status[row] = SELECTOR_ERROR
            continue
        values.append(decoded)
        parents.append(row)
    return status, values, np.asarray(parents, dtype=np.int64)


def _is_sha(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX
