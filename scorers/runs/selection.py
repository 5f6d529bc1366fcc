"""Selection-adjusted inference for endpoint blocks (n-Clue supplement, Table S1e).

A block is one base run and every variant endpoint that was tried for it;
the displayed endpoint is the one with the highest n-Clue Score, chosen after
seeing the data. The block's p accounts for that choice: for each endpoint e,
T_e = mean(d_e) / SE(d_e) with d_e = variant_e - base per query and SE the
cluster-robust (exact gold family) standard error of the mean,

    SE^2 = F/(F-1) * sum_f (s_f - n_f * mean)^2 / Q^2,

s_f the sum of d over family f's n_f queries (F families, Q queries; with
singleton families this is the paired-t standard error sd/sqrt(Q), and it is
statsmodels' cluster-robust SE of an intercept-only OLS). One draw flips the
sign of every family's differences at once, the same signs for every endpoint
of the block; p = (1 + #{max_e |T*_e| >= max_e |T_e|}) / (1 + draws). Holm's
step-down then adjusts the blocks' p across blocks ("selection + Holm").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from scorers.runs.bind import BoundQrels
from scorers.runs.bootstrap import (
    draw_family_counts,
    family_sums,
    percentile_interval,
    replicate_means,
)
from scorers.runs.measures import METRICS, PerQuery
from scorers.runs.paired import holm, sign_flip_pvalues
from scorers.runs.text import interval, pts, pvalue, table

_CHUNK = 2000
_TOL = 1e-10  # absorbs float summation order when comparing a draw with the observed max


def sign_matrices(units: int, draws: int, seed: int | Sequence[int]) -> Iterator[np.ndarray]:
    """Blocks of a seeded (draws, units) +-1 matrix, one random bit per sign.

    The stream depends only on (units, draws, seed), so a test can replay it.
    """
    rng = np.random.default_rng(seed)
    done = 0
    while done < draws:
        m = min(_CHUNK, draws - done)
        bits = np.unpackbits(np.frombuffer(rng.bytes(m * units // 8 + 1), dtype=np.uint8))
        yield bits[: m * units].reshape(m, units).astype(np.float64) * 2.0 - 1.0
        done += m


def _t_stats(
    num: np.ndarray, cross: np.ndarray, ss: np.ndarray, q: int, f: int, n2: float
) -> np.ndarray:
    """T for (..., E) numerators given sum(eps*s*n) (cross) and sum(s^2) (ss): see module doc."""
    if f < 2:  # one family: no clustered SE, and no sign flip can say anything
        return np.zeros_like(num, dtype=np.float64)
    mean = num / q
    resid = ss - 2.0 * mean * cross + mean * mean * n2
    se_num = np.sqrt(np.maximum(resid, 0.0) * f / (f - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se_num > 0, num / np.where(se_num > 0, se_num, 1.0), np.sign(num) * np.inf)
    return np.where(num == 0, 0.0, t)


def studentized(diffs: np.ndarray, family: np.ndarray, n_families: int) -> np.ndarray:
    """Observed T of each endpoint row of diffs (E, Q)."""
    s = family_sums(np.atleast_2d(diffs), family, n_families)
    sizes = np.bincount(family, minlength=n_families).astype(np.float64)
    q = diffs.shape[-1]
    return _t_stats(
        s.sum(-1), (s * sizes).sum(-1), (s * s).sum(-1), q, n_families, float(sizes @ sizes)
    )


def max_t_pvalue(
    diffs: np.ndarray, family: np.ndarray, n_families: int, *, draws: int, seed: int | Sequence[int]
) -> tuple[float, float]:
    """(observed max |T|, family sign-flip max-|T| p) of the endpoints diffs (E, Q)."""
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    if n_families < 2 or diffs.shape[-1] == 0:
        return 0.0, 1.0
    s = family_sums(diffs, family, n_families)  # (E, F)
    sizes = np.bincount(family, minlength=n_families).astype(np.float64)
    q, n2 = diffs.shape[-1], float(sizes @ sizes)
    ss = (s * s).sum(-1)
    observed = float(np.abs(_t_stats(s.sum(-1), (s * sizes).sum(-1), ss, q, n_families, n2)).max())
    exceed = 0
    for eps in sign_matrices(n_families, draws, seed):
        t = _t_stats(eps @ s.T, eps @ (s * sizes).T, ss, q, n_families, n2)
        exceed += int((np.abs(t).max(axis=1) >= observed - _TOL).sum())
    return observed, (1.0 + exceed) / (1.0 + draws)


def family_interval(
    bound: BoundQrels, values: np.ndarray, replicates: int, seed: int
) -> np.ndarray:
    """Exact-family bootstrap 95% intervals of the means of values (..., Q) -> (..., 2).

    The draws are compare's (numpy's generator seeded with seed), so a pair's interval here
    equals its `score compare --pair` interval.
    """
    if replicates <= 0:
        return np.full((*values.shape[:-1], 2), np.nan)
    counts = draw_family_counts(bound.n_families, replicates, np.random.default_rng(seed))
    return percentile_interval(replicate_means(values, bound.family, bound.n_families, counts))


@dataclass(frozen=True)
class Endpoint:
    variant: str
    diff: dict[str, float]  # variant - base per metric
    ci95: list[float] | None  # exact-family bootstrap interval of the n-Clue difference
    p: float  # raw query sign-flip p of this endpoint alone (n-Clue), not adjusted
    p_family: float  # raw family sign-flip p of this endpoint alone (n-Clue)
    t: float  # studentized statistic of this endpoint


@dataclass(frozen=True)
class Block:
    name: str
    base: str
    endpoints: list[Endpoint]
    selected: str  # the endpoint with the highest n-Clue Score (post hoc choice)
    max_t: float
    p_selection: float  # family max-|T| over every endpoint of the block
    p_selection_holm: float  # p_selection after Holm across the blocks


@dataclass(frozen=True)
class S1eRow:
    """One row of Table S1e. The supplement's dNDCG column is the Gold-NDCG difference (its
    Jina row: 30.7 - 22.8 = +7.9), so it is `d_gold_ndcg`; graded NDCG stays apart."""

    block: str
    base: str
    variant: str
    endpoints: int
    d_nclue: float
    ci95: list[float] | None
    d_gold_hit: float
    d_gold_ndcg: float
    d_graded_ndcg: float
    p: float  # raw query sign-flip p of the selected endpoint
    p_selection_holm: float


@dataclass(frozen=True)
class SelectionReport:
    draws: int
    bootstrap: int
    seed: int
    blocks: list[Block]

    def to_json(self) -> dict[str, object]:
        return {
            "draws": self.draws,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "blocks": [asdict(b) for b in self.blocks],
        }

    def s1e(self) -> list[S1eRow]:
        """Table S1e: one row per block, its selected endpoint (differences are fractions)."""
        out = []
        for b in self.blocks:
            e = next(x for x in b.endpoints if x.variant == b.selected)
            out.append(
                S1eRow(b.name, b.base, e.variant, len(b.endpoints), e.diff["nclue"], e.ci95,
                       e.diff["gold_hit"], e.diff["gold_ndcg"], e.diff["ndcg"], e.p,
                       b.p_selection_holm)
            )  # fmt: skip
        return out

    def rows(self) -> list[dict[str, object]]:
        """Table S1e as dicts, one per block (the columns of `s1e`)."""
        return [asdict(r) for r in self.s1e()]

    def to_text(self) -> str:
        rows = [
            [r.block, f"{r.base} -> {r.variant}", r.endpoints, pts(r.d_nclue, True),
             interval(r.ci95), pts(r.d_gold_hit, True), pts(r.d_gold_ndcg, True),
             pts(r.d_graded_ndcg, True), pvalue(r.p, self.draws),
             pvalue(r.p_selection_holm, self.draws)]
            for r in self.s1e()
        ]  # fmt: skip
        head = ["block", "selected contrast", "endpoints", "dScore", "exact-family 95% CI",
                "dHit", "dNDCG (Gold-NDCG)", "d graded NDCG", "raw p", "Sel.+Holm p"]  # fmt: skip
        detail = [
            [b.name, x.variant, pts(x.diff["nclue"], True), interval(x.ci95),
             f"{x.t:+.2f}", pvalue(x.p, self.draws), pvalue(x.p_family, self.draws)]
            for b in self.blocks
            for x in b.endpoints
        ]  # fmt: skip
        return "\n".join(
            [
                "Selection-adjusted inference (n-Clue supplement Table S1e): n-Clue Score effects "
                f"in points; {self.draws} family sign-flip draws, max-|T| over every endpoint of a "
                "block, then Holm across blocks (Sel.+Holm p); raw p is the query sign-flip p of "
                f"the selected endpoint alone; {self.bootstrap} family-bootstrap replicates. "
                "dNDCG is the Gold-NDCG difference (gain 1 for gold), as the supplement's "
                "column; graded NDCG (gain = grade) is printed beside it.",
                table(rows, head),
                "\nEvery tried endpoint (T studentized by the family-clustered paired SE):",
                table(detail, ["block", "variant", "dScore", "95% CI", "T", "raw p", "family p"]),
            ]
        )


def selection_report(
    bound: BoundQrels,
    scored: Mapping[str, PerQuery],
    blocks: Sequence[tuple[str, str, Sequence[str]]],
    *,
    draws: int = 10_000,
    bootstrap: int = 1000,
    seed: int = 11,
) -> SelectionReport:
    """Blocks (name, base, variants). Intervals use compare's bootstrap draws (same seed)."""
    j = METRICS.index("nclue")
    flip_seed = [seed, 1]  # the sign-flip stream compare uses for its raw p
    out: list[Block] = []
    raw_p: list[float] = []
    for name, base, variants in blocks:
        d_all = np.stack([scored[v].values() - scored[base].values() for v in variants])  # (E,4,Q)
        d = d_all[:, j, :]
        p = sign_flip_pvalues(d, draws=draws, seed=flip_seed)
        fam = family_sums(d, bound.family, bound.n_families)
        p_fam = sign_flip_pvalues(fam, draws=draws, seed=flip_seed)
        t = studentized(d, bound.family, bound.n_families)
        max_t, p_sel = max_t_pvalue(d, bound.family, bound.n_families, draws=draws, seed=flip_seed)
        nq = max(d.shape[-1], 1)
        ci = family_interval(bound, d, bootstrap, seed)
        eps = [
            Endpoint(
                v,
                {m: float(d_all[i, mi].sum() / nq) for mi, m in enumerate(METRICS)},
                None if np.isnan(ci[i]).any() else [float(ci[i, 0]), float(ci[i, 1])],
                float(p[i]),
                float(p_fam[i]),
                float(t[i]),
            )
            for i, v in enumerate(variants)
        ]
        best = max(range(len(variants)), key=lambda i: (scored[variants[i]].values()[j].mean(), -i))
        raw_p.append(p_sel)
        out.append(Block(name, base, eps, variants[best], max_t, p_sel, p_sel))
    adj = holm(raw_p)
    blocks_out = [
        Block(b.name, b.base, b.endpoints, b.selected, b.max_t, b.p_selection, float(a))
        for b, a in zip(out, adj, strict=True)
    ]
    return SelectionReport(draws, bootstrap, seed, blocks_out)
