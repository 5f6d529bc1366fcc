"""Walsh transform, g/h definitions and R norms of the orbit audit ("Which Reranking Conclusions Survive the Answer Interface?")."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from scipy.linalg import hadamard

from scorers.orbit.design import build_design
from scorers.orbit.effects import point_effects
from scorers.orbit.walsh import (
    INTERFACES,
    SUBSET_KEYS,
    SUBSETS,
    characters,
    first_order_fit,
    inverse_walsh,
    norm_bounds,
    r_norms,
    walsh,
)

COLS = ["dataset", "reader", "claim_id", "y", "ranker", "z1", "z2", "z3", "correct"]


def table(cells: dict[tuple[str, str, str], int], states: dict[str, str]) -> dict[str, list]:
    """Columns of a long table from {(claim, ranker, interface): correct}."""
    rows = []
    for (claim, ranker, iface), ok in cells.items():
        z = [1 if c == "+" else -1 for c in iface]
        rows.append(["D", "R", claim, states[claim], ranker, *z, ok])
    return {c: [r[i] for r in rows] for i, c in enumerate(COLS)}


def test_interface_and_subset_keys() -> None:
    assert INTERFACES == ("+++", "++-", "+-+", "+--", "-++", "-+-", "--+", "---")
    assert SUBSET_KEYS == ("0", "1", "2", "3", "12", "13", "23", "123")


def test_characters_are_the_sylvester_hadamard_rows() -> None:
    # Reference: scipy's Sylvester Hadamard matrix H[i, k] = (-1)^popcount(i & k). Interface k
    # has bit 4 for z1 = -1, 2 for z2, 1 for z3, so chi_T is the row of T's bit mask.
    h = hadamard(8)
    masks = [sum({1: 4, 2: 2, 3: 1}[j] for j in s) for s in SUBSETS]
    np.testing.assert_array_equal(characters(), h[masks])
    np.testing.assert_array_equal(characters() @ characters().T, 8 * np.eye(8))


def test_walsh_reconstructs_the_eight_values_exactly() -> None:
    rng = np.random.default_rng(7)
    values = rng.normal(size=(50, 2, 8))
    np.testing.assert_allclose(inverse_walsh(walsh(values)), values, rtol=0, atol=1e-14)
    # Dyadic values reconstruct bit for bit.
    dyadic = rng.integers(-64, 64, size=(20, 8)) / 64.0
    assert np.array_equal(inverse_walsh(walsh(dyadic)), dyadic)


def test_r_total_is_the_rms_deviation_across_interfaces() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(size=(30, 8))
    norms = r_norms(walsh(values))
    np.testing.assert_allclose(norms["total"], values.std(axis=1, ddof=0), atol=1e-14)
    np.testing.assert_allclose(norms["total"] ** 2, norms["first"] ** 2 + norms["high"] ** 2)


def test_first_order_fit_drops_only_interactions() -> None:
    coef = np.array([0.1, 0.02, -0.03, 0.04, 0.05, 0.0, -0.01, 0.02])
    first = coef.copy()
    first[4:] = 0.0
    np.testing.assert_allclose(first_order_fit(coef), inverse_walsh(first), atol=1e-15)


def test_norm_bounds_match_brute_force_over_the_rectangle() -> None:
    low = np.array([-0.01, 0.02, -0.05, 0.01])
    high = np.array([0.03, 0.04, -0.02, 0.015])
    grid = np.array(list(product(*[np.linspace(a, b, 21) for a, b in zip(low, high, strict=True)])))
    norms = np.sqrt((grid**2).sum(axis=1))
    lo, hi = norm_bounds(low, high)
    assert lo == pytest.approx(norms.min(), abs=1e-12)
    assert hi == pytest.approx(norms.max(), abs=1e-12)


def test_planted_coefficients_recovered_exactly_from_noise_free_data() -> None:
    # Plant g and h coefficients that are multiples of 1/64, make d_+ = g + h and
    # d_- = g - h with 64 claims per state (base never correct, the variant correct on the
    # first 64 * d claims), and read the coefficients back through the whole pipeline.
    n = 64
    g_coef = np.array([24, 4, -3, 2, 5, 0, -1, 1]) / n
    h_coef = np.array([6, -2, 1, 0, 0, 3, 0, -1]) / n
    g, h = inverse_walsh(g_coef), inverse_walsh(h_coef)
    d_plus, d_minus = g + h, g - h
    assert np.all((d_plus >= 0) & (d_plus <= 1) & (d_minus >= 0) & (d_minus <= 1))
    cells, states = {}, {}
    for state, d in (("+", d_plus), ("-", d_minus)):
        for i in range(n):
            claim = f"{state}{i}"
            states[claim] = state
            for k, iface in enumerate(INTERFACES):
                cells[(claim, "B", iface)] = 0
                cells[(claim, "S", iface)] = int(i < round(d[k] * n))
    cols = table(cells, states)
    data = build_design(cols, base="B", variant="S", source="t.csv", lines=range(len(cols["y"])))
    est = point_effects(data.datasets[0])[0]
    coef = walsh(est)
    for got, planted in ((coef[0], g_coef), (coef[1], h_coef)):
        # Dyadic rationals are exact in binary floating point: equality, not closeness.
        assert got.tolist() == planted.tolist()
        assert [Fraction(v) * n for v in got] == [Fraction(round(v * n)) for v in planted]


def test_g_and_h_on_a_hand_computed_two_claim_example() -> None:
    # Claim a is "+", claim b is "-". Correctness (base B, variant S) per interface:
    #   a: B correct at +++ and ++- only; S correct everywhere except ---.
    #   b: B correct everywhere; S correct only at +++ and -++.
    # d_+(z) = S_a - B_a, d_-(z) = S_b - B_b, g = (d_+ + d_-)/2, h = (d_+ - d_-)/2.
    b_a = {k: int(k in ("+++", "++-")) for k in INTERFACES}
    s_a = {k: int(k != "---") for k in INTERFACES}
    s_b = {k: int(k in ("+++", "-++")) for k in INTERFACES}
    cells = {}
    for k in INTERFACES:
        cells[("a", "B", k)] = b_a[k]
        cells[("a", "S", k)] = s_a[k]
        cells[("b", "B", k)] = 1
        cells[("b", "S", k)] = s_b[k]
    cols = table(cells, {"a": "+", "b": "-"})
    data = build_design(cols, base="B", variant="S", source="t.csv", lines=range(len(cols["y"])))
    g, h = point_effects(data.datasets[0])[0]
    # By hand: d_+ = [0, 0, 1, 1, 1, 1, 1, 0], d_- = [0, -1, -1, -1, 0, -1, -1, -1].
    expected_g = [0.0, -0.5, 0.0, 0.0, 0.5, 0.0, 0.0, -0.5]
    expected_h = [0.0, 0.5, 1.0, 1.0, 0.5, 1.0, 1.0, 0.5]
    assert g.tolist() == expected_g
    assert h.tolist() == expected_h
    # Interface average of g by hand: (0 - .5 + 0 + 0 + .5 + 0 + 0 - .5) / 8 = -1/16.
    assert walsh(g)[0] == -1 / 16
    # Binding coefficient of h: (0 + .5 + 1 + 1 - .5 - 1 - 1 - .5) / 8 = -1/16.
    assert walsh(h)[1] == -1 / 16
