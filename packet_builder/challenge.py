"""Targeted residual-qrel challenge ("Do Current Retrievers Cover All the Evidence?" (supplement)): which judged subsets could reduce a contrast.

Contrast = mean over evaluated queries (those with >= 1 gold) of
gold-only NDCG@k(variant) - NDCG@k(base). Gold-only NDCG uses binary gain
(1 for grade == n) and the log2(rank + 1) discount, as trec_eval's ndcg_cut
with binary qrels. A target is a judged subset in the top-k union of the two
runs whose promotion to gold, alone, lowers the contrast (recomputed exactly,
including a query entering the evaluated set). Everything here is pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Runs = Mapping[str, Sequence[str]]  # query_id -> doc ids best first
EPS = 1e-12


def ndcg_gold(ranking: Sequence[str], gold: set[str], k: int) -> float:
    seen: set[str] = set()
    dcg = 0.0
    rank = 0
    for doc in ranking:
        if doc in seen:
            continue
        seen.add(doc)
        rank += 1
        if rank > k:
            break
        if doc in gold:
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal if ideal else 0.0


def query_diff(query_id: str, gold: set[str], base: Runs, variant: Runs, k: int) -> float:
    return ndcg_gold(variant.get(query_id, ()), gold, k) - ndcg_gold(
        base.get(query_id, ()), gold, k
    )


def contrast(gold: Mapping[str, set[str]], base: Runs, variant: Runs, k: int) -> float:
    """Mean variant-minus-base gold-only NDCG@k over queries with at least one gold."""
    diffs = [query_diff(q, g, base, variant, k) for q, g in sorted(gold.items()) if g]
    return sum(diffs) / len(diffs) if diffs else 0.0


def gold_sets(grades: Mapping[tuple[str, str], int], n: Mapping[str, int]) -> dict[str, set[str]]:
    gold: dict[str, set[str]] = {}
    for (q, d), grade in grades.items():
        if q in n and grade >= n[q] > 0:
            gold.setdefault(q, set()).add(d)
    return gold


def top_k_union(query_id: str, base: Runs, variant: Runs, k: int) -> set[str]:
    return set(list(dict.fromkeys(base.get(query_id, ())))[:k]) | set(
        list(dict.fromkeys(variant.get(query_id, ())))[:k]
    )


@dataclass(frozen=True)
class Promotion:
    query_id: str
    doc_id: str
    grade: int
    before: float  # contrast with the current qrels
    after: float  # contrast with this one pair promoted to gold

    @property
    def delta(self) -> float:
        return self.after - self.before


def promotions(
    grades: Mapping[tuple[str, str], int], n: Mapping[str, int], base: Runs, variant: Runs, k: int
) -> list[Promotion]:
    """The exact contrast change of promoting each judged pair in the top-k union, one at a time.

    Gold pairs are included (their promotion changes nothing: delta 0).
    """
    gold = gold_sets(grades, n)
    diffs = {q: query_diff(q, g, base, variant, k) for q, g in gold.items() if g}
    total, count = sum(diffs.values()), len(diffs)
    before = total / count if count else 0.0
    out: list[Promotion] = []
    for (q, d), grade in sorted(grades.items()):
        if grade < 1 or q not in n or d not in top_k_union(q, base, variant, k):
            continue
        if grade >= n[q]:
            out.append(Promotion(q, d, grade, before, before))
            continue
        new_diff = query_diff(q, gold.get(q, set()) | {d}, base, variant, k)
        if q in diffs:
            after = (total - diffs[q] + new_diff) / count
        else:
            after = (total + new_diff) / (count + 1)
        out.append(Promotion(q, d, grade, before, after))
    return out


def split_targets(promos: Sequence[Promotion]) -> tuple[list[Promotion], list[Promotion]]:
    """(targets: subsets whose promotion lowers the contrast, neutral pairs: contrast unchanged)."""
    targets = [p for p in promos if p.delta < -EPS]
    neutral = [p for p in promos if abs(p.delta) <= EPS]
    return targets, neutral


BANDS = 4  # equal-count bands of contrast reduction (quartiles) for --max-targets


@dataclass(frozen=True)
class TargetBand:
    """One band of targets by how much each alone lowers the contrast, and what was taken."""

    band: int  # 1 = the largest reductions
    targets: int
    taken: int
    reduction_max: float  # -delta of the band's first (largest) target
    reduction_min: float

    def to_json(self) -> dict[str, object]:
        return {
            "band": self.band,
            "targets": self.targets,
            "taken": self.taken,
            "reduction_max": self.reduction_max,
            "reduction_min": self.reduction_min,
        }


def cap_targets(
    targets: Sequence[Promotion], max_targets: int, salt: str, bands: int = BANDS
) -> tuple[list[Promotion], list[TargetBand]]:
    """At most `max_targets` targets, stratified by how much each can move the contrast.

    Targets are ranked by their contrast reduction (-delta; largest first, ties by query
    and document id) and cut into `bands` consecutive bands of equal count (the first
    bands take one more when the count does not divide). `max_targets` is shared among
    the bands in proportion to their size by largest remainder (`sampling.proportional`),
    and within a band the targets with the lowest salted hash of (seed, query, document)
    are taken, so the same seed takes the same targets. Fewer targets than the cap: all
    of them, in one band per target count. Returned in the input order."""
    from packet_builder.sampling import proportional, salted_hash

    ranked = sorted(targets, key=lambda p: (p.delta, p.query_id, p.doc_id))
    if max_targets >= len(ranked):
        groups = [ranked]
    else:
        size, extra = divmod(len(ranked), min(bands, len(ranked)))
        groups, start = [], 0
        for i in range(min(bands, len(ranked))):
            end = start + size + (1 if i < extra else 0)
            groups.append(ranked[start:end])
            start = end
    quota = proportional({(f"{i:04d}",): len(g) for i, g in enumerate(groups)}, max_targets)
    keep: set[tuple[str, str]] = set()
    summary: list[TargetBand] = []
    for i, group in enumerate(groups):
        take = min(len(group), quota[(f"{i:04d}",)])
        chosen = sorted(group, key=lambda p: salted_hash(salt, "target", p.query_id, p.doc_id))
        keep.update((p.query_id, p.doc_id) for p in chosen[:take])
        summary.append(TargetBand(i + 1, len(group), take, -group[0].delta, -group[-1].delta))
    return [p for p in targets if (p.query_id, p.doc_id) in keep], summary
