"""Family bootstrap, sign-flip tests, Holm, common support, label changes, impact report."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from scorers.runs import (
    bind_qrels,
    common_support,
    compare_report,
    draw_family_counts,
    families,
    family_bootstrap,
    holm,
    impact_report,
    label_changes,
    nclue_report,
    query_weights,
    score_runs,
    sign_flip_pvalues,
)
from scorers.runs.report import RunInput


def _bench(seed: int = 0, n_queries: int = 40):
    """Queries in duplicated gold families plus two runs; returns (bound, runs)."""
    rng = np.random.default_rng(seed)
    qids = [f"q{i:02d}" for i in range(n_queries)]
    rows = []
    for i, q in enumerate(qids):
        fam = i // 3  # three queries share each gold set
        rows += [(q, f"gold{fam}a", 2), (q, f"gold{fam}b", 2), (q, f"s{i}", 1)]
    bound = bind_qrels(
        qids, [2] * n_queries, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
    )
    runs = []
    for tag in ("A", "B"):
        rq, rd, rs = [], [], []
        for i, q in enumerate(qids):
            docs = [f"gold{i // 3}a", f"s{i}", "junk1", "junk2"]
            for d, s in zip(docs, rng.permutation(len(docs)), strict=True):
                rq.append(q), rd.append(d), rs.append(float(s))
        runs.append(RunInput(tag, rq, rd, rs))
    return bound, runs


def test_families_are_identical_gold_sets_and_goldless_queries_are_singletons() -> None:
    fam, count = families(5, np.array([0, 0, 1, 1, 3]), np.array([7, 8, 8, 7, 7]))
    assert fam.tolist() == [0, 0, 1, 2, 3]  # q2 and q4 have no gold: own families
    assert count == 4
    bound, _ = _bench()
    assert bound.n_families == 14  # 40 queries in blocks of three
    assert bound.family[:6].tolist() == [0, 0, 0, 1, 1, 1]


def test_bootstrap_resamples_whole_families() -> None:
    bound, _ = _bench()
    counts = draw_family_counts(bound.n_families, 200, np.random.default_rng(3))
    assert (counts.sum(axis=1) == bound.n_families).all()
    w = query_weights(counts, bound.family)
    for f in range(bound.n_families):
        members = np.flatnonzero(bound.family == f)
        assert (w[:, members] == w[:, members[:1]]).all()


def test_bootstrap_is_reproducible_by_seed_and_matches_direct_resampling() -> None:
    bound, runs = _bench()
    scored = score_runs(bound, runs)
    vals = scored["A"].values()
    a = family_bootstrap(vals, bound.family, bound.n_families, replicates=300, seed=5)
    b = family_bootstrap(vals, bound.family, bound.n_families, replicates=300, seed=5)
    c = family_bootstrap(vals, bound.family, bound.n_families, replicates=300, seed=6)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    # Same draws, computed the slow way: expand each drawn family into its queries.
    counts = draw_family_counts(bound.n_families, 300, np.random.default_rng(5))
    members = [np.flatnonzero(bound.family == f) for f in range(bound.n_families)]
    reps = []
    for row in counts:
        idx = np.concatenate([np.repeat(members[f], int(c)) for f, c in enumerate(row)])
        reps.append(vals[0, idx].mean())
    lo, hi = np.percentile(reps, [2.5, 97.5])
    assert a[0].tolist() == pytest.approx([lo, hi], abs=1e-12)
    rep1 = nclue_report(bound, scored, bootstrap=300, seed=5)
    assert rep1 == nclue_report(bound, scored, bootstrap=300, seed=5)
    assert rep1.to_json()["runs"]["A"]["ci95"]["nclue"] == pytest.approx(a[0].tolist())


def test_paired_test_on_identical_runs_gives_p_one_and_zero_difference() -> None:
    bound, runs = _bench()
    a = runs[0]
    same = score_runs(bound, [a, RunInput("A2", a.query_ids, a.doc_ids, a.scores)])
    rep = compare_report(bound, same, [("A", "A2")], draws=2000, bootstrap=200).to_json()
    pair = rep["pairs"][0]
    assert all(v == 0.0 for v in pair["diff"].values())
    assert all(v == 1.0 for v in pair["p"].values())
    assert all(v == 1.0 for v in pair["p_holm"].values())
    assert all(v == 1.0 for v in pair["p_family"].values())
    assert pair["ci95"]["nclue"] == [0.0, 0.0]
    assert pair["delta_D"] == 0.0


def test_sign_flip_matches_exact_enumeration() -> None:
    d = np.array([0.5, 1.0, -0.25, 0.75, 1.0, 0.0, 0.5, -1.0, 1.0, 0.25])
    obs = abs(d.sum())
    signs = np.array(list(itertools.product([-1, 1], repeat=d.size)))
    exact = float((np.abs(signs @ d) >= obs - 1e-12).mean())
    p = sign_flip_pvalues(d, draws=40_000, seed=1)[0]
    assert p == pytest.approx(exact, abs=0.01)
    # Reproducible, and a row's p does not depend on the other rows.
    both = sign_flip_pvalues(np.stack([d, -d[::-1]]), draws=40_000, seed=1)
    assert both[0] == p


def test_holm_equals_statsmodels() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5, 0.04])
    expected = multipletests(p, method="holm")[1]
    assert np.abs(holm(p) - expected).max() < 1e-12
    assert holm([0.01, 0.02, 0.03]).tolist() == pytest.approx([0.03, 0.04, 0.04])


def test_common_support_by_hand() -> None:
    base = np.array([0, 1, 2, 2, 1, 0])
    var = np.array([2, 2, 2, 1, 0, 0])
    cs = common_support(base, var)
    # Common: queries 1, 2, 3. D_base = 2/3 (q2, q3 gold-first), D_variant = 2/3 (q1, q2).
    assert cs["common_n"] == 3
    assert cs["delta_D"] == pytest.approx(0.0)
    assert common_support(np.array([0]), np.array([2]))["delta_D"] is None


def test_compare_report_shares_and_holm_across_pairs() -> None:
    bound, runs = _bench()
    scored = score_runs(bound, runs)
    rep = compare_report(
        bound, scored, [("A", "B"), ("B", "A")], draws=1000, bootstrap=100
    ).to_json()
    ab, ba = rep["pairs"]
    assert ab["diff"]["nclue"] == pytest.approx(-ba["diff"]["nclue"])
    assert ab["p"]["nclue"] == ba["p"]["nclue"]  # two-sided
    assert ab["p_holm"]["nclue"] == pytest.approx(min(1.0, 2 * ab["p"]["nclue"]))
    out = scored["A"].outcome
    assert ab["base_mpg"]["miss"] == pytest.approx((out == 0).mean())
    assert sum(ab["variant_mpg"].values()) == pytest.approx(1.0)


def test_label_changes_and_impact_report() -> None:
    qids, n = ["q1", "q2", "q3"], [2, 2, 2]
    before = pd.DataFrame(
        [("q1", "a", 1), ("q1", "b", 2), ("q2", "c", 1), ("q3", "d", 2), ("zz", "e", 1)],
        columns=["query_id", "doc_id", "grade"],
    )
    after = pd.DataFrame(
        [("q1", "a", 2), ("q1", "b", 2), ("q3", "d", 2), ("q3", "f", 1), ("q2", "c", 0)],
        columns=["query_id", "doc_id", "grade"],
    )
    lab = label_changes(qids, n, before, after)
    assert lab == {
        "changed": 3, "added": 1, "removed": 1, "regraded": 1, "to_gold": 1, "from_gold": 0,
        "nonzero_before": 4, "nonzero_after": 4,
    }  # fmt: skip
    bb = bind_qrels(qids, n, before["query_id"], before["doc_id"], before["grade"])
    ba = bind_qrels(qids, n, after["query_id"], after["doc_id"], after["grade"])
    runs = [
        RunInput("X", ["q1", "q1", "q3"], ["a", "b", "d"], [2.0, 1.0, 1.0]),
        RunInput("Y", ["q1", "q2"], ["b", "c"], [1.0, 1.0]),
    ]
    sb, sa = score_runs(bb, runs), score_runs(ba, runs)
    rep = impact_report(bb, ba, sb, sa, lab, [("Y", "X")], draws=500).to_json()
    # X: before q1 subset-first, q3 gold-first -> 1/3; after q1's "a" is gold -> 2/3.
    assert rep["runs"]["X"]["before"]["nclue"] == pytest.approx(1 / 3)
    assert rep["runs"]["X"]["after"]["nclue"] == pytest.approx(2 / 3)
    assert rep["runs"]["Y"]["after"]["nclue"] == pytest.approx(1 / 3)
    assert rep["ordering"]["rank_before"] == {"X": 1, "Y": 1}
    assert rep["ordering"]["rank_after"] == {"X": 1, "Y": 2}
    assert rep["ordering"]["max_rank_shift"] == 1 and rep["ordering"]["moved_most"] == ["Y"]
    assert rep["labels_changed"] == 3
    pair = rep["pairs"][0]
    assert pair["before"]["diff"]["nclue"] == pytest.approx(0.0)
    assert pair["after"]["diff"]["nclue"] == pytest.approx(1 / 3)
    assert pair["before"]["p"]["nclue"] == 1.0
