"""Record verdicts straight from the compiled scan, for `selection.field` with `any`.

The commonest declaration needs no columns of returned ids: as each block is scanned
(on all cores), `verdict_kernel` reads its spans in place and gives every row its
verdict, so only the record ids are copied out. Lines
the scan left to the line parser get their verdicts from the columns path
(`membership.assign_verdicts`), and both sets are merged in file order. Other
declarations (alternatives, witnesses, `all`) use the columns path throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scorers.rop.columns import finish, python_rows
from scorers.rop.declaration import Declaration
from scorers.rop.membership import assign_verdicts
from scorers.rop.resolver import Resolver
from scorers.rop.scan_rows import Scanned, Verdicts, scan_parts
from scorers.rop.verdicts import FAIL, PASS, RESOLUTION_ERROR, SELECTOR_ERROR, UNVERIFIABLE

_CODES = np.array([SELECTOR_ERROR, RESOLUTION_ERROR, UNVERIFIABLE, PASS, FAIL], dtype=np.int8)


@dataclass
class RowVerdicts:
    """Every row with a readable id in file order, its verdict code, and the malformed lines."""

    record_ids: list[str]
    codes: np.ndarray
    malformed_lines: list[int]


def applies(decl: Declaration) -> bool:
    return decl.selection.kind == "field" and decl.membership == "any"


def resolver_table(resolver: Resolver) -> tuple[np.ndarray, ...]:
    """The resolver as `verdict_kernel.any_verdicts` reads it: (key bytes, key records,
    object of each key, hash slots, group offsets, key records of each object's group)."""
    from scorers.rop import verdict_kernel as vk

    # Lone surrogates encode to bytes strict UTF-8 refuses, so the scan (which vouches
    # only for valid UTF-8) never meets them: such keys simply never match.
    raw = [r.encode("utf-8", "surrogatepass") for r in resolver.raw_to_canonical]
    key_off = np.zeros(len(raw) + 1, dtype=np.int64)
    key_off[1:] = np.cumsum([len(r) for r in raw])
    keys = np.frombuffer(b"".join(raw), dtype=np.uint8)
    key_canon = resolver.raw_to_canonical_codes()
    counts = np.bincount(key_canon, minlength=len(resolver.canonical))
    group_off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    slots, rec = vk.build_table(keys, key_off)
    group_rec = np.ascontiguousarray(rec[np.argsort(key_canon, kind="stable")])
    return keys, rec, key_canon, slots, group_off, group_rec


def verdict_args(resolver: Resolver, cutoff: int) -> Verdicts:
    """What `verdict_kernel.any_verdicts` takes after a block's spans."""
    from scorers.rop import scan_kernel as k

    return (*resolver_table(resolver), cutoff, k.STRING, _CODES)


def verdict_scan(data: bytes, decl: Declaration, resolver: Resolver) -> Scanned | None:
    """The scan with each block's verdicts (`decl`'s paths and cutoff, `resolver`), or
    None when the scan cannot run."""
    return scan_parts(data, decl.id_path, decl, verdict_args(resolver, decl.cutoff))


def scan_verdicts(data: bytes, scanned: Scanned, decl: Declaration) -> RowVerdicts | None:
    """Every row of a `verdict_scan` of `data`, with the lines the scan left to the line
    parser given their verdicts by the columns path (None: too many id bytes for Arrow;
    the caller then uses the columns path)."""
    assert applies(decl)
    parts = scanned.parts
    codes = np.concatenate([p.codes for p in parts]) if parts else np.zeros(0, dtype=np.int8)
    try:
        ids = scanned.record_ids()
    except (pa.ArrowInvalid, pa.ArrowCapacityError, OverflowError):
        return None
    malformed = scanned.malformed_lines().tolist()
    slow = scanned.slow_lines()
    if not slow:
        return RowVerdicts(ids, codes, malformed)
    rows = python_rows(((ln, data[lo:hi]) for ln, lo, hi in slow), decl.id_path, decl)
    slow_codes = assign_verdicts(finish(rows, decl), decl.resolver, decl.cutoff, decl.membership)
    order = np.argsort(np.concatenate([scanned.row_lines(), rows.lines]), kind="stable")
    both = ids + rows.record_ids
    return RowVerdicts(
        record_ids=[both[i] for i in order.tolist()],
        codes=np.concatenate([codes, slow_codes])[order],
        malformed_lines=sorted(malformed + rows.malformed_lines),
    )
