"""Additions to the qrel-revision impact report (the n-Clue supplement, "Effect on Evaluation").

* changed labels inside each run's top k (and the union over runs): a label is
  a (query, document) grade that differs between the two qrel copies (absent =
  0, as `label_changes`); it counts for a run when the document is in that
  run's top k for the query. Labels outside every top k cannot move any score.
* the rank correlation of the systems ordered by graded NDCG and by Gold-NDCG,
  under each qrel copy (Spearman and Kendall tau-b, scipy's; None with fewer
  than two runs or a constant ordering);
* the contrasts by source: each pair's paired n-Clue effect per source cell,
  before and after (scorers/runs/slices.py, with its bootstrap intervals).
Pure.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from scorers.runs.bind import BoundQrels
from scorers.runs.measures import METRICS, PerQuery
from scorers.runs.text import table

if TYPE_CHECKING:
    from scorers.runs.slices import SliceReport


def changed_keys(before: BoundQrels, after: BoundQrels) -> set[str]:
    """Pair keys whose grade differs between the copies (absent rows are grade 0)."""
    b = dict(zip(before.pairs.to_pylist(), before.grades.tolist(), strict=True))
    a = dict(zip(after.pairs.to_pylist(), after.grades.tolist(), strict=True))
    return {k for k in b.keys() | a.keys() if b.get(k, 0) != a.get(k, 0)}


def _top_keys(bound: BoundQrels, pq: PerQuery) -> set[str]:
    if pq.top_pairs is None:
        raise ValueError("the run was measured without document identities (TopK.pair_pos)")
    pos = pq.top_pairs[pq.top_pairs >= 0]
    return set(bound.pairs.take(pos).to_pylist()) if pos.size else set()


def _corr(x: np.ndarray, y: np.ndarray) -> dict[str, float | None]:
    from scipy import stats

    if x.size < 2:
        return {"spearman": None, "kendall": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = float(stats.spearmanr(x, y).statistic)
        tau = float(stats.kendalltau(x, y).statistic)
    return {
        "spearman": None if np.isnan(rho) else rho,
        "kendall": None if np.isnan(tau) else tau,
    }


@dataclass(frozen=True)
class SourceSlices:
    """The declared pairs' paired effects per source cell under each qrel copy."""

    before: SliceReport
    after: SliceReport

    def to_json(self) -> dict[str, Any]:
        return {"before": self.before.to_json(), "after": self.after.to_json()}

    def table(self) -> str:
        """Each contrast's paired n-Clue effect per source, before -> after (points)."""
        b: dict[str, Any] = self.before.to_json()
        a: dict[str, Any] = self.after.to_json()
        cells_b = {c["label"]: c for c in b["slices"][0]["cells"]}
        cells_a = {c["label"]: c for c in a["slices"][0]["cells"]}
        rows = []
        for i, con in enumerate(b["all_queries"]["contrasts"]):
            for label in cells_b:
                cb = cells_b[label]["contrasts"][i]["diff_nclue"]
                ca = cells_a.get(label, {"contrasts": [{"diff_nclue": None}] * (i + 1)})
                av = ca["contrasts"][i]["diff_nclue"]
                rows.append([f"{con['base']} -> {con['variant']}", label,
                             f"{100 * cb:+.1f}", "-" if av is None else f"{100 * av:+.1f}"])  # fmt: skip
        return table(rows, ["contrast", "source", "before", "after"])


@dataclass(frozen=True)
class ImpactExtras:
    k: int
    labels_changed: int
    changed_in_top: dict[str, int]  # run -> changed labels inside its top k
    changed_in_top_union: int  # changed labels inside at least one run's top k
    ndcg_vs_gold_ndcg: dict[str, dict[str, float | None]]  # "before"/"after" -> correlations
    by_source: SourceSlices | None  # the pairs by source (only with declared pairs)

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "labels_changed": self.labels_changed,
            "changed_in_top": dict(self.changed_in_top),
            "changed_in_top_union": self.changed_in_top_union,
            "ndcg_vs_gold_ndcg": {side: dict(c) for side, c in self.ndcg_vs_gold_ndcg.items()},
            "by_source": None if self.by_source is None else self.by_source.to_json(),
        }

    def to_text(self) -> str:
        out = [
            f"Changed labels inside each run's top {self.k}: {self.changed_in_top_union} of "
            f"{self.labels_changed} are inside at least one run's top {self.k}."
        ]
        out.append(table([[t, c] for t, c in self.changed_in_top.items()], ["run", "in top k"]))
        rows = [
            [side, _f(c["spearman"]), _f(c["kendall"])]
            for side, c in self.ndcg_vs_gold_ndcg.items()
        ]
        out.append("\nSystem ordering by graded NDCG vs by Gold-NDCG:")
        out.append(table(rows, ["qrels", "Spearman", "Kendall"]))
        if self.by_source:
            out.append("\nContrasts by source, paired n-Clue effect (points) before -> after:")
            out.append(self.by_source.table())
        return "\n".join(out)


def _f(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def impact_extras(
    before: BoundQrels,
    after: BoundQrels,
    scored_before: Mapping[str, PerQuery],
    scored_after: Mapping[str, PerQuery],
    by_source: SourceSlices | None = None,
) -> ImpactExtras:
    changed = changed_keys(before, after)
    per_run: dict[str, int] = {}
    union: set[str] = set()
    for tag in scored_before:
        inside = (
            _top_keys(before, scored_before[tag]) | _top_keys(after, scored_after[tag])
        ) & changed
        per_run[tag] = len(inside)
        union |= inside
    tags = list(scored_before)
    i_ndcg, i_gold = METRICS.index("ndcg"), METRICS.index("gold_ndcg")
    corr = {}
    for side, sc in (("before", scored_before), ("after", scored_after)):
        means = np.array([sc[t].values().mean(axis=1) for t in tags]).reshape(-1, len(METRICS))
        corr[side] = _corr(means[:, i_ndcg], means[:, i_gold])
    return ImpactExtras(before.k, len(changed), per_run, len(union), corr, by_source)


def source_slices(
    before: BoundQrels,
    after: BoundQrels,
    scored_before: Mapping[str, PerQuery],
    scored_after: Mapping[str, PerQuery],
    source: Mapping[str, str],
    pairs: Sequence[tuple[str, str]],
    *,
    bootstrap: int,
    seed: int,
) -> SourceSlices:
    """Slice reports by source under both copies (source: query id -> source)."""
    from scorers.runs.slices import SliceSpec, query_factors, slice_report

    def side(b: BoundQrels, sc: Mapping[str, PerQuery]) -> SliceReport:
        src = [source.get(q, "") for q in b.query_ids.to_pylist()]
        f = query_factors(b, source=src)
        return slice_report(b, sc, [SliceSpec("source")], f, pairs, bootstrap=bootstrap, seed=seed)

    return SourceSlices(side(before, scored_before), side(after, scored_after))
