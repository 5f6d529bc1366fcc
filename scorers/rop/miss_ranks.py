"""Ranks of missed selected objects ("Does the Selected Object Reach the Reader?", Tables 7, 15 and 19).

For one stack and cutoff k, every record whose selected object U is not in the first k
returned ids is a miss. Its rank is the first position (1-based) among the first ``depth``
ids that resolves to U, or None ("> depth": absent from the released list). A miss is
``near_cutoff`` when the rank is known (k < rank <= depth) and ``absent`` otherwise.

The absent misses are split further only when the record gives the number of documents
that satisfy the stack's OR query (``or_matches: {STACK: n}``, Table 19): with fewer than
``depth`` matching documents the list holds every match, so U's absence is a verified
``nonmatch``; with ``depth`` or more, a lower rank cannot be told from a nonmatch
(``unresolved``). Without the count the split is not made (reported as null).

Records: the `rop targets` rows, plus the optional ``or_matches`` object.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorers.rop.targets import TargetRecord
from vocabulary.errors import InputError


def rank_of(target: str | None, ranking: Sequence[str | None], depth: int) -> int | None:
    """1-based rank of the first id resolving to ``target`` within ``depth``, else None."""
    if target is None:
        return None
    for pos, obj in enumerate(ranking[:depth], start=1):
        if obj == target:
            return pos
    return None


def parse_or_matches(
    rows: Sequence[tuple[int, dict[str, Any]]], source: str
) -> dict[str, dict[str, int]]:
    """{record id: {stack: OR-match count}} for the rows that give ``or_matches``."""
    out: dict[str, dict[str, int]] = {}
    for line, obj in rows:
        raw = obj.get("or_matches")
        if raw is None:
            continue
        if not isinstance(raw, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in raw.values()
        ):
            raise InputError("'or_matches' must map stacks to counts >= 0", file=source, line=line)
        out[str(obj.get("record_id"))] = dict(raw)
    return out


@dataclass(frozen=True)
class Miss:
    record_id: str
    group: str | None
    selected: str | None
    trace: str | None
    rank_selected: int | None  # within depth, else None (> depth)
    rank_trace: int | None
    ranks_other: dict[str, int | None]  # U's rank in every stack (Table 7's columns)
    kind: str  # near_cutoff | absent
    absent_split: str | None  # nonmatch | unresolved | None (no OR-match count)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class PartitionRow:
    """One row of Table 19 (``group`` None for the pooled row)."""

    group: str | None
    records: int
    absent_at_k: int
    near_cutoff: int
    nonmatch: int | None
    unresolved: int | None
    absent_unsplit: int  # absent misses without an OR-match count

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ObjectRow:
    """One row of Table 7: a missed selected object, its rows and ranks per stack."""

    selected: str
    rows: int
    ranks: dict[str, list[int | None]]  # distinct ranks over its rows, per stack

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class MissReport:
    stack: str
    cutoff: int
    depth: int
    records: int
    misses: list[Miss]
    partition: list[PartitionRow]
    objects: list[ObjectRow]

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "cutoff": self.cutoff,
            "depth": self.depth,
            "records": self.records,
            "missed": len(self.misses),
            "near_cutoff": sum(1 for m in self.misses if m.kind == "near_cutoff"),
            "absent": sum(1 for m in self.misses if m.kind == "absent"),
            "partition": [p.to_json() for p in self.partition],
            "objects": [o.to_json() for o in self.objects],
            "misses": [m.to_json() for m in self.misses],
        }


def miss_ranks(
    records: Sequence[TargetRecord],
    stack: str,
    cutoff: int,
    depth: int,
    or_matches: dict[str, dict[str, int]] | None = None,
) -> MissReport:
    """Misses of U at ``cutoff`` in ``stack`` with their ranks up to ``depth``."""
    if depth < cutoff:
        raise InputError(f"--depth {depth} is below --cutoff {cutoff}", hint="depth >= cutoff")
    if records and stack not in records[0].rankings:
        raise InputError(
            f"stack {stack!r} is not in the records", hint=f"stacks: {sorted(records[0].rankings)}"
        )
    counts = or_matches or {}
    # A record without a resolvable U (or G) has no rank to report; `rop targets` excludes
    # it the same way.
    records = [r for r in records if r.selected is not None and r.trace is not None]
    misses: list[Miss] = []
    for r in records:
        ranking = r.rankings[stack]
        if r.selected in ranking[:cutoff]:
            continue
        rank = rank_of(r.selected, ranking, depth)
        split = None
        if rank is None:
            n = counts.get(r.record_id, {}).get(stack)
            if n is not None:
                split = "nonmatch" if n < depth else "unresolved"
        misses.append(
            Miss(
                record_id=r.record_id,
                group=r.group,
                selected=r.selected,
                trace=r.trace,
                rank_selected=rank,
                rank_trace=rank_of(r.trace, ranking, depth),
                ranks_other={s: rank_of(r.selected, ids, depth) for s, ids in r.rankings.items()},
                kind="near_cutoff" if rank is not None else "absent",
                absent_split=split,
            )
        )
    groups = sorted({r.group for r in records if r.group is not None})
    partition = []
    for g in [*groups, None] if groups else [None]:
        ms = [m for m in misses if g is None or m.group == g]
        absent = [m for m in ms if m.kind == "absent"]
        unsplit = sum(1 for m in absent if m.absent_split is None)
        has_split = len(absent) > unsplit or not absent
        partition.append(
            PartitionRow(
                group=g,
                records=sum(1 for r in records if g is None or r.group == g),
                absent_at_k=len(ms),
                near_cutoff=len(ms) - len(absent),
                nonmatch=sum(1 for m in absent if m.absent_split == "nonmatch")
                if has_split
                else None,
                unresolved=sum(1 for m in absent if m.absent_split == "unresolved")
                if has_split
                else None,
                absent_unsplit=unsplit,
            )
        )
    objects: dict[str, list[Miss]] = {}
    for m in misses:
        if m.selected is not None:
            objects.setdefault(m.selected, []).append(m)
    stacks = list(records[0].rankings) if records else []
    rows = [
        ObjectRow(
            selected=obj,
            rows=len(ms),
            ranks={
                s: sorted({m.ranks_other[s] for m in ms}, key=lambda v: (v is None, v or 0))
                for s in stacks
            },
        )
        for obj, ms in sorted(objects.items())
    ]
    return MissReport(stack, cutoff, depth, len(records), misses, partition, rows)
