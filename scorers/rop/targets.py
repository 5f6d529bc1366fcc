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


def joint_counts(p: np.ndarray, h: np.ndarray) -> dict[str, Any]:
    n = len(p)
    counts: dict[str, Any] = {
        "n": n,
        "P1H1": int(np.sum(p & h)),
        "P1H0": int(np.sum(p & ~h)),
        "P0H1": int(np.sum(~p & h)),
        "P0H0": int(np.sum(~p & ~h)),
    }
    counts["different_labels"] = counts["P1H0"] + counts["P0H1"]
    counts["recall_selected"] = float(p.mean()) if n else None
    counts["recall_trace"] = float(h.mean()) if n else None
    return counts


def cluster_bootstrap_change(
    base: np.ndarray,
    new: np.ndarray,
    clusters: Sequence[str],
    *,
    resamples: int,
    seed: int,
    confidence: float = 0.95,
) -> dict[str, Any]:
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
    out: dict[str, Any] = {
        "resamples": resamples,
        "clusters": m,
        "confidence": confidence,
        "seed": seed,
        "ci_low": None,
        "ci_high": None,
    }
    if m < 2 or resamples < 1:
        return out

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
    out["ci_low"] = float(res.confidence_interval.low)
    out["ci_high"] = float(res.confidence_interval.high)
    return out


def compare_targets(
    records: Sequence[TargetRecord],
    cutoffs: Sequence[int],
    *,
    subset: str = "all",
    pair: tuple[str, str] | None = None,
    resamples: int = 0,
    seed: int = 0,
    by_group: bool = False,
) -> dict[str, Any]:
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
                table.append({"stack": stack, "cutoff": k, "group": g, **joint_counts(p, h)})
    pairs = []
    if pair is not None:
        for k in cutoffs:
            base, _ = _labels(chosen, pair[0], k)
            new, _ = _labels(chosen, pair[1], k)
            n = len(chosen)
            change = float(new.mean() - base.mean()) if n else None
            entry: dict[str, Any] = {
                "base": pair[0],
                "new": pair[1],
                "cutoff": k,
                "n": n,
                "base_recall_selected": float(base.mean()) if n else None,
                "new_recall_selected": float(new.mean()) if n else None,
                "change": change,
                "change_points": 100 * change if change is not None else None,
                "miss_to_hit": int(np.sum(~base & new)),
                "hit_to_miss": int(np.sum(base & ~new)),
            }
            if resamples:
                clusters = [r.question_id or r.record_id for r in chosen]
                entry["bootstrap"] = cluster_bootstrap_change(
                    base, new, clusters, resamples=resamples, seed=seed
                )
            pairs.append(entry)
    return {
        "records": len(records),
        "usable_records": len(usable),
        "excluded_record_ids": [
            r.record_id for r in records if r.selected is None or r.trace is None
        ],
        "distinct_records": len(distinct),
        "aligned_records": len(usable) - len(distinct),
        "subset": subset,
        "records_scored": len(chosen),
        "stacks": stacks,
        "cutoffs": list(cutoffs),
        "table": table,
        "pairs": pairs,
    }
