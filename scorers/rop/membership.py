"""Vectorised record verdicts: resolve identities, apply the cutoff, test any/all membership.

Rules (seed 000, "Resolve identities and test the ranking"): the cutoff is
applied first; duplicates keep their positions and use up cutoff slots; unknown
returned ids never match; ``any`` needs one returned id resolving to an
acceptable object, ``all`` needs every raw member M_v(o) of one acceptable
object among the first k raw ids.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorers.rop.columns import RecordColumns
from scorers.rop.resolver import Resolver
from scorers.rop.verdicts import FAIL, PASS, RESOLUTION_ERROR, SELECTOR_ERROR, UNVERIFIABLE


def _raw_codes(values: Any, keys: pa.Array) -> np.ndarray:
    """Position of each value among the resolver's raw keys; -1 when unknown."""
    arr = values if isinstance(values, pa.Array) else pa.array(values, type=pa.string())
    if len(arr) == 0:
        return np.zeros(0, dtype=np.int64)
    codes = pc.index_in(arr, value_set=keys).fill_null(-1)
    return np.asarray(codes.to_numpy(zero_copy_only=False), dtype=np.int64)


def _mark(rows: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, dtype=bool)
    out[rows] = True
    return out


def assign_verdicts(
    cols: RecordColumns, resolver: Resolver, cutoff: int, membership: str
) -> np.ndarray:
    """One verdict code per row (codes index RECORD_VERDICTS), in Table 11 order."""
    n = cols.n
    keys = resolver.raw_keys()
    to_canon = resolver.raw_to_canonical_codes()

    # SELECTOR_ERROR, then RESOLUTION_ERROR: every acceptable key must resolve.
    verdict = np.full(n, FAIL, dtype=np.int8)
    sel_raw = _raw_codes(cols.sel_values, keys)
    unresolved = _mark(cols.sel_parents[sel_raw < 0], n) | (cols.sel_status == RESOLUTION_ERROR)
    # UNVERIFIABLE: missing or malformed returned-ID list.
    verdict[~cols.ret_ok] = UNVERIFIABLE
    verdict[unresolved] = RESOLUTION_ERROR
    verdict[cols.sel_status == SELECTOR_ERROR] = SELECTOR_ERROR
    testable = verdict == FAIL

    # Cutoff first: only the first k positions (duplicates included) take part.
    head = cols.ret_pos < cutoff
    ret_rows = cols.ret_parents[head]
    ret_raw = _raw_codes(
        cols.ret_values.filter(pa.array(head))
        if isinstance(cols.ret_values, pa.Array)
        else [v for v, h in zip(cols.ret_values, head, strict=True) if h],
        keys,
    )
    known = ret_raw >= 0  # unknown returned ids never match
    ret_rows, ret_raw = ret_rows[known], ret_raw[known]

    sel_ok = sel_raw >= 0
    sel_rows, sel_canon = cols.sel_parents[sel_ok], to_canon[sel_raw[sel_ok]]
    if membership == "any":
        hit = _any_hits(
            ret_rows, to_canon[ret_raw], sel_rows, sel_canon, n, len(resolver.canonical)
        )
    else:
        hit = _all_hits(ret_rows, ret_raw, sel_rows, sel_canon, resolver, n, len(keys))
    verdict[testable & hit] = PASS
    return verdict


def _any_hits(
    ret_rows: np.ndarray,
    ret_canon: np.ndarray,
    sel_rows: np.ndarray,
    sel_canon: np.ndarray,
    n: int,
    n_canon: int,
) -> np.ndarray:
    if len(sel_rows) == 0 or bool(np.all(np.diff(sel_rows) > 0)):
        # At most one acceptable object per row: compare in place.
        target = np.full(n, -1, dtype=np.int64)
        target[sel_rows] = sel_canon
        return _mark(ret_rows[ret_canon == target[ret_rows]], n)
    # Alternatives: (row, object) pairs shared by the returned and acceptable sets.
    width = np.int64(max(n_canon, 1))
    ret_keys = ret_rows * width + ret_canon
    sel_keys = sel_rows * width + sel_canon
    return _mark(ret_rows[np.isin(ret_keys, sel_keys)], n)


def _all_hits(
    ret_rows: np.ndarray,
    ret_raw: np.ndarray,
    sel_rows: np.ndarray,
    sel_canon: np.ndarray,
    resolver: Resolver,
    n: int,
    n_raw: int,
) -> np.ndarray:
    # One task per (row, acceptable object); duplicates of an object are harmless.
    task_rows, task_canon = sel_rows, sel_canon
    offsets, member_raw = resolver.member_raw_codes()
    counts = offsets[task_canon + 1] - offsets[task_canon]
    task_of = np.repeat(np.arange(len(task_rows), dtype=np.int64), counts)
    starts = np.repeat(offsets[task_canon], counts)
    first = np.cumsum(counts) - counts  # where each task's members start in task_of
    within = np.arange(len(task_of), dtype=np.int64) - np.repeat(first, counts)
    need_raw = member_raw[starts + within]
    width = np.int64(max(n_raw, 1))
    present = np.isin(task_rows[task_of] * width + need_raw, ret_rows * width + ret_raw)
    found = np.bincount(task_of[present], minlength=len(task_rows))
    complete = found == counts
    return _mark(task_rows[complete], n)
