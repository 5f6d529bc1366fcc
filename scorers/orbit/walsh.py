"""Exact Walsh (Fourier) decomposition of a function on the complete 2^3 design.

Interfaces are indexed 0..7 in the order of ``INTERFACES`` ("+++", "++-", ..., "---"),
the signs of (z1, z2, z3). Coefficients are indexed in the order of ``SUBSET_KEYS``
("0" is the empty set, then "1", "2", "3", "12", "13", "23", "123").
"""

from __future__ import annotations

from itertools import combinations, product

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

INTERFACES: tuple[str, ...] = tuple("".join(p) for p in product("+-", repeat=3))
"""Interface keys: the signs of z1 (binding), z2 (vocabulary), z3 (option order)."""

SUBSETS: tuple[tuple[int, ...], ...] = tuple(
    s for size in range(4) for s in combinations((1, 2, 3), size)
)
SUBSET_KEYS: tuple[str, ...] = tuple("".join(map(str, s)) or "0" for s in SUBSETS)
FIRST_ORDER = np.array([len(s) == 1 for s in SUBSETS])
HIGH_ORDER = np.array([len(s) >= 2 for s in SUBSETS])
NONEMPTY = np.array([len(s) >= 1 for s in SUBSETS])


def z_matrix() -> NDArray[np.int64]:
    """(8, 3) array of z_j in {-1, +1} for each interface, in ``INTERFACES`` order."""
    return np.array([[1 if c == "+" else -1 for c in key] for key in INTERFACES], dtype=np.int64)


def characters() -> FloatArray:
    """X[T, k] = prod_{j in T} z_j(k): rows are subsets, columns are interfaces.

    The rows are orthogonal with squared norm 8, so X @ X.T = 8 I and the transform
    below is exactly invertible.
    """
    z = z_matrix()
    out = np.ones((len(SUBSETS), len(INTERFACES)))
    for t, subset in enumerate(SUBSETS):
        for j in subset:
            out[t] *= z[:, j - 1]
    return out


_X = characters()


def walsh(values: FloatArray) -> FloatArray:
    """q_T = (1/8) sum_z q(z) chi_T(z) along the last axis (length 8, interface order)."""
    return np.asarray(values, dtype=np.float64) @ _X.T / 8.0


def inverse_walsh(coefficients: FloatArray) -> FloatArray:
    """q(z) = sum_T q_T chi_T(z): the exact reconstruction of the eight values."""
    return np.asarray(coefficients, dtype=np.float64) @ _X


def r_norms(coefficients: FloatArray) -> dict[str, FloatArray]:
    """R_first, R_high and R_total over the last axis (coefficients in ``SUBSET_KEYS`` order).

    R_total is the RMS deviation of q across the interfaces (Parseval).
    """
    c = np.asarray(coefficients, dtype=np.float64)
    first = np.sqrt(np.sum(c[..., FIRST_ORDER] ** 2, axis=-1))
    high = np.sqrt(np.sum(c[..., HIGH_ORDER] ** 2, axis=-1))
    return {"first": first, "high": high, "total": np.sqrt(first**2 + high**2)}


def first_order_fit(coefficients: FloatArray) -> FloatArray:
    """Values of the first-order approximation q_0 + sum_j q_j z_j at the eight interfaces."""
    c = np.asarray(coefficients, dtype=np.float64)
    keep = ~HIGH_ORDER
    return c[..., keep] @ _X[keep]


def norm_bounds(low: FloatArray, high: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Bounds of sqrt(sum c_T^2) over the rectangle prod_T [low_T, high_T] (last axis).

    Each coordinate contributes its smallest |c| (0 when the interval contains 0) to the
    lower bound and its largest |c| to the upper bound; the norm is monotone in each |c_T|,
    so these are the exact extremes over the rectangle.
    """
    lo = np.asarray(low, dtype=np.float64)
    hi = np.asarray(high, dtype=np.float64)
    straddles = (lo <= 0.0) & (hi >= 0.0)
    smallest = np.where(straddles, 0.0, np.minimum(np.abs(lo), np.abs(hi)))
    largest = np.maximum(np.abs(lo), np.abs(hi))
    return np.sqrt(np.sum(smallest**2, axis=-1)), np.sqrt(np.sum(largest**2, axis=-1))
