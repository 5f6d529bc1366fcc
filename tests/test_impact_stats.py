"""The classic impact statistics (scorers/impact) against reference implementations:
Kendall and Spearman against scipy, tau-AP against a brute-force reading of its
definition (Yilmaz, Aslam and Robertson 2008), the randomization test against the n-Clue
commands' per-pair sign-flip test with the same seed and against ranx's Fisher
randomization test, the t-test against scipy and ranx, Holm against statsmodels, the
bootstrap against a plain loop over the same draws, Judged@k against its definition."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from scorers.impact.bootstrap import delta_intervals, draw_indices
from scorers.impact.ordering import kendall_spearman, movement, ranks, tau_ap
from scorers.impact.paired import (
    all_pairs,
    discriminative_power,
    holm,
    randomization_pvalues,
    ttest_pvalues,
)
from scorers.runs.paired import sign_flip_pvalues


def _tau_ap_brute(evaluated: list[int], reference: list[int]) -> float:
    """The definition, item by item: the list is the systems ordered by `evaluated`."""
    n = len(evaluated)
    order = sorted(range(n), key=lambda s: evaluated[s])
    total = 0.0
    for i in range(1, n):  # the (i+1)-th system of the list, i systems above it
        here = order[i]
        c = sum(1 for j in range(i) if reference[order[j]] < reference[here])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


def test_tau_ap_equals_its_definition() -> None:
    rng = np.random.default_rng(3)
    for n in (2, 3, 5, 12, 40):
        for _ in range(20):
            ev = list(rng.permutation(n) + 1)
            ref = list(rng.permutation(n) + 1)
            assert tau_ap(ev, ref) == pytest.approx(_tau_ap_brute(ev, ref), abs=1e-12)
    assert tau_ap([1, 2, 3, 4], [1, 2, 3, 4]) == 1.0
    assert tau_ap([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    # Top-weighted: a swap at the top costs more than the same swap at the bottom.
    assert tau_ap([1, 2, 3, 4, 5], [2, 1, 3, 4, 5]) < tau_ap([1, 2, 3, 4, 5], [1, 2, 3, 5, 4])
    assert tau_ap([1], [1]) is None


def test_kendall_spearman_and_ranks_against_scipy() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        a = rng.random(15)
        b = a + rng.normal(0, 0.2, 15)
        tau, rho = kendall_spearman(a, b)
        assert tau == stats.kendalltau(a, b).statistic
        assert rho == stats.spearmanr(a, b).statistic
    assert kendall_spearman(np.ones(4), np.arange(4.0)) == (None, None)
    r = ranks(np.array([0.3, 0.5, 0.3, 0.1]))
    assert r.tolist() == [2, 1, 3, 4]  # equal means keep the given order
    assert movement(np.array([2, 1, 3]), np.array([1, 3, 2])).tolist() == [1, -2, 1]


def _values(runs: int, queries: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.random(queries)
    return np.clip(
        base[None, :] + rng.normal(0, 0.15, (runs, queries)) + 0.03 * np.arange(runs)[:, None], 0, 1
    )


def test_randomization_equals_the_per_pair_test_with_the_same_seed() -> None:
    x = _values(6, 37, 1)
    pairs = [*all_pairs(6), (3, 1)]
    p = randomization_pvalues(x, pairs, draws=3000, seed=11)
    for i, (b, v) in enumerate(pairs):
        assert p[i] == sign_flip_pvalues(x[v] - x[b], draws=3000, seed=11)[0]


def test_randomization_and_t_test_against_ranx() -> None:
    from ranx.statistical_tests import fisher_randomization_test, paired_student_t_test

    x = _values(4, 50, 2)
    pairs = all_pairs(4)
    p = randomization_pvalues(x, pairs, draws=20_000, seed=11)
    pt = ttest_pvalues(x, pairs)
    for i, (b, v) in enumerate(pairs):
        ref, _sig = fisher_randomization_test(x[b], x[v], 20_000, 0.05, 42)
        assert abs(p[i] - ref) < 0.015  # two Monte Carlo estimates of one p (sd < 0.004)
        assert pt[i] == pytest.approx(paired_student_t_test(x[b], x[v], 0.05)[0], rel=1e-12)
        assert pt[i] == pytest.approx(stats.ttest_rel(x[v], x[b]).pvalue, rel=1e-12)


def test_t_test_of_constant_differences() -> None:
    x = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [0.2, 0.3, 0.4]])
    assert ttest_pvalues(x, [(0, 1), (0, 2)]).tolist() == [1.0, 0.0]
    assert randomization_pvalues(x, [(0, 1)], draws=100)[0] == 1.0


def test_holm_and_discriminative_power_against_statsmodels() -> None:
    rng = np.random.default_rng(9)
    for _ in range(10):
        p = rng.random(25) ** 3
        assert holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-15)
    p = np.array([0.01, 0.2, 0.049, 0.05])
    assert discriminative_power(p) == 0.5
    assert discriminative_power(np.array([])) is None


def test_bootstrap_equals_a_plain_loop_over_the_same_draws() -> None:
    rng = np.random.default_rng(4)
    before, after = rng.random((3, 20)), rng.random((3, 20))
    in_b = np.ones(20, dtype=bool)
    in_a = in_b.copy()
    in_a[[2, 7, 11]] = False  # queries the revision removed
    got = delta_intervals(before, after, in_b, in_a, replicates=300, seed=17)
    idx = draw_indices(20, 300, 17)
    for r in range(3):
        reps = []
        for row in idx:
            b = [before[r, q] for q in row if in_b[q]]
            a = [after[r, q] for q in row if in_a[q]]
            reps.append(sum(a) / len(a) - sum(b) / len(b))
        assert got[r] == pytest.approx(np.percentile(reps, [2.5, 97.5]), abs=1e-12)
    # The undrawn sample's change is the reported one; the seed makes it reproducible.
    assert np.array_equal(got, delta_intervals(before, after, in_b, in_a, replicates=300, seed=17))
    assert np.isnan(delta_intervals(before, after, in_b, in_a, replicates=0, seed=1)).all()


def test_every_pair_is_unordered_and_counted() -> None:
    assert all_pairs(70) == list(itertools.combinations(range(70), 2))
    assert len(all_pairs(70)) == 2415


def judged_at_k(ranked: list[str], judged: set[str] | dict[str, int], k: int) -> float:
    """Judged@k as ir_measures defines it: the judged share of the top min(k, retrieved)."""
    top = ranked[:k]
    return sum(1 for d in top if d in judged) / len(top) if top else 0.0


def mean_judged(
    ranked: dict[str, list[str]], qrels: dict, k: int, queries: set[str] | None = None
) -> tuple[float | None, int]:
    """The mean over queries that have qrels, the run retrieves and the filter keeps."""
    vals = [judged_at_k(ranked[q], qrels[q], k) for q in ranked
            if q in qrels and (queries is None or q in queries)]  # fmt: skip
    return (sum(vals) / len(vals) if vals else None), len(vals)


def test_judged_at_k_as_ir_measures_defines_it() -> None:
    qrels = {"q1": {"a": 1, "b": 0, "c": -2}, "q2": {"x": 2}}
    ranked = {"q1": ["a", "z", "b", "c", "y"], "q2": ["y", "x"], "q3": ["a"]}
    assert judged_at_k(ranked["q1"], qrels["q1"], 3) == pytest.approx(2 / 3)
    assert judged_at_k(ranked["q2"], qrels["q2"], 10) == 0.5  # fewer than k retrieved
    mean, n = mean_judged(ranked, qrels, 3)
    assert n == 2 and mean == pytest.approx((2 / 3 + 1 / 2) / 2)  # q3 has no qrels
    assert mean_judged(ranked, qrels, 3, queries={"q2"}) == (0.5, 1)


def test_the_engines_judged_k_equals_the_definition() -> None:
    """Judged@k of `score trec`, `trec_eval -m judged.k` and `score impact` is the measure
    engine's `judged_k` (services.impact_inputs.measure_values): per query it equals the
    plain definition above, on runs with ties, fewer than k documents, unjudged and
    negative-grade documents, and queries the run does not retrieve."""
    from services.impact_inputs import measure_values

    rng = np.random.default_rng(8)
    for _ in range(20):
        qrels = {f"q{i}": {f"d{j}": int(rng.integers(-2, 3)) for j in rng.choice(12, 5, replace=False)}
                 for i in range(5)}  # fmt: skip
        run = {f"q{i}": {f"d{j}": float(rng.integers(0, 4)) for j in rng.permutation(12)[: rng.integers(1, 12)]}
               for i in range(1, 7)}  # fmt: skip
        # trec_eval's order: score descending, then doc id descending
        ranked = {
            q: sorted(sorted(ds, reverse=True), key=lambda d: -ds[d]) for q, ds in run.items()
        }
        rows = [(q, d, g) for q, ds in qrels.items() for d, g in ds.items()]
        runs = {"r": [(q, d, s) for q, ds in run.items() for d, s in ds.items()]}
        for k in (1, 3, 10):
            per_query = measure_values([f"judged_{k}"], rows, runs, "trec_eval")[1]["r"]
            assert set(per_query) == set(qrels) & set(run)
            for q, vals in per_query.items():
                assert vals[f"judged_{k}"] == pytest.approx(
                    judged_at_k(ranked[q], qrels[q], k), abs=1e-15
                )
