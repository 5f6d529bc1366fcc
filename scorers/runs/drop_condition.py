"""Condition-drop diagnostic (the n-Clue supplement, Table S5a).

A system is run twice: on the full query, and on the query with its condition
at position j (1-based) dropped. The full run is scored against the qrels; the
dropped run against grades recomputed from the construction evidence over the
query's remaining n-1 conditions: a document's grade is the number of remaining
conditions it has evidence for, capped at n-2 when all n-1 have evidence but no
distinct-page assignment exists (the derived grade of docs/architecture.md), so its gold are
the documents that satisfy every remaining condition. Position j uses the
queries with at least j conditions and at least 2 (dropping the only condition
leaves nothing to satisfy). Per (system, j): the mean over those queries of
Gold-NDCG@k(dropped) - Gold-NDCG@k(full), the same for Gold Hit, and the
exact-family bootstrap 95% interval of the Gold-NDCG change (compare's draws,
restricted to the queries of j); `excludes_zero` marks the supplement's `*`.

Condition masking per position (Table S5b, "Condition masking: ... masking positions 1/2
lowers NDCG by .020-.065; position 3 is mixed") scores the same dropped-condition runs
against the *full* query's qrels instead: is position j load-bearing for the original
information need? Per (system, j), over the same queries: the mean change of graded NDCG
(gain = grade), Gold-NDCG, Gold Hit and n-Clue Score, with exact-family intervals of the
two NDCG changes; a position is load-bearing for a system when the Gold-NDCG interval lies
below zero (the supplement's ".020-.065" are Table S5a's Gold-NDCG changes), and across
systems "load-bearing" (all), "mixed" or "not load-bearing".
Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from scorers.runs.bind import BoundQrels
from scorers.runs.bootstrap import draw_family_counts, family_sums, percentile_interval
from scorers.runs.measures import METRICS, PerQuery
from scorers.runs.text import table
from vocabulary.grades import derived_grade

Evidence = Mapping[tuple[str, str], Mapping[str, Sequence[int]]]  # (q, d) -> condition -> pages


def dropped_qrels(
    conditions: Mapping[str, Sequence[str]], evidence: Evidence, position: int
) -> tuple[list[str], list[int], list[tuple[str, str, int]]]:
    """(eligible query ids in input order, their n - 1, nonzero (q, d, grade) rows)."""
    qids = [q for q, cs in conditions.items() if len(cs) >= max(position, 2)]
    keep = set(qids)
    rows = []
    for (q, d), by_cond in sorted(evidence.items()):
        if q not in keep:
            continue
        remaining = [c for i, c in enumerate(conditions[q], start=1) if i != position]
        supports = {c: list(by_cond.get(c, ())) for c in remaining}
        g = derived_grade(len(remaining), supports)
        if g > 0:
            rows.append((q, d, g))
    return qids, [len(conditions[q]) - 1 for q in qids], rows


@dataclass(frozen=True)
class DropRow:
    system: str
    position: int
    queries: int
    full_gold_ndcg: float
    dropped_gold_ndcg: float
    diff_gold_ndcg: float
    diff_gold_hit: float
    ci95: list[float] | None
    excludes_zero: bool


@dataclass(frozen=True)
class DropReport:
    k: int
    bootstrap: int
    seed: int
    rows: list[DropRow]

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def to_text(self) -> str:
        positions = sorted({r.position for r in self.rows})
        systems = list(dict.fromkeys(r.system for r in self.rows))
        cell = {(r.system, r.position): r for r in self.rows}
        head = ["system"] + [
            f"Drop c{j} ({next(r.queries for r in self.rows if r.position == j)} q.)"
            for j in positions
        ]
        body = []
        for s in systems:
            row = [s]
            for j in positions:
                r = cell.get((s, j))
                row.append(
                    "-"
                    if r is None
                    else f"{100 * r.diff_gold_ndcg:+.1f}{'*' if r.excludes_zero else ''}"
                )
            body.append(row)
        return "\n".join(
            [
                f"Gold-NDCG@{self.k} change in points after dropping one condition (n-Clue "
                "supplement Table S5a); dropped runs scored against grades recomputed from the "
                f"evidence; * = the exact-family 95% interval ({self.bootstrap} replicates) "
                "excludes zero.",
                table(body, head),
            ]
        )


def _restricted_ci(
    full: BoundQrels, d: np.ndarray, mask: np.ndarray, counts: np.ndarray | None
) -> list[float] | None:
    """Exact-family bootstrap 95% interval of the mean of d over the queries in mask."""
    if counts is None or not mask.any():
        return None
    num = family_sums(d, full.family, full.n_families) @ counts.T
    den = family_sums(mask, full.family, full.n_families) @ counts.T
    lo, hi = percentile_interval(num[den > 0] / den[den > 0])
    return [float(lo), float(hi)]


def _draws(full: BoundQrels, bootstrap: int, seed: int) -> np.ndarray | None:
    if bootstrap <= 0:
        return None
    return draw_family_counts(full.n_families, bootstrap, np.random.default_rng(seed))


def drop_report(
    full: BoundQrels,
    scored_full: Mapping[str, PerQuery],
    dropped: Sequence[tuple[str, int, BoundQrels, PerQuery]],
    *,
    bootstrap: int = 1000,
    seed: int = 11,
) -> DropReport:
    """dropped: (system, position, bound of the dropped grades, the dropped run's PerQuery)."""
    counts = _draws(full, bootstrap, seed)
    index = {q: i for i, q in enumerate(full.query_ids.to_pylist())}
    j_ndcg, j_hit = METRICS.index("gold_ndcg"), METRICS.index("gold_hit")
    rows = []
    for system, pos, bound, pq in dropped:
        at = np.array([index[q] for q in bound.query_ids.to_pylist()], dtype=np.int64)
        mask = np.zeros(full.n_queries)
        mask[at] = 1.0
        fv = scored_full[system].values()
        dv = pq.values()
        d = np.zeros(full.n_queries)
        d[at] = dv[j_ndcg] - fv[j_ndcg, at]
        nq = max(at.size, 1)
        ci = _restricted_ci(full, d, mask, counts)
        rows.append(
            DropRow(
                system,
                pos,
                int(at.size),
                float(fv[j_ndcg, at].sum() / nq),
                float(dv[j_ndcg].sum() / nq),
                float(d.sum() / nq),
                float((dv[j_hit] - fv[j_hit, at]).sum() / nq),
                ci,
                bool(ci is not None and (ci[0] > 0 or ci[1] < 0)),
            )
        )
    return DropReport(full.k, bootstrap, seed, rows)


@dataclass(frozen=True)
class MaskRow:
    system: str
    position: int
    queries: int
    diff_ndcg: float  # graded NDCG (gain = grade), masked - full, against the full qrels
    diff_gold_ndcg: float
    diff_gold_hit: float
    diff_nclue: float
    ci95_ndcg: list[float] | None
    ci95_gold_ndcg: list[float] | None
    load_bearing: bool  # the Gold-NDCG interval lies below zero


@dataclass(frozen=True)
class MaskReport:
    k: int
    bootstrap: int
    seed: int
    rows: list[MaskRow]

    def positions(self) -> dict[int, str]:
        """Per position across systems: load-bearing (all), mixed, or not load-bearing."""
        out = {}
        for j in sorted({r.position for r in self.rows}):
            flags = [r.load_bearing for r in self.rows if r.position == j]
            out[j] = "load-bearing" if all(flags) else "mixed" if any(flags) else "not load-bearing"
        return out

    def to_json(self) -> dict[str, object]:
        return asdict(self) | {"positions": {str(j): v for j, v in self.positions().items()}}

    def to_text(self) -> str:
        def pt(x: float) -> str:
            return f"{100 * x:+.1f}"

        body = [
            [r.system, r.position, r.queries,
             pt(r.diff_gold_ndcg) + ("*" if r.load_bearing else ""), pt(r.diff_ndcg),
             pt(r.diff_gold_hit), pt(r.diff_nclue)]
            for r in self.rows
        ]  # fmt: skip
        summary = []
        for j, verdict in self.positions().items():
            d = [r.diff_gold_ndcg for r in self.rows if r.position == j]
            summary.append(f"position {j}: {verdict} (Gold-NDCG change "
                           f"{min(d):+.3f} to {max(d):+.3f})")  # fmt: skip
        return "\n".join(
            [
                f"Condition masking per position (n-Clue supplement Table S5b): runs without "
                f"condition j scored against the full query's qrels at k={self.k}, changes in "
                f"points; * = the Gold-NDCG exact-family 95% interval ({self.bootstrap} "
                "replicates) lies below zero (load-bearing).",
                table(
                    body,
                    [
                        "system",
                        "position",
                        "queries",
                        "dGold-NDCG",
                        "d graded NDCG",
                        "dHit",
                        "dScore",
                    ],
                ),
                "; ".join(summary),
            ]
        )


def mask_report(
    full: BoundQrels,
    scored_full: Mapping[str, PerQuery],
    masked: Sequence[tuple[str, int, PerQuery]],
    *,
    bootstrap: int = 1000,
    seed: int = 11,
) -> MaskReport:
    """masked: (system, position, the masked run scored against `full`). Position j uses the
    queries with at least max(j, 2) conditions (as the drop table)."""
    counts = _draws(full, bootstrap, seed)
    n = full.n
    rows = []
    for system, pos, pq in masked:
        mask = (n >= max(pos, 2)).astype(np.float64)
        at = mask > 0
        nq = max(int(at.sum()), 1)
        d = (pq.values() - scored_full[system].values()) * mask  # (4, Q)
        mean = {m: float(d[i].sum() / nq) for i, m in enumerate(METRICS)}
        ci_g = _restricted_ci(full, d[METRICS.index("ndcg")], mask, counts)
        ci_gold = _restricted_ci(full, d[METRICS.index("gold_ndcg")], mask, counts)
        rows.append(
            MaskRow(
                system,
                pos,
                int(at.sum()),
                mean["ndcg"],
                mean["gold_ndcg"],
                mean["gold_hit"],
                mean["nclue"],
                ci_g,
                ci_gold,
                bool(ci_gold is not None and ci_gold[1] < 0),
            )
        )
    return MaskReport(full.k, bootstrap, seed, rows)
