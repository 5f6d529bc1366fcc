"""Agreement statistics against scikit-learn, statsmodels and krippendorff (1e-9)."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss
from statsmodels.stats.proportion import proportion_confint

from scorers.agreement import ratings_summary
from scorers.kappa import category_counts, cohen_kappa, fleiss_kappa, gwet_ac1, kappa_from_confusion
from scorers.wilson import wilson_interval

TOL = 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_cohen_kappa_matches_sklearn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    a = rng.integers(0, k, size=int(rng.integers(20, 200)))
    # correlated second rater so kappa is not ~0
    b = np.where(rng.random(len(a)) < 0.6, a, rng.integers(0, k, size=len(a)))
    labels = sorted(set(a) | set(b))
    for w in (None, "linear", "quadratic"):
        ours = cohen_kappa(list(a), list(b), w, labels)
        ref = cohen_kappa_score(a, b, weights=w, labels=labels)
        assert abs(ours - ref) < TOL


@pytest.mark.parametrize("count,total", [(254, 300), (661, 710), (0, 5), (5, 5), (1, 3), (80, 94)])
def test_wilson_matches_statsmodels(count: int, total: int) -> None:
    lo, hi = wilson_interval(count, total)
    rlo, rhi = proportion_confint(count, total, alpha=0.05, method="wilson")
    assert abs(lo - rlo) < TOL and abs(hi - rhi) < TOL


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_matches_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    units, raters = int(rng.integers(10, 80)), int(rng.integers(3, 6))
    truth = rng.integers(0, 3, size=units)
    data = np.where(
        rng.random((units, raters)) < 0.7, truth[:, None], rng.integers(0, 3, (units, raters))
    )
    table, _ = aggregate_raters(data)
    _, ours_table = category_counts([list(r) for r in data])
    assert (ours_table == table).all()
    assert abs(fleiss_kappa(ours_table) - sm_fleiss(table, method="fleiss")) < TOL


def test_gwet_ac1_hand_value() -> None:
    # Gwet (2008) two-rater binary example: a=40 b=9 c=6 d=45 -> pa=.85
    mat = [[40, 9], [6, 45]]
    a = [0] * 49 + [1] * 51
    b = [0] * 40 + [1] * 9 + [0] * 6 + [1] * 45
    pa = 0.85
    pi1 = ((49 + 46) / 2) / 100
    pe = 2 * pi1 * (1 - pi1)
    assert abs(gwet_ac1(a, b) - (pa - pe) / (1 - pe)) < TOL
    assert abs(kappa_from_confusion(mat) - cohen_kappa_score(a, b)) < TOL


@pytest.mark.parametrize("seed", range(6))
def test_ratings_summary_matches_references_with_missing(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    n_raters = 2 if seed % 2 == 0 else 4
    units = int(rng.integers(15, 60))
    truth = rng.integers(1, 5, size=units)
    rows = []
    for u in range(units):
        for r in range(n_raters):
            if rng.random() < 0.15:
                continue  # missing rating
            v = int(truth[u]) if rng.random() < 0.7 else int(rng.integers(1, 5))
            rows.append((f"u{u:03d}", f"r{r}", v))
    out = ratings_summary(rows).to_json()
    raters = sorted({r for _, r, _ in rows})
    unit_ids = sorted({u for u, _, _ in rows})
    lookup = {(u, r): v for u, r, v in rows}
    matrix = np.array([[lookup.get((u, r), np.nan) for u in unit_ids] for r in raters], dtype=float)
    domain = sorted({v for _, _, v in rows})
    for level in ("nominal", "ordinal", "interval"):
        ref = krippendorff.alpha(matrix, level_of_measurement=level, value_domain=domain)
        assert abs(out["krippendorff_alpha"][level] - ref) < TOL
    full = [u for u in unit_ids if all((u, r) in lookup for r in raters)]
    assert out["fleiss_units"] == len(full)
    table, _ = aggregate_raters(np.array([[lookup[(u, r)] for r in raters] for u in full]))
    assert abs(out["fleiss_kappa"] - sm_fleiss(table)) < TOL
    if n_raters == 2:
        shared = [u for u in unit_ids if all((u, r) in lookup for r in raters)]
        a = [lookup[(u, raters[0])] for u in shared]
        b = [lookup[(u, raters[1])] for u in shared]
        agree = sum(x == y for x, y in zip(a, b, strict=True))
        assert out["percent_agreement"] == agree / len(shared)
        lo, hi = proportion_confint(agree, len(shared), method="wilson")
        assert abs(out["wilson95"][0] - lo) < TOL and abs(out["wilson95"][1] - hi) < TOL
        for key, w in (
            ("cohen_kappa", None),
            ("cohen_kappa_linear", "linear"),
            ("cohen_kappa_quadratic", "quadratic"),
        ):
            ref = cohen_kappa_score(a, b, weights=w, labels=domain)
            assert abs(out[key] - ref) < TOL
        assert not math.isnan(out["gwet_ac1"])
    else:
        assert "cohen_kappa" not in out


def test_label_values_are_nominal_only_for_interval() -> None:
    rows = [
        ("a", "x", "rel"),
        ("a", "y", "rel"),
        ("b", "x", "non"),
        ("b", "y", "rel"),
        ("c", "x", "non"),
        ("c", "y", "non"),
    ]
    out = ratings_summary(rows).to_json()
    assert out["krippendorff_alpha"]["interval"] is None
    assert out["percent_agreement"] == pytest.approx(2 / 3)
    a, b = ["rel", "non", "non"], ["rel", "rel", "non"]
    assert abs(out["cohen_kappa"] - cohen_kappa_score(a, b)) < TOL


def test_published_kappas_from_tables() -> None:
    grade = [[2, 6, 0, 0], [2, 72, 14, 0], [0, 11, 128, 1], [0, 1, 11, 52]]
    assert round(kappa_from_confusion(grade, "linear"), 3) == 0.801
    # conditions: 560 / 555 positives of 710, 661 agree -> both-yes 538
    both_yes = (560 + 555 - 49) // 2
    cond = [[710 - 560 - 555 + both_yes, 555 - both_yes], [560 - both_yes, both_yes]]
    assert round(kappa_from_confusion(cond), 3) == 0.795
    # adjudication: 70 all-yes, 10 all-no, 12 two-yes, 2 one-yes
    table = [[0, 3]] * 70 + [[3, 0]] * 10 + [[1, 2]] * 12 + [[2, 1]] * 2
    assert round(fleiss_kappa(table), 3) == 0.636
