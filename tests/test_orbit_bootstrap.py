"""Stratified claim bootstrap and simultaneous max-|t| families of the orbit audit."""

from __future__ import annotations

import numpy as np
from scipy import stats
from threadpoolctl import threadpool_limits

from scorers.orbit.bootstrap import (
    bootstrap_effects,
    max_t_intervals,
    percentile_interval,
    resample_counts,
)
from scorers.orbit.design import Dataset, Environment
from scorers.orbit.effects import point_effects
from scorers.orbit.walsh import HIGH_ORDER, NONEMPTY, norm_bounds, r_norms, walsh


def simulated_dataset(
    probs: np.ndarray, n: int, rng: np.random.Generator, readers: int = 2
) -> Dataset:
    """n "+" and n "-" claims; correct ~ Bernoulli(probs[e, ranker, state, z]) independently."""
    pos = np.array([True] * n + [False] * n)
    envs = []
    for e in range(readers):
        p = np.where(pos[:, None, None], probs[e][:, 0][None], probs[e][:, 1][None])
        correct = (rng.random((2 * n, 2, 8)) < p).astype(np.float64)
        envs.append(Environment("D", f"r{e}", np.ones(2 * n, dtype=bool), correct, None))
    return Dataset("D", [str(i) for i in range(2 * n)], pos, envs)


def true_effects(probs: np.ndarray) -> np.ndarray:
    d = probs[:, 1] - probs[:, 0]  # (E, state, 8)
    return np.stack([(d[:, 0] + d[:, 1]) / 2, (d[:, 0] - d[:, 1]) / 2], axis=1)


def test_resample_counts_keep_each_stratum_size() -> None:
    counts = resample_counts(np.random.default_rng(0), 37, 500)
    assert counts.shape == (500, 37)
    assert np.all(counts.sum(axis=1) == 37)
    # Each claim is drawn Binomial(37, 1/37) times: mean 1 per replicate.
    assert abs(counts.mean() - 1.0) < 1e-12


def test_bootstrap_is_shared_across_readers_and_seeded() -> None:
    rng = np.random.default_rng(1)
    probs = rng.uniform(0.2, 0.9, size=(1, 2, 2, 8))
    ds = simulated_dataset(probs, 40, rng, readers=1)
    twin = Environment("D", "twin", ds.environments[0].present, ds.environments[0].correct, None)
    ds2 = Dataset("D", ds.claim_ids, ds.positive, [ds.environments[0], twin])
    reps = bootstrap_effects(ds2, 300, np.random.default_rng(9))
    # The same resampled claims feed both readers, so identical readers give identical draws.
    assert np.array_equal(reps[:, 0], reps[:, 1])
    again = bootstrap_effects(ds2, 300, np.random.default_rng(9))
    assert np.array_equal(reps, again)
    other = bootstrap_effects(ds2, 300, np.random.default_rng(10))
    assert not np.array_equal(reps, other)


def test_bootstrap_replicate_equals_a_direct_recomputation() -> None:
    # One replicate recomputed the slow way (index the resampled claims, take means).
    rng = np.random.default_rng(2)
    probs = rng.uniform(0.2, 0.9, size=(2, 2, 2, 8))
    ds = simulated_dataset(probs, 25, rng)
    seed_rng = np.random.default_rng(4)
    reps = bootstrap_effects(ds, 3, seed_rng)
    replay = np.random.default_rng(4)
    draw_p = replay.integers(0, 25, size=(3, 25))
    draw_m = replay.integers(0, 25, size=(3, 25))
    plus, minus = np.flatnonzero(ds.positive), np.flatnonzero(~ds.positive)
    for b in range(3):
        for e, env in enumerate(ds.environments):
            d_p = env.correct[plus[draw_p[b]]].mean(axis=0)
            d_m = env.correct[minus[draw_m[b]]].mean(axis=0)
            dp, dm = d_p[1] - d_p[0], d_m[1] - d_m[0]
            np.testing.assert_allclose(reps[b, e, 0], (dp + dm) / 2, atol=1e-14)
            np.testing.assert_allclose(reps[b, e, 1], (dp - dm) / 2, atol=1e-14)


def test_max_t_critical_value_matches_sidak_for_independent_normals() -> None:
    # Reference: for K independent standard normals the 95% quantile of max |t| is the
    # Sidak value Phi^-1((1 + 0.95^(1/K)) / 2).
    rng = np.random.default_rng(5)
    k = 10
    reps = rng.normal(size=(200_000, k))
    fam = max_t_intervals(np.zeros(k), reps, 0.95)
    sidak = stats.norm.ppf((1 + 0.95 ** (1 / k)) / 2)
    assert abs(float(fam["critical_value"]) - sidak) < 0.02
    # One parameter: the two-sided normal quantile.
    one = max_t_intervals(np.zeros(1), reps[:, :1], 0.95)
    assert abs(float(one["critical_value"]) - stats.norm.ppf(0.975)) < 0.02


def test_degenerate_parameters_get_point_intervals() -> None:
    rng = np.random.default_rng(6)
    reps = np.column_stack([rng.normal(size=1000), np.full(1000, 0.25)])
    fam = max_t_intervals(np.array([0.0, 0.25]), reps)
    assert fam["low"][1] == fam["high"][1] == 0.25
    assert fam["low"][0] < 0 < fam["high"][0]


def test_percentile_interval_matches_numpy() -> None:
    reps = np.random.default_rng(8).normal(size=(999, 3))
    lo, hi = percentile_interval(reps)
    np.testing.assert_allclose(lo, np.percentile(reps, 2.5, axis=0))
    np.testing.assert_allclose(hi, np.percentile(reps, 97.5, axis=0))


def test_simultaneous_intervals_cover_at_least_nominal_in_simulation() -> None:
    # 400 simulated studies, 2 readers x 2 objects x 7 nonempty coefficients = 28 parameters
    # in one family; joint coverage of the true coefficients, and of the true R norms by
    # the rectangle bounds, must not fall below 95% (one-sided binomial test at 5%: a
    # finite simulation cannot show coverage >= 0.95 exactly, only fail to refute it).
    rng = np.random.default_rng(11)
    probs = rng.uniform(0.3, 0.8, size=(2, 2, 2, 8))
    truth = walsh(true_effects(probs))
    true_high = r_norms(truth)["high"]
    sims, joint, g_cells, r_high = 400, 0, 0, 0
    # Small products: BLAS worker threads only add contention on a shared machine.
    with threadpool_limits(1):
        for _ in range(sims):
            ds = simulated_dataset(probs, 100, rng)
            est = point_effects(ds)
            reps = bootstrap_effects(ds, 500, rng)
            coef, coef_reps = walsh(est), walsh(reps)
            fam = max_t_intervals(coef[..., NONEMPTY], coef_reps[..., NONEMPTY])
            lo = np.asarray(fam["low"]).reshape(2, 2, 7)
            hi = np.asarray(fam["high"]).reshape(2, 2, 7)
            covered = np.all((lo <= truth[..., NONEMPTY]) & (truth[..., NONEMPTY] <= hi))
            joint += int(covered)
            high_sel = HIGH_ORDER[NONEMPTY]
            r_lo, r_hi = norm_bounds(lo[..., high_sel], hi[..., high_sel])
            r_high += int(np.all((r_lo <= true_high) & (true_high <= r_hi)))
            gf = max_t_intervals(est[:, 0], reps[:, :, 0])
            g_true = true_effects(probs)[:, 0].ravel()
            g_cells += int(np.all((gf["low"] <= g_true) & (g_true <= gf["high"])))
    for hits in (joint, g_cells):
        assert stats.binomtest(hits, sims, 0.95, alternative="less").pvalue > 0.05, hits / sims
    # A rectangle that holds the coefficients holds their norm.
    assert r_high >= joint
