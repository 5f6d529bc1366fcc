"""The reports of `evaudit score nclue | compare | impact` (all values are fractions).

Each is a frozen dataclass: `to_json()` is the released JSON object, key for key (key
order too), and `table()` its text (scorers/runs/tables.py). A run's summary, a pair's
tests and the ordering agreement stay plain JSON-shaped values inside them: they are
the figures the report prints, not reports of their own.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from scorers.runs.bind import BoundQrels, Ties, rank_run
from scorers.runs.bootstrap import (
    draw_family_counts,
    family_sums,
    percentile_interval,
    replicate_means,
)
from scorers.runs.measures import METRICS, OUTCOMES, PerQuery, measure, outcome_shares, summarize
from scorers.runs.paired import common_support, holm, sign_flip_pvalues


@dataclass(frozen=True)
class RunInput:
    """One run's columns (any string/number column type: pandas, arrow, lists)."""

    tag: str
    query_ids: Any
    doc_ids: Any
    scores: Any


def score_runs(
    bound: BoundQrels, runs: Sequence[RunInput], *, ties: Ties = "file"
) -> dict[str, PerQuery]:
    return {
        r.tag: measure(bound, rank_run(bound, r.query_ids, r.doc_ids, r.scores, ties=ties))
        for r in runs
    }


def _flip_seed(seed: int) -> list[int]:
    # Sign flips get their own stream so they never reuse the bootstrap's draws.
    return [seed, 1]


def _ci_dict(ci: np.ndarray) -> dict[str, list[float] | None]:
    """(4, 2) intervals keyed by metric; None when not computed (NaN)."""
    return {
        m: (None if np.isnan(ci[i]).any() else [float(ci[i, 0]), float(ci[i, 1])])
        for i, m in enumerate(METRICS)
    }


def _intervals(bound: BoundQrels, values: np.ndarray, replicates: int, seed: int) -> np.ndarray:
    """Family-bootstrap 95% percentile intervals of values (..., Q) -> (..., 2)."""
    if replicates <= 0:
        return np.full((*values.shape[:-1], 2), np.nan)
    counts = draw_family_counts(bound.n_families, replicates, np.random.default_rng(seed))
    return percentile_interval(replicate_means(values, bound.family, bound.n_families, counts))


@dataclass(frozen=True)
class Header:
    """What every score report opens with: the cutoff and the bound query set."""

    k: int
    queries: int
    queries_without_gold: int
    families: int

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "queries": self.queries,
            "queries_without_gold": self.queries_without_gold,
            "families": self.families,
        }


def _header(bound: BoundQrels) -> Header:
    return Header(bound.k, bound.n_queries, int((bound.n_gold == 0).sum()), bound.n_families)


@dataclass(frozen=True)
class NclueScores:
    """`score nclue`'s figures: every run's means and outcome shares (`measures.summarize`)
    with their family-bootstrap 95% intervals (`ci95`), by run tag."""

    header: Header
    bootstrap: int
    seed: int
    runs: dict[str, dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return self.header.to_json() | {
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "runs": dict(self.runs),
        }

    def table(self) -> str:
        from scorers.runs.tables import nclue_text

        return nclue_text(self.to_json())


def nclue_report(
    bound: BoundQrels, scored: Mapping[str, PerQuery], *, bootstrap: int = 1000, seed: int = 11
) -> NclueScores:
    tags = list(scored)
    runs: dict[str, dict[str, Any]] = {}
    if tags:
        values = np.stack([scored[t].values() for t in tags], axis=1)  # (4, R, Q)
        ci = _intervals(bound, values, bootstrap, seed)  # (4, R, 2)
        for r, tag in enumerate(tags):
            entry = summarize(scored[tag])
            entry["ci95"] = _ci_dict(ci[:, r, :])
            runs[tag] = entry
    return NclueScores(_header(bound), bootstrap, seed, runs)


def per_query_rows(bound: BoundQrels, scored: Mapping[str, PerQuery]) -> Iterator[list[Any]]:
    """Rows (run, query_id, outcome, first_gold_rank, first_subset_rank, gold_ndcg, ndcg)."""
    qids = bound.query_ids.to_pylist()
    for tag, pq in scored.items():
        for i, qid in enumerate(qids):
            yield [
                tag,
                qid,
                OUTCOMES[int(pq.outcome[i])],
                int(pq.first_gold[i]) or "",
                int(pq.first_subset[i]) or "",
                f"{pq.gold_ndcg[i]:.6f}",
                f"{pq.ndcg[i]:.6f}",
            ]


PER_QUERY_HEADER = [
    "run",
    "query_id",
    "outcome",
    "first_gold_rank",
    "first_subset_rank",
    "gold_ndcg",
    "ndcg",
]


def _metric_dict(vec: np.ndarray) -> dict[str, float]:
    return {m: float(vec[i]) for i, m in enumerate(METRICS)}


def _pair_tests(
    bound: BoundQrels,
    scored: Mapping[str, PerQuery],
    pairs: Sequence[tuple[str, str]],
    *,
    draws: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pair: diffs (P, 4, Q), mean diff (P, 4), query p (P, 4), family p (P, 4)."""
    d = np.stack([scored[v].values() - scored[b].values() for b, v in pairs])
    flat = d.reshape(-1, d.shape[-1])
    nq = max(d.shape[-1], 1)
    p = sign_flip_pvalues(flat, draws=draws, seed=_flip_seed(seed)).reshape(d.shape[:2])
    fam = family_sums(flat, bound.family, bound.n_families)
    p_fam = sign_flip_pvalues(fam, draws=draws, seed=_flip_seed(seed)).reshape(d.shape[:2])
    return d, d.sum(axis=-1) / nq, p, p_fam


@dataclass(frozen=True)
class CompareScores:
    """`score compare`'s declared pairs: each one's scores, paired differences, family
    intervals, sign-flip p (per query, per family, Holm across the pairs), common support
    and outcome shares, in the order given."""

    header: Header
    draws: int
    bootstrap: int
    seed: int
    pairs: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return self.header.to_json() | {
            "draws": self.draws,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "pairs": list(self.pairs),
        }

    def table(self) -> str:
        from scorers.runs.tables import compare_text

        return compare_text(self.to_json())


def compare_report(
    bound: BoundQrels,
    scored: Mapping[str, PerQuery],
    pairs: Sequence[tuple[str, str]],
    *,
    draws: int = 10_000,
    bootstrap: int = 1000,
    seed: int = 11,
) -> CompareScores:
    return CompareScores(
        _header(bound), draws, bootstrap, seed,
        _compare_pairs(bound, scored, pairs, draws=draws, bootstrap=bootstrap, seed=seed),
    )  # fmt: skip


def _compare_pairs(
    bound: BoundQrels,
    scored: Mapping[str, PerQuery],
    pairs: Sequence[tuple[str, str]],
    *,
    draws: int,
    bootstrap: int,
    seed: int,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not pairs:
        return out
    d, mean, p, p_fam = _pair_tests(bound, scored, pairs, draws=draws, seed=seed)
    ci = _intervals(bound, d, bootstrap, seed)  # (P, 4, 2)
    p_holm = np.stack([holm(p[:, j]) for j in range(len(METRICS))], axis=1)
    for i, (b, v) in enumerate(pairs):
        base, var = scored[b], scored[v]
        support = common_support(base.outcome, var.outcome)
        out.append(
            {
                "base": b,
                "variant": v,
                "base_scores": _metric_dict(base.values().mean(axis=1)),
                "variant_scores": _metric_dict(var.values().mean(axis=1)),
                "diff": _metric_dict(mean[i]),
                "ci95": _ci_dict(ci[i]),
                "p": _metric_dict(p[i]),
                "p_family": _metric_dict(p_fam[i]),
                "p_holm": _metric_dict(p_holm[i]),
                **support,
                "base_mpg": outcome_shares(base.outcome),
                "variant_mpg": outcome_shares(var.outcome),
            }
        )
    return out


def label_changes(
    query_ids: Sequence[str], n: Sequence[int], before: pd.DataFrame, after: pd.DataFrame
) -> dict[str, int]:
    """How many (query, document) labels differ between two qrel copies of the query set.

    Absent rows count as grade 0, so adding or removing a nonzero row is a change.
    """
    nmap = pd.Series(np.asarray(n, dtype=np.int64), index=pd.Index(list(query_ids)))

    def nonzero(df: pd.DataFrame) -> pd.DataFrame:
        keep = df["query_id"].isin(nmap.index) & (df["grade"] > 0)
        return df.loc[keep, ["query_id", "doc_id", "grade"]].astype({"grade": "int64"})

    b, a = nonzero(before), nonzero(after)
    m = b.merge(a, on=["query_id", "doc_id"], how="outer", suffixes=("_b", "_a"))
    gb = m["grade_b"].fillna(0).to_numpy(dtype=np.int64)
    ga = m["grade_a"].fillna(0).to_numpy(dtype=np.int64)
    nq = nmap.reindex(m["query_id"]).to_numpy(dtype=np.int64)
    changed = gb != ga
    return {
        "changed": int(changed.sum()),
        "added": int((changed & (gb == 0)).sum()),
        "removed": int((changed & (ga == 0)).sum()),
        "regraded": int((changed & (gb > 0) & (ga > 0)).sum()),
        "to_gold": int((changed & (ga == nq)).sum()),
        "from_gold": int((changed & (gb == nq)).sum()),
        "nonzero_before": len(b),
        "nonzero_after": len(a),
    }


def removed_queries(
    query_ids: Sequence[str], before: pd.DataFrame, after: pd.DataFrame
) -> set[str]:
    """Queries a revision removed: nonzero qrels before, no qrels rows at all after.

    The repair policy removes a query that loses its last gold together with all
    its qrels ("Do Current Retrievers Cover All the Evidence?" (supplement): "one demotion removes a zero-gold SourceShift query"),
    so the revised benchmark scores over the remaining queries.
    """
    wanted = set(query_ids)
    had = set(before.loc[before["grade"] > 0, "query_id"]) & wanted
    return had - set(after["query_id"])


def _none_if_nan(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def _ordering(before: np.ndarray, after: np.ndarray, tags: list[str]) -> dict[str, Any]:
    """Rank agreement of the system orderings (rank 1 = best; ties share the best rank)."""
    from scipy import stats  # imported here: scipy.stats costs ~1 s and only impact needs it

    rb = stats.rankdata(-before, method="min").astype(int)
    ra = stats.rankdata(-after, method="min").astype(int)
    shift = np.abs(rb - ra)
    rho = tau = float("nan")
    if len(tags) >= 2:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rho = float(stats.spearmanr(before, after).statistic)
            tau = float(stats.kendalltau(before, after).statistic)
    top = int(shift.max()) if shift.size else 0
    return {
        "spearman": _none_if_nan(rho),
        "kendall": _none_if_nan(tau),
        "max_rank_shift": top,
        "moved_most": [t for t, s in zip(tags, shift, strict=True) if s == top and top > 0],
        "rank_before": {t: int(x) for t, x in zip(tags, rb, strict=True)},
        "rank_after": {t: int(x) for t, x in zip(tags, ra, strict=True)},
    }


@dataclass(frozen=True)
class ImpactScores:
    """`score impact`'s figures: every run under both qrel copies, the ordering agreement
    of the systems by `metric` (ranks, Spearman, Kendall, moves) and of each metric
    (`correlations`), and the declared pairs' tests before and after."""

    k: int
    queries: dict[str, int]  # "before"/"after" -> bound queries
    removed_queries: list[str]
    queries_without_gold: dict[str, int]  # "before"/"after"
    labels: dict[str, int]  # label_changes
    metric: str
    draws: int
    runs: dict[str, dict[str, dict[str, float]]]  # run -> before/after/delta -> metric
    ordering: dict[str, Any]
    correlations: dict[str, dict[str, Any]]
    pairs: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "queries": dict(self.queries),
            "removed_queries": list(self.removed_queries),
            "queries_without_gold": dict(self.queries_without_gold),
            "labels_changed": self.labels["changed"],
            "labels": dict(self.labels),
            "metric": self.metric,
            "draws": self.draws,
            "runs": dict(self.runs),
            "ordering": dict(self.ordering),
            "correlations": dict(self.correlations),
            "pairs": list(self.pairs),
        }

    def table(self) -> str:
        from scorers.runs.tables import impact_text

        return impact_text(self.to_json())


def impact_report(
    before: BoundQrels,
    after: BoundQrels,
    scored_before: Mapping[str, PerQuery],
    scored_after: Mapping[str, PerQuery],
    labels: dict[str, int],
    pairs: Sequence[tuple[str, str]] = (),
    *,
    metric: str = "nclue",
    draws: int = 10_000,
    seed: int = 11,
) -> ImpactScores:
    """Every run under both qrel copies, ordering agreement, and the pairs' tests before/after."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}")
    tags = list(scored_before)
    mb = np.array([scored_before[t].values().mean(axis=1) for t in tags]).reshape(-1, 4)
    ma = np.array([scored_after[t].values().mean(axis=1) for t in tags]).reshape(-1, 4)
    j = METRICS.index(metric)
    pair_tests: list[dict[str, Any]] = []
    if pairs:
        tb = _pair_tests(before, scored_before, pairs, draws=draws, seed=seed)
        ta = _pair_tests(after, scored_after, pairs, draws=draws, seed=seed)
        for i, (b, v) in enumerate(pairs):
            pair_tests.append(
                {
                    "base": b,
                    "variant": v,
                    **{
                        side: {
                            "diff": _metric_dict(t[1][i]),
                            "p": _metric_dict(t[2][i]),
                            "p_family": _metric_dict(t[3][i]),
                        }
                        for side, t in (("before", tb), ("after", ta))
                    },
                }
            )
    return ImpactScores(
        k=before.k,
        queries={"before": before.n_queries, "after": after.n_queries},
        removed_queries=sorted(
            set(before.query_ids.to_pylist()) - set(after.query_ids.to_pylist())
        ),
        queries_without_gold={
            "before": int((before.n_gold == 0).sum()),
            "after": int((after.n_gold == 0).sum()),
        },
        labels=labels,
        metric=metric,
        draws=draws,
        runs={
            t: {
                "before": _metric_dict(mb[i]),
                "after": _metric_dict(ma[i]),
                "delta": _metric_dict(ma[i] - mb[i]),
            }
            for i, t in enumerate(tags)
        },
        ordering=_ordering(mb[:, j], ma[:, j], tags),
        correlations={
            m: {k: v for k, v in _ordering(mb[:, i], ma[:, i], tags).items() if k in _CORR_KEYS}
            for i, m in enumerate(METRICS)
        },
        pairs=pair_tests,
    )


_CORR_KEYS = ("spearman", "kendall", "max_rank_shift")
