"""Selector comparison, held-out first-order error and the decision rules of "Which Reranking Conclusions Survive the Answer Interface?"."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score

from scorers.orbit.decisions import (
    Thresholds,
    determined_signs,
    replicated_first_order,
    replication_rules,
    sign_class,
)
from scorers.orbit.design import Dataset, Environment
from scorers.orbit.selection import (
    balanced_accuracy,
    compare_selectors,
    heldout_max_error,
    summarize_selection,
    validation_masks,
)
from scorers.orbit.walsh import inverse_walsh


def test_validation_masks_are_verdict_stratified() -> None:
    positive = np.array([True] * 30 + [False] * 20)
    masks = validation_masks(positive, 200, 0.4, np.random.default_rng(0))
    assert masks.shape == (200, 50)
    assert np.all(masks[:, positive].sum(axis=1) == 12)
    assert np.all(masks[:, ~positive].sum(axis=1) == 8)
    assert len({m.tobytes() for m in masks}) == 200


def test_balanced_accuracy_matches_scikit_learn() -> None:
    rng = np.random.default_rng(1)
    positive = rng.random(300) < 0.3
    predicted_plus = rng.random((300, 2)) < 0.5
    correct = (predicted_plus == positive[:, None]).astype(float)
    mask = rng.random((1, 300)) < 0.6
    ours = balanced_accuracy(correct, positive, mask.astype(float))[0]
    for r in range(2):
        ref = balanced_accuracy_score(positive[mask[0]], predicted_plus[mask[0], r])
        assert ours[r] == pytest.approx(ref, abs=1e-12)


def env_from(log_odds: np.ndarray, positive: np.ndarray) -> Environment:
    correct = ((log_odds > 0) == positive[:, None, None]).astype(float)
    return Environment("D", "R", np.ones(len(positive), dtype=bool), correct, log_odds)


def test_ties_go_to_the_base_ranker() -> None:
    positive = np.array([True] * 10 + [False] * 10)
    lo = np.where(positive, 1.0, -1.0)[:, None, None] * np.ones((20, 2, 8))
    masks = validation_masks(positive, 25, 0.4, np.random.default_rng(2))
    per_split = compare_selectors(env_from(lo, positive), positive, masks, "+++")
    assert np.all(per_split["canonical_choice"] == 0)
    assert np.all(per_split["orbit_choice"] == 0)
    summary = summarize_selection(per_split, min_disagreement=0.1, margin=0.005).to_json()
    assert summary["disagreement"] == 0.0 and summary["delta_v"] == 0.0
    assert summary["operational"] is False


def test_canonical_and_orbit_selectors_can_disagree_and_value_is_test_orbit_accuracy() -> None:
    # The variant is right at the canonical interface only; the base is right on average
    # over the orbit. The canonical selector picks the variant, the orbit selector the base,
    # and test value counts interface-averaged decisions, so Delta V = 1 - 1/8 ... exactly:
    # variant's orbit decision is wrong (mean log odds < 0 on the true side), base right.
    positive = np.array([True] * 6 + [False] * 6)
    sign = np.where(positive, 1.0, -1.0)[:, None]
    lo = np.empty((12, 2, 8))
    lo[:, 0, :] = sign * 1.0  # base: right everywhere
    lo[:, 0, 0] = -sign[:, 0] * 0.5  # ... but wrong at +++
    lo[:, 1, :] = -sign * 1.0  # variant: wrong everywhere
    lo[:, 1, 0] = sign[:, 0] * 2.0  # ... but right at +++
    masks = validation_masks(positive, 10, 0.5, np.random.default_rng(3))
    per_split = compare_selectors(env_from(lo, positive), positive, masks, "+++")
    assert np.all(per_split["canonical_choice"] == 1)
    assert np.all(per_split["orbit_choice"] == 0)
    assert np.all(per_split["v_orbit"] == 1.0) and np.all(per_split["v_canonical"] == 0.0)
    summary = summarize_selection(per_split, min_disagreement=0.1, margin=0.005).to_json()
    assert summary["disagreement"] == 1.0
    assert summary["delta_v"] == 1.0 and summary["delta_v_interval"] == [1.0, 1.0]
    assert summary["operational"] is True
    # Another canonical interface flips the canonical choice to the base.
    other = compare_selectors(env_from(lo, positive), positive, masks, "---")
    assert np.all(other["canonical_choice"] == 0)


def test_heldout_max_error_is_zero_for_first_order_truth_and_sees_interactions() -> None:
    # Identical claims within each state make every split reproduce the population cells;
    # a purely first-order g then has zero held-out error, an interaction does not.
    positive = np.array([True] * 8 + [False] * 8)
    masks = validation_masks(positive, 20, 0.5, np.random.default_rng(4))

    def dataset(g_coef: np.ndarray) -> Dataset:
        g = inverse_walsh(g_coef)  # values 0 or 1; d_+ = d_- = g, so h = 0
        assert set(g.tolist()) == {0.0, 1.0}
        correct = np.zeros((16, 2, 8))
        correct[:, 1, :] = g  # base never correct, variant correct where g = 1
        env = Environment("D", "R", np.ones(16, dtype=bool), correct, None)
        return Dataset("D", [str(i) for i in range(16)], positive, [env])

    first = np.array([0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])  # g = (1 + z1) / 2
    assert np.all(heldout_max_error(dataset(first), masks) == 0.0)
    inter = np.array([0.5, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0])  # g = (1 + z1 z2) / 2
    # The first-order fit is the constant 1/2, off by 1/2 at every interface.
    assert np.all(heldout_max_error(dataset(inter), masks) == 0.5)


def test_sign_classes() -> None:
    lo, hi = np.full(8, 0.01), np.full(8, 0.05)
    assert sign_class(lo, hi) == "uniform_positive"
    assert sign_class(-hi, -lo) == "uniform_negative"
    mixed_lo = np.array([0.01, -0.05, *[-0.01] * 6])
    mixed_hi = np.array([0.05, -0.01, *[0.01] * 6])
    assert sign_class(mixed_lo, mixed_hi) == "reversal"
    assert sign_class(np.full(8, -0.01), np.full(8, 0.05)) == "uncertain"
    # Some cells positive and the rest straddling zero: not uniform, not a reversal.
    assert sign_class(np.array([0.01] * 7 + [-0.01]), np.full(8, 0.05)) == "uncertain"


def test_replicated_first_order_signs() -> None:
    a = determined_signs(np.array([[0.01, -0.1, -0.1]] * 2), np.array([[0.1, 0.1, 0.1]] * 2))
    assert a.tolist() == [[1, 0, 0], [1, 0, 0]]
    b = np.array([[1, 0, 0], [0, 0, 0]])
    c = np.array([[-1, 0, 0], [0, 0, 0]])
    none = np.zeros((2, 3), dtype=np.int64)
    assert replicated_first_order([a, b, c, none]) == [True, True, False, False]


def summary(name: str, reader: str, **flags: bool) -> dict:
    decisions = {
        "material_variation": False,
        "higher_order_material": False,
        "higher_order_negligible": False,
        "first_order_signs_replicated": False,
        "heldout_error_below": False,
    }
    decisions.update(flags)
    return {
        "environment": f"{name}:{reader}",
        "dataset": name,
        "reader": reader,
        "decisions": decisions,
    }


def test_h1_needs_three_environments_two_datasets_two_families() -> None:
    t = Thresholds()
    one_dataset = [summary("F", r, material_variation=True) for r in ("a", "b", "c")]
    one_dataset.append(summary("R", "a"))
    assert replication_rules(one_dataset, t).to_json()["H1"]["holds"] is False
    one_family = [summary(d, "a", material_variation=True) for d in ("F", "R", "S")]
    assert replication_rules(one_family, t).to_json()["H1"]["holds"] is False
    good = [
        summary("F", "a", material_variation=True, higher_order_material=True),
        summary("F", "b", material_variation=True, higher_order_material=True),
        summary("R", "a", material_variation=True),
    ]
    rules = replication_rules(good, t).to_json()
    assert rules["H1"]["holds"] is True and rules["H2a"]["holds"] is True
    assert (
        replication_rules(good, Thresholds(h2a_environments=3)).to_json()["H2a"]["holds"] is False
    )


def test_h2b_needs_negligible_high_order_signs_and_heldout_error_everywhere() -> None:
    t = Thresholds()
    ok = dict(
        higher_order_negligible=True, first_order_signs_replicated=True, heldout_error_below=True
    )
    envs = [summary("F" if i < 3 else "R", f"r{i}", **ok) for i in range(6)]
    assert replication_rules(envs, t).to_json()["H2b"]["holds"] is True
    envs[0]["decisions"]["higher_order_negligible"] = False
    assert replication_rules(envs, t).to_json()["H2b"]["holds"] is True  # 5 of 6 suffice
    envs[5]["decisions"]["heldout_error_below"] = False
    assert replication_rules(envs, t).to_json()["H2b"]["holds"] is False  # must hold in all
