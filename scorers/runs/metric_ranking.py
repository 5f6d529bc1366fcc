"""Metric ranking diagnostic (the n-Clue supplement, Table S5b "Metric ranking"; section
"SourceShift Robustness Study": "graded-NDCG and gold-only-NDCG rankings have Spearman
rho=.5714 ... The largest movement is eight ranks").

The systems are ranked by graded NDCG (gain = grade, trec_eval's ndcg_cut) and by each
gold-only measure (Gold-NDCG, n-Clue Score, Gold Hit). Per gold-only measure: Spearman's
rho and Kendall's tau-b between the two orderings of the systems' means (scipy's, ties
as average ranks), and the largest rank shift with the system that makes it. A rank is
1 + the number of systems with a strictly higher mean (equal means share the better
rank), so a shift never comes from an arbitrary tie order. Pure.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from scorers.runs.text import table

GOLD_ONLY = ("gold_ndcg", "nclue", "gold_hit")
LABELS = {"ndcg": "graded NDCG", "gold_ndcg": "Gold-NDCG", "nclue": "n-Clue Score",
          "gold_hit": "Gold Hit"}  # fmt: skip


def competition_ranks(values: Sequence[float] | np.ndarray) -> list[int]:
    """1 + the number of strictly higher values (descending, ties share the better rank)."""
    v = np.asarray(values, dtype=np.float64)
    return [int((v > x).sum()) + 1 for x in v]


@dataclass(frozen=True)
class RankShift:
    system: str
    rank_graded: int
    rank_gold_only: int
    shift: int  # rank under graded NDCG - rank under the gold-only measure (+ = moves up)


@dataclass(frozen=True)
class MetricAgreement:
    measure: str  # the gold-only measure compared with graded NDCG
    spearman: float | None  # None with fewer than two systems or a constant ordering
    kendall: float | None
    max_rank_shift: int
    largest: list[RankShift]  # every system whose |shift| is the largest
    ranks: dict[str, int]  # system -> rank under the measure


@dataclass(frozen=True)
class MetricRankingReport:
    k: int
    systems: list[str]
    means: dict[str, dict[str, float]]  # system -> measure -> mean (fraction)
    graded_ranks: dict[str, int]
    measures: list[MetricAgreement]

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def rows(self) -> list[dict[str, object]]:
        """One dict per gold-only measure: correlations and the largest shift."""
        return [
            {"measure": m.measure, "spearman": m.spearman, "kendall": m.kendall,
             "max_rank_shift": m.max_rank_shift,
             "largest": ", ".join(f"{s.system} {s.rank_graded}->{s.rank_gold_only}"
                                  for s in m.largest)}
            for m in self.measures
        ]  # fmt: skip

    def to_text(self) -> str:
        def num(x: float | None) -> str:
            return "n/a" if x is None else f"{x:.4f}"

        corr = [
            [f"graded NDCG vs {LABELS[m.measure]}", num(m.spearman), num(m.kendall),
             m.max_rank_shift, r["largest"] or "-"]
            for m, r in zip(self.measures, self.rows(), strict=True)
        ]  # fmt: skip
        runs = sorted(self.systems, key=lambda s: (self.graded_ranks[s], s))
        ms = [m.measure for m in self.measures]
        ranks = [
            [s, f"{100 * self.means[s]['ndcg']:.1f}", self.graded_ranks[s],
             *(x for m in self.measures for x in (f"{100 * self.means[s][m.measure]:.1f}",
                                                   m.ranks[s]))]
            for s in runs
        ]  # fmt: skip
        head = ["system", "graded NDCG", "rank"] + [h for m in ms for h in (LABELS[m], "rank")]
        return "\n".join(
            [
                f"Metric ranking (n-Clue supplement Table S5b): {len(self.systems)} systems at "
                f"k={self.k} ranked by graded NDCG (gain = grade) and by each gold-only measure; "
                "Spearman and Kendall tau-b of the two orderings; shift = graded rank - "
                "gold-only rank (+ = higher under the gold-only measure).",
                table(corr, ["orderings", "Spearman", "Kendall", "max shift", "largest shift"]),
                "",
                table(ranks, head),
            ]
        )


def _corr(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    from scipy import stats

    if x.size < 2:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant input: scipy warns and returns nan
        rho = float(stats.spearmanr(x, y).statistic)
        tau = float(stats.kendalltau(x, y).statistic)
    return (None if np.isnan(rho) else rho), (None if np.isnan(tau) else tau)


def metric_ranking(
    means: Mapping[str, Mapping[str, float]], *, k: int, measures: Sequence[str] = GOLD_ONLY
) -> MetricRankingReport:
    """means: system -> {"ndcg", "gold_ndcg", "nclue", "gold_hit": mean over the queries}."""
    systems = list(means)
    graded = np.array([means[s]["ndcg"] for s in systems], dtype=np.float64)
    g_ranks = dict(zip(systems, competition_ranks(graded), strict=True))
    out = []
    for m in measures:
        v = np.array([means[s][m] for s in systems], dtype=np.float64)
        ranks = dict(zip(systems, competition_ranks(v), strict=True))
        shifts = [RankShift(s, g_ranks[s], ranks[s], g_ranks[s] - ranks[s]) for s in systems]
        big = max((abs(x.shift) for x in shifts), default=0)
        rho, tau = _corr(graded, v)
        largest = [x for x in shifts if abs(x.shift) == big] if big else []
        out.append(MetricAgreement(m, rho, tau, big, largest, ranks))
    plain = {s: {m: float(x) for m, x in means[s].items()} for s in systems}
    return MetricRankingReport(k, systems, plain, g_ranks, out)
