"""Difficulty covariates (the n-Clue supplement, Table S5b "Difficulty covariates" and the
paragraph after it: "The difficulty regression jointly includes condition rarity, condition
count, gold-document length, and judged-pool size. On a density-matched subset,
three-condition items are easier ... Matching document length changes AUC only slightly").

Per query with at least one gold (the others cannot succeed and have no gold length):

* rarity = mean over the query's conditions of ln(D / f_c), f_c the documents with stored
  evidence for condition c, D the documents of the evidence inventory (a mean inverse
  document frequency: rarer conditions, larger values);
* n = the number of conditions;
* length = ln L_min, L_min the fewest pages among the query's gold documents (Table S1j);
* pool = ln |D+|, |D+| the query's nonzero qrels (the judged pool, Table S1j).

Regression: per system, a logistic regression (statsmodels Logit, Newton) of the per-query
success (gold first in the top k, the n-Clue event) on the four covariates, each
standardized to mean 0 and standard deviation 1 over the queries (so coefficients compare
across covariates), with an intercept: coefficients, standard errors, Wald z and
two-sided p. A covariate constant over the queries is left out (reported as None).

AUC: whether queries with more conditions (n = the largest n) succeed more often than those
with fewer (n = the smallest n): scikit-learn's roc_auc_score with y = "more conditions" and
the per-query success as the score (0.5 = no difference, > 0.5 = more conditions easier).
Unmatched, it uses every query; density-matched, queries are cut into `bins` quantile bins
of |D+| and a bin is kept only when it holds both groups, the fewer-condition queries of a
bin weighted by (more-condition count / fewer-condition count) so both groups have the same
density distribution (sample_weight); length-matched also crosses the bins with quantile
bins of L_min. Pure.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from scorers.runs.text import table

COVARIATES = ("rarity", "n", "length", "pool")


@dataclass(frozen=True)
class QueryCovariates:
    """Per-query raw covariates, in query order (queries with at least one gold)."""

    query_ids: list[str]
    n: list[int]
    rarity: list[float]
    lmin: list[int]  # fewest pages among the gold documents
    pool: list[int]  # nonzero qrels

    def matrix(self) -> np.ndarray:
        """(Q, 4) raw covariates as regressed, before standardizing (module doc)."""
        return np.column_stack(
            [np.asarray(self.rarity, dtype=np.float64), np.asarray(self.n, dtype=np.float64),
             np.log(np.asarray(self.lmin, dtype=np.float64)),
             np.log(np.asarray(self.pool, dtype=np.float64))]
        )  # fmt: skip


def rarity(frequencies: Sequence[int], documents: int) -> float:
    """Mean ln(D / f_c) over a query's conditions (f_c at least 1)."""
    if not frequencies:
        return 0.0
    return sum(math.log(documents / max(f, 1)) for f in frequencies) / len(frequencies)


@dataclass(frozen=True)
class Coefficient:
    name: str
    coef: float | None
    se: float | None
    z: float | None
    p: float | None


@dataclass(frozen=True)
class Regression:
    system: str
    queries: int
    successes: int
    coefficients: list[Coefficient]  # intercept first, then COVARIATES
    converged: bool
    note: str  # why a model was not estimable, else ""


@dataclass(frozen=True)
class AucRow:
    system: str
    low_n: int
    high_n: int
    unmatched: float | None
    unmatched_queries: int
    density_matched: float | None
    density_queries: int
    length_matched: float | None
    length_queries: int


@dataclass(frozen=True)
class DifficultyReport:
    k: int
    metric: str
    bins: int
    queries: int
    covariates: list[str]
    regressions: list[Regression]
    auc: list[AucRow]
    per_query: QueryCovariates  # the raw covariates, so each can be checked by hand

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def rows(self) -> list[dict[str, object]]:
        """One dict per (system, coefficient) of the regressions."""
        return [{"system": r.system, **asdict(c)} for r in self.regressions for c in r.coefficients]

    def to_text(self) -> str:
        def f(x: float | None, d: int = 3) -> str:
            return "-" if x is None else f"{x:+.{d}f}"

        def pv(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        reg = [
            [r.system, c.name, f(c.coef), "-" if c.se is None else f"{c.se:.3f}", f(c.z, 2),
             pv(c.p), r.note or ("" if r.converged else "not converged")]
            for r in self.regressions
            for c in r.coefficients
        ]  # fmt: skip
        auc = [
            [a.system, f"{a.high_n} vs {a.low_n}",
             pv(a.unmatched), a.unmatched_queries, pv(a.density_matched), a.density_queries,
             pv(a.length_matched), a.length_queries]
            for a in self.auc
        ]  # fmt: skip
        return "\n".join(
            [
                f"Difficulty covariates (n-Clue supplement Table S5b): logistic regression of "
                f"per-query {self.metric} success at k={self.k} on standardized rarity (mean "
                "ln(D/f_c)), n, ln L_min and ln |D+| over "
                f"{self.queries} queries with a gold (statsmodels Logit).",
                table(reg, ["system", "term", "coef", "SE", "z", "p", "note"]),
                "",
                f"AUC of more vs fewer conditions for success (scikit-learn; > 0.5 = more "
                f"conditions easier); matched within {self.bins} quantile bins of |D+| "
                "(density) and also of L_min (density + length).",
                table(
                    auc,
                    ["system", "n", "AUC", "q.", "density-matched", "q.", "density+length", "q."],
                ),
            ]
        )


def standardize(x: np.ndarray) -> tuple[np.ndarray, list[bool]]:
    """Columns to z-scores (population SD); constant columns flagged False and dropped."""
    keep = [bool(np.ptp(x[:, j]) > 0) for j in range(x.shape[1])]
    z = x[:, keep]
    z = (z - z.mean(axis=0)) / z.std(axis=0)
    return z, keep


def logit(system: str, y: np.ndarray, x: np.ndarray) -> Regression:
    """Logit of y on standardized x (Q, 4) with an intercept (module doc)."""
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import (
        ConvergenceWarning,
        HessianInversionWarning,
        PerfectSeparationError,
        PerfectSeparationWarning,
    )

    z, keep = standardize(x)
    names = ["intercept", *COVARIATES]
    empty = [Coefficient(nm, None, None, None, None) for nm in names]
    succ = int(y.sum())
    if succ in (0, y.size):
        return Regression(system, int(y.size), succ, empty, False,
                          "every query has the same outcome")  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerfectSeparationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        # reported through `converged` and the note, not as stray stderr lines
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", HessianInversionWarning)
        try:
            fit = sm.Logit(y, sm.add_constant(z, has_constant="add")).fit(
                method="newton", disp=0, maxiter=100
            )
        except (PerfectSeparationError, PerfectSeparationWarning, np.linalg.LinAlgError):
            return Regression(system, int(y.size), succ, empty, False, "perfect separation")
    vals = iter(range(1 + sum(keep)))
    coefs = []
    for nm, used in zip(names, [True, *keep], strict=True):
        if not used:
            coefs.append(Coefficient(nm, None, None, None, None))
            continue
        i = next(vals)
        coefs.append(Coefficient(nm, float(fit.params[i]), float(fit.bse[i]),
                                 float(fit.tvalues[i]), float(fit.pvalues[i])))  # fmt: skip
    converged = bool(fit.mle_retvals.get("converged", True))
    return Regression(system, int(y.size), succ, coefs, converged, "")


def quantile_bins(x: np.ndarray, bins: int) -> np.ndarray:
    """Bin index of each value among `bins` quantile bins (equal edges merged)."""
    edges = np.unique(np.quantile(x, np.linspace(0.0, 1.0, bins + 1)))
    if edges.size < 2:
        return np.zeros(x.size, dtype=np.int64)
    return np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)


def matched_weights(high: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Weights making the fewer-condition group match the more-condition group's cells:
    1 for more-condition queries, (#high / #low) of the cell for the others, 0 in cells
    lacking either group."""
    w = np.zeros(high.size)
    for c in np.unique(cells):
        at = cells == c
        nh, nl = int((high & at).sum()), int((~high & at).sum())
        if nh and nl:
            w[high & at] = 1.0
            w[~high & at] = nh / nl
    return w


def _auc(high: np.ndarray, score: np.ndarray, w: np.ndarray) -> tuple[float | None, int]:
    from sklearn.metrics import roc_auc_score

    keep = w > 0
    if not (high & keep).any() or not (~high & keep).any():
        return None, int(keep.sum())
    return float(roc_auc_score(high[keep], score[keep], sample_weight=w[keep])), int(keep.sum())


def difficulty_report(
    success: Mapping[str, np.ndarray], cov: QueryCovariates, *, k: int, metric: str,
    bins: int = 4,
) -> DifficultyReport:  # fmt: skip
    """success: system -> (Q,) per-query success values in cov's query order."""
    x = cov.matrix()
    n = np.asarray(cov.n)
    regs = [logit(s, (np.asarray(v) > 0).astype(np.float64), x) for s, v in success.items()]
    rows = []
    lo, hi = (int(n.min()), int(n.max())) if n.size else (0, 0)
    two = (n == lo) | (n == hi)
    high = n[two] == hi
    dens = quantile_bins(np.asarray(cov.pool, dtype=np.float64), bins)[two]
    leng = quantile_bins(np.asarray(cov.lmin, dtype=np.float64), bins)[two]
    for s, v in success.items():
        score = np.asarray(v, dtype=np.float64)[two]
        if lo == hi:
            rows.append(AucRow(s, lo, hi, None, 0, None, 0, None, 0))
            continue
        un, nu = _auc(high, score, np.ones(high.size))
        dm, nd = _auc(high, score, matched_weights(high, dens))
        lm, nl = _auc(high, score, matched_weights(high, dens * (bins + 1) + leng))
        rows.append(AucRow(s, lo, hi, un, nu, dm, nd, lm, nl))
    return DifficultyReport(k, metric, bins, len(cov.query_ids), list(COVARIATES), regs, rows, cov)
