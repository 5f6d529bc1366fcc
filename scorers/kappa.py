"""Chance-corrected agreement: Cohen's kappa (weighted), Gwet's AC1, Fleiss' kappa.

Inputs are plain sequences / count tables; no I/O. Weighted kappa uses the
distance between category *positions* in the ordered label list (as
scikit-learn's `cohen_kappa_score` does), so grades 0..n must be passed as
the full label range when a middle grade may be unused.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

WEIGHTS = (None, "linear", "quadratic")


def confusion(
    a: Sequence[Hashable], b: Sequence[Hashable], labels: Sequence[Hashable] | None = None
) -> tuple[list[Hashable], np.ndarray]:
    """(labels, matrix) with rows = first rater, columns = second rater."""
    if len(a) != len(b):
        raise ValueError("both raters need the same number of ratings")
    if labels is None:
        labels = sorted(set(a) | set(b), key=_order_key)
    index = {lab: i for i, lab in enumerate(labels)}
    mat = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for x, y in zip(a, b, strict=True):
        mat[index[x], index[y]] += 1
    return list(labels), mat


def _order_key(value: Hashable) -> tuple[int, object]:
    # Numbers before strings so mixed tables still sort deterministically.
    if isinstance(value, int | float):
        return (0, value)
    return (1, str(value))


def kappa_from_confusion(
    matrix: np.ndarray | Sequence[Sequence[int]], weights: str | None = None
) -> float:
    """Cohen's kappa from a square count matrix; `weights` None, "linear" or "quadratic"."""
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {WEIGHTS}")
    obs = np.asarray(matrix, dtype=float)
    k = obs.shape[0]
    total = obs.sum()
    if total == 0:
        return math.nan
    expected = np.outer(obs.sum(axis=1), obs.sum(axis=0)) / total
    idx = np.arange(k)
    if weights is None:
        w = 1.0 - np.eye(k)
    elif weights == "linear":
        w = np.abs(idx[:, None] - idx[None, :]).astype(float)
    else:
        w = ((idx[:, None] - idx[None, :]) ** 2).astype(float)
    denom = float((w * expected).sum())
    if denom == 0.0:
        return math.nan  # one category only: kappa is undefined
    return 1.0 - float((w * obs).sum()) / denom


def cohen_kappa(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    weights: str | None = None,
    labels: Sequence[Hashable] | None = None,
) -> float:
    _, mat = confusion(a, b, labels)
    return kappa_from_confusion(mat, weights)


def gwet_ac1(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Gwet's AC1 for two raters over the categories either rater used.

    pe = 1/(q-1) * sum_k pi_k (1 - pi_k), pi_k = mean of the two raters' marginals.
    """
    labels, mat = confusion(a, b)
    q = len(labels)
    n = float(mat.sum())
    if n == 0 or q < 2:
        return math.nan if n == 0 else 1.0
    pa = float(np.trace(mat)) / n
    pi = (mat.sum(axis=0) + mat.sum(axis=1)) / (2.0 * n)
    pe = float((pi * (1.0 - pi)).sum()) / (q - 1)
    return (pa - pe) / (1.0 - pe)


def fleiss_kappa(table: np.ndarray | Sequence[Sequence[int]]) -> float:
    """Fleiss' kappa from a units x categories count table (same raters per unit).

    Matches statsmodels `fleiss_kappa(table, method="fleiss")`.
    """
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] == 0:
        return math.nan
    n_raters = t.sum(axis=1)
    if not np.all(n_raters == n_raters[0]) or n_raters[0] < 2:
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of ratings per unit")
    m = n_raters[0]
    units = t.shape[0]
    p_cat = t.sum(axis=0) / (units * m)
    p_unit = ((t * t).sum(axis=1) - m) / (m * (m - 1))
    p_bar = float(p_unit.mean())
    p_e = float((p_cat * p_cat).sum())
    if p_e == 1.0:
        return math.nan
    return (p_bar - p_e) / (1.0 - p_e)


def category_counts(
    ratings: Sequence[Sequence[Hashable]], labels: Sequence[Hashable] | None = None
) -> tuple[list[Hashable], np.ndarray]:
    """units x categories counts from per-unit rating lists (statsmodels `aggregate_raters`)."""
    if labels is None:
        labels = sorted({v for row in ratings for v in row}, key=_order_key)
    index = {lab: i for i, lab in enumerate(labels)}
    out = np.zeros((len(ratings), len(labels)), dtype=np.int64)
    for u, row in enumerate(ratings):
        for v in row:
            out[u, index[v]] += 1
    return list(labels), out
