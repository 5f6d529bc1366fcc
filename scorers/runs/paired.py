"""Paired tests between runs: sign-flip randomization, Holm, common-support ordering.

"Do Current Retrievers Cover All the Evidence?" (supplement) reports query-paired randomization p-values (10,000 draws), Holm
correction across the declared contrasts, and Table S1f's ordering on the
common success support.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scorers.runs.measures import GOLD_FIRST, MISS

_CHUNK = 2000  # sign draws per block: bounds memory at _CHUNK x units floats


def sign_flip_pvalues(
    diffs: np.ndarray,
    *,
    draws: int = 10_000,
    seed: int | Sequence[int] = 11,
    tol: float = 1e-10,
) -> np.ndarray:
    """Two-sided sign-flip randomization p-values for the mean of each row of diffs (T, U).

    Each draw flips the sign of every unit's difference independently (units are
    queries, or families for a clustered test); p = (1 + #{|T*| >= |T|}) /
    (1 + draws). The same seeded sign matrix serves every row, so a row's p does
    not depend on the other rows. tol absorbs float summation order.
    """
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    n_tests, units = diffs.shape
    if units == 0:
        return np.ones(n_tests)
    observed = np.abs(diffs.sum(axis=1))
    rng = np.random.default_rng(seed)
    exceed = np.zeros(n_tests, dtype=np.int64)
    done = 0
    while done < draws:
        m = min(_CHUNK, draws - done)
        # One random bit per sign: unpack random bytes (much cheaper than integer draws).
        bits = np.unpackbits(np.frombuffer(rng.bytes(m * units // 8 + 1), dtype=np.uint8))
        signs = bits[: m * units].reshape(m, units).astype(np.float64) * 2.0 - 1.0
        stats = np.abs(signs @ diffs.T)  # (m, T)
        exceed += (stats >= observed[None, :] - tol).sum(axis=0)
        done += m
    return (1.0 + exceed) / (1.0 + draws)


def holm(pvalues: np.ndarray | list[float]) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as the input)."""
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    scaled = p[order] * (m - np.arange(m))
    adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


def common_support(base: np.ndarray, variant: np.ndarray) -> dict[str, float | int | None]:
    """Table S1f of "Do Current Retrievers Cover All the Evidence?" (supplement): ordering on queries where both runs retrieve a gold
    in the top k.

    D = 1 - P(subset ranks above the best gold) = share of gold_first on the
    common support; delta_D = D(variant) - D(base). None when no query is common.
    """
    common = (base != MISS) & (variant != MISS)
    n = int(common.sum())
    if n == 0:
        return {"common_n": 0, "D_base": None, "D_variant": None, "delta_D": None}
    d_base = float((base[common] == GOLD_FIRST).mean())
    d_var = float((variant[common] == GOLD_FIRST).mean())
    return {"common_n": n, "D_base": d_base, "D_variant": d_var, "delta_D": d_var - d_base}
