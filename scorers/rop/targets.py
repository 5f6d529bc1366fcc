"""Selected-object vs dataset-trace target comparison ("Does the Selected Object Reach the Reader?", Section 3.4, Tables 16-18).

Every ranking is scored twice against the same returned ids: P = the selected
object U is among the first k (any rule, through the resolver), H = the trace
object G is. Per stack and cutoff the joint counts P1H1/P1H0/P0H1/P0H0, the
number of different labels (P1H0 + P0H1) and both recalls are reported; for a
declared pair of stacks, the change in selected-object return with a
question-cluster bootstrap interval (records sharing a question are dependent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scorers.rop.fields import some_rows, text_field
from scorers.rop.resampling import Interval
from scorers.rop.resolver import Resolver
from vocabulary.errors import InputError

SUBSETS = ("all", "distinct", "aligned")


@dataclass(frozen=True)
class TargetRecord:
    record_id: str
    question_id: str | None
    selected: str | None  # resolved U (None: missing or unresolvable)
    trace: str | None  # resolved G
    rankings: dict[str, list[str | None]]  # resolved ids per stack (None: unknown raw id)
    group: str | None = None


def _resolve(raw: Any, resolver: Resolver | None) -> str | None:
    if not isinstance(raw, str) or not raw:
        return None
    return resolver.resolve(raw) if resolver is not None else raw


def parse_target_records(
    rows: Sequence[tuple[int, dict[str, Any]]],
    source: str,
    resolver: Resolver | None,
    *,
    cluster_field: str | None = None,
    group_field: str | None = None,
) -> list[TargetRecord]:
    """Check and resolve `{"record_id","question_id","selected","trace","rankings"}` rows."""
    out: list[TargetRecord] = []
    seen: dict[str, int] = {}
    stacks: tuple[str, ...] | None = None
    for lineno, obj in rows:
        rid = text_field(obj, "record_id", source, lineno)
        if rid in seen:
            raise InputError(
                f"record_id {rid!r} repeats line {seen[rid]}", file=source, line=lineno
            )
        seen[rid] = lineno
        rankings = obj.get("rankings")
        if not isinstance(rankings, dict) or not rankings:
            raise InputError(
                "'rankings' must map each stack to a list of returned ids",
                file=source,
                line=lineno,
            )
        if stacks is None:
            stacks = tuple(rankings)
        elif set(rankings) != set(stacks):
            raise InputError(
                f"stacks {sorted(rankings)} differ from line {rows[0][0]} {sorted(stacks)}",
                file=source,
                line=lineno,
                hint="every record ranks with the same stacks",
            )
        resolved: dict[str, list[str | None]] = {}
        for stack, ids in rankings.items():
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise InputError(
                    f"rankings.{stack} must be a list of id strings", file=source, line=lineno
                )
            resolved[stack] = [_resolve(i, resolver) for i in ids]
        cluster = obj.get(cluster_field) if cluster_field else obj.get("question_id")
        if cluster_field and (not isinstance(cluster, str) or not cluster):
            raise InputError(
                f"needs a non-empty string {cluster_field!r} for the cluster bootstrap",
                file=source,
                line=lineno,
            )
        group = obj.get(group_field) if group_field else None
        if group_field and not isinstance(group, str):
            raise InputError(f"needs a string {group_field!r}", file=source, line=lineno)
        out.append(
            TargetRecord(
                record_id=rid,
                question_id=cluster if isinstance(cluster, str) else None,
                selected=_resolve(obj.get("selected"), resolver),
                trace=_resolve(obj.get("trace"), resolver),
                rankings=resolved,
                group=group,
            )
        )
    return some_rows(out, "records", source)


def _labels(records: Sequence[TargetRecord], stack: str, k: int) -> tuple[np.ndarray, np.ndarray]:
    p = np.fromiter((r.selected in r.rankings[stack][:k] for r in records), bool, len(records))
    h = np.fromiter((r.trace in r.rankings[stack][:k] for r in records), bool, len(records))
    return p, h


@dataclass(frozen=True)
class JointCounts:
    """Joint counts of P (the selected target in the top k) and H (the trace target)."""

    n: int
    p1h1: int
    p1h0: int
    p0h1: int
    p0h0: int
    recall_selected: float | None  # None: no record
    recall_trace: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "P1H1": self.p1h1,
            "P1H0": self.p1h0,
            "P0H1": self.p0h1,
            "P0H0": self.p0h0,
            "different_labels": self.p1h0 + self.p0h1,
            "recall_selected": self.recall_selected,
            "recall_trace": self.recall_trace,
        }


def joint_counts(p: np.ndarray, h: np.ndarray) -> JointCounts:
    n = len(p)
    return JointCounts(
        n=n,
        p1h1=int(np.sum(p & h)),
        p1h0=int(np.sum(p & ~h)),
        p0h1=int(np.sum(~p & h)),
        p0h0=int(np.sum(~p & ~h)),
        recall_selected=float(p.mean()) if n else None,
        recall_trace=float(h.mean()) if n else None,
    )


def cluster_bootstrap_change(
    base: np.ndarray,
    new: np.ndarray,
    clusters: Sequence[str],
    *,
    resamples: int,
    seed: int,
    confidence: float = 0.95,
) -> Interval:
    """Percentile interval for mean(new) - mean(base), resampling whole clusters.

    Per cluster the summed change and the record count are resampled together
    (scipy.stats.bootstrap, paired), so the statistic is the pooled change over
    the records of the drawn clusters.
    """
    from scipy import stats

    _, inverse = np.unique(np.asarray(clusters, dtype=object), return_inverse=True)
    m = int(inverse.max()) + 1 if len(inverse) else 0
    diff_sum = np.bincount(inverse, weights=new.astype(float) - base.astype(float), minlength=m)
    size = np.bincount(inverse, minlength=m).astype(float)
    if m < 2 or resamples < 1:
        return Interval(resamples, m, confidence, seed, None, None)

    def ratio(d: np.ndarray, s: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(d.sum(axis=axis) / s.sum(axis=axis))

    res = stats.bootstrap(
        (diff_sum, size),
        ratio,
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return Interval(
        resamples,
        m,
        confidence,
        seed,
        float(res.confidence_interval.low),
        float(res.confidence_interval.high),
    )


@dataclass(frozen=True)
class TargetRow:
    """One row of the targets table: a stack at a cutoff, in one group (None: all)."""

    stack: str
    cutoff: int
    group: str | None
    counts: JointCounts

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "cutoff": self.cutoff,
            "group": self.group,
            **self.counts.to_json(),
        }


@dataclass(frozen=True)
class PairChange:
    """`--pair BASE,NEW` at one cutoff: the change of the selected target's recall."""

    base: str
    new: str
    cutoff: int
    n: int
    base_recall_selected: float | None
    new_recall_selected: float | None
    change: float | None
    miss_to_hit: int
    hit_to_miss: int
    bootstrap: Interval | None  # with --resamples only

    @property
    def change_points(self) -> float | None:
        return 100 * self.change if self.change is not None else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "base": self.base,
            "new": self.new,
            "cutoff": self.cutoff,
            "n": self.n,
            "base_recall_selected": self.base_recall_selected,
            "new_recall_selected": self.new_recall_selected,
            "change": self.change,
            "change_points": self.change_points,
            "miss_to_hit": self.miss_to_hit,
            "hit_to_miss": self.hit_to_miss,
        }
        if self.bootstrap is not None:
            out["bootstrap"] = self.bootstrap.to_json()
        return out


@dataclass(frozen=True)
class TargetComparison:
    """The target-comparison report (`evaudit rop targets --json`)."""

    records: int
    usable_records: int
    excluded_record_ids: list[str]
    distinct_records: int
    aligned_records: int
    subset: str
    records_scored: int
    stacks: list[str]
    cutoffs: list[int]
    table: list[TargetRow]
    pairs: list[PairChange]
    resolver: str | None = None  # the --resolver file, as given

    def to_json(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "usable_records": self.usable_records,
            "excluded_record_ids": self.excluded_record_ids,
            "distinct_records": self.distinct_records,
            "aligned_records": self.aligned_records,
            "subset": self.subset,
            "records_scored": self.records_scored,
            "stacks": self.stacks,
            "cutoffs": self.cutoffs,
            "table": [r.to_json() for r in self.table],
            "pairs": [p.to_json() for p in self.pairs],
            "resolver": self.resolver,
        }


def compare_targets(
    records: Sequence[TargetRecord],
    cutoffs: Sequence[int],
    *,
    subset: str = "all",
    pair: tuple[str, str] | None = None,
    resamples: int = 0,
    seed: int = 0,
    by_group: bool = False,
) -> TargetComparison:
    """The target-comparison report (`evaudit rop targets --json`)."""
    stacks = list(records[0].rankings)
    usable = [r for r in records if r.selected is not None and r.trace is not None]
    distinct = [r for r in usable if r.selected != r.trace]
    chosen = {"all": usable, "distinct": distinct}.get(
        subset, [r for r in usable if r.selected == r.trace]
    )
    if pair is not None:
        unknown = [s for s in pair if s not in stacks]
        if unknown:
            raise InputError(
                f"--pair names unknown stack {unknown[0]!r}", hint=f"stacks are {stacks}"
            )
    groups: list[str | None] = [None]
    if by_group:
        groups += sorted({r.group for r in chosen if r.group is not None})
    table = []
    for stack in stacks:
        for k in cutoffs:
            for g in groups:
                rows = chosen if g is None else [r for r in chosen if r.group == g]
                p, h = _labels(rows, stack, k)
                table.append(TargetRow(stack, k, g, joint_counts(p, h)))
    pairs = []
    if pair is not None:
        for k in cutoffs:
            base, _ = _labels(chosen, pair[0], k)
            new, _ = _labels(chosen, pair[1], k)
            n = len(chosen)
            boot = None
            if resamples:
                clusters = [r.question_id or r.record_id for r in chosen]
                boot = cluster_bootstrap_change(base, new, clusters, resamples=resamples, seed=seed)
            pairs.append(
                PairChange(
                    base=pair[0],
                    new=pair[1],
                    cutoff=k,
                    n=n,
                    base_recall_selected=float(base.mean()) if n else None,
                    new_recall_selected=float(new.mean()) if n else None,
                    change=float(new.mean() - base.mean()) if n else None,
                    miss_to_hit=int(np.sum(~base & new)),
                    hit_to_miss=int(np.sum(base & ~new)),
                    bootstrap=boot,
                )
            )
    return TargetComparison(
        records=len(records),
        usable_records=len(usable),
        excluded_record_ids=[r.record_id for r in records if r.selected is None or r.trace is None],
        distinct_records=len(distinct),
        aligned_records=len(usable) - len(distinct),
        subset=subset,
        records_scored=len(chosen),
        stacks=stacks,
        cutoffs=list(cutoffs),
        table=table,
        pairs=pairs,
    )
