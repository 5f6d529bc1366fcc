"""One measure's impact analysis: values, intervals, rankings, pair tests, power.

Inputs are per-query matrices over a universe of queries (every query evaluated under
either copy of the qrels): `before` and `after` (runs, U) with the masks of the queries
each copy evaluates. Everything here is pure and seeded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scorers.impact.bootstrap import delta_intervals
from scorers.impact.ordering import kendall_spearman, movement, ranks, tau_ap
from scorers.impact.paired import (
    all_pairs,
    discriminative_power,
    holm,
    randomization_pvalues,
    ttest_pvalues,
)

TESTS = ("randomization", "t")


@dataclass(frozen=True)
class Matrices:
    """Per-query values of one measure under both copies (see the module docstring)."""

    before: np.ndarray
    after: np.ndarray
    in_before: np.ndarray
    in_after: np.ndarray

    def side(self, when: str) -> np.ndarray:
        x, mask = (self.before, self.in_before) if when == "before" else (self.after, self.in_after)
        return x[:, mask]


@dataclass(frozen=True)
class Settings:
    draws: int = 10_000
    bootstrap: int = 1000
    seed: int = 11
    alpha: float = 0.05


def _means(x: np.ndarray) -> np.ndarray:
    return x.mean(axis=1) if x.shape[1] else np.zeros(x.shape[0])


def _decision(diff: float, p_holm: float, alpha: float) -> str:
    if p_holm >= alpha:
        return "n.s."
    return "variant better" if diff > 0 else "base better"


def _tests(x: np.ndarray, pairs: list[tuple[int, int]], s: Settings) -> dict[str, np.ndarray]:
    return {
        "randomization": randomization_pvalues(x, pairs, draws=s.draws, seed=s.seed),
        "t": ttest_pvalues(x, pairs),
    }


@dataclass(frozen=True)
class MeasureImpact:
    """One measure's impact of the revision: queries scored, each run before and after
    (score, CI of the change, rank), the ordering's agreement, the declared pairs' tests
    (Holm over them) and their flips, discriminative power over all system pairs."""

    queries_before: int
    queries_after: int
    runs: dict[str, dict[str, Any]]  # run -> before, after, delta, ci95, ranks
    ordering: dict[str, Any]  # kendall, tau_ap, spearman, the largest rank shift
    pairs: list[dict[str, Any]]  # base, variant, before/after tests, flips
    discriminative_power: dict[str, Any]

    @property
    def flipped(self) -> list[str]:
        """ "base:variant" of each declared pair whose decision flips under some test."""
        return [f"{p['base']}:{p['variant']}" for p in self.pairs if any(p["flips"].values())]

    def to_json(self) -> dict[str, Any]:
        return {
            "queries": {"before": self.queries_before, "after": self.queries_after},
            "runs": self.runs,
            "ordering": self.ordering,
            "pairs": self.pairs,
            "flipped": self.flipped,
            "discriminative_power": self.discriminative_power,
        }


def analyse(
    tags: Sequence[str], m: Matrices, pairs: Sequence[tuple[int, int]], s: Settings
) -> MeasureImpact:
    """One measure's figures: runs, ordering, pairs (with Holm over `pairs`), flips and
    discriminative power over all system pairs."""
    tags = list(tags)
    xb, xa = m.side("before"), m.side("after")
    mb, ma = _means(xb), _means(xa)
    ci = delta_intervals(m.before, m.after, m.in_before, m.in_after,
                         replicates=s.bootstrap, seed=s.seed)  # fmt: skip
    rb, ra = ranks(mb), ranks(ma)
    move = movement(rb, ra)
    runs = {
        t: {
            "before": float(mb[i]), "after": float(ma[i]), "delta": float(ma[i] - mb[i]),
            "ci95": None if np.isnan(ci[i]).any() else [float(ci[i, 0]), float(ci[i, 1])],
            "rank_before": int(rb[i]), "rank_after": int(ra[i]), "rank_move": int(move[i]),
        }
        for i, t in enumerate(tags)
    }  # fmt: skip
    tau, rho = kendall_spearman(mb, ma)
    big = int(np.argmax(np.abs(move))) if move.size else None
    ordering = {
        "kendall": tau, "tau_ap": tau_ap(rb, ra), "spearman": rho,
        "max_rank_shift": int(abs(move[big])) if big is not None else 0,
        "largest_shift": None if big is None or move[big] == 0
        else {"run": tags[big], "rank_before": int(rb[big]), "rank_after": int(ra[big])},
    }  # fmt: skip
    every = all_pairs(len(tags))
    power: dict[str, Any] = {"pairs": len(every), "alpha": s.alpha}
    tested: dict[str, dict[str, np.ndarray]] = {}
    for when, x in (("before", xb), ("after", xa)):
        p_all = _tests(x, every, s)
        power[when] = {t: discriminative_power(p_all[t], s.alpha) for t in TESTS}
        # A declared pair's p is the all-pairs p of the same rows (the tests are symmetric).
        where = {pair: i for i, pair in enumerate(every)}
        pick = [where[(min(b, v), max(b, v))] for b, v in pairs]
        tested[when] = {t: p_all[t][pick] for t in TESTS}
    out_pairs = []
    holm_p = {w: {t: holm(tested[w][t]) for t in TESTS} for w in tested}
    for i, (b, v) in enumerate(pairs):
        entry: dict[str, Any] = {"base": tags[b], "variant": tags[v]}
        for when, x in (("before", xb), ("after", xa)):
            diff = float(x[v].mean() - x[b].mean()) if x.shape[1] else 0.0
            entry[when] = {"diff": diff}
            for t in TESTS:
                ph = float(holm_p[when][t][i])
                entry[when] |= {f"p_{t}": float(tested[when][t][i]), f"p_{t}_holm": ph,
                                f"decision_{t}": _decision(diff, ph, s.alpha)}  # fmt: skip
        entry["flips"] = {
            t: entry["before"][f"decision_{t}"] != entry["after"][f"decision_{t}"] for t in TESTS
        }
        out_pairs.append(entry)
    return MeasureImpact(
        queries_before=int(m.in_before.sum()),
        queries_after=int(m.in_after.sum()),
        runs=runs,
        ordering=ordering,
        pairs=out_pairs,
        discriminative_power=power,
    )
