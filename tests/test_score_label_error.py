"""Label-error estimate for the whole benchmark: the stratified estimator against a direct
weighted formula, the Wilson interval against statsmodels, coverage by simulation, and the
`evaudit agreement estimate` command on a finished audit."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from scorers.label_error import stratified_share, stratum_counts, wilson
from tests.conftest import cli_json
from tests.test_packet_fixtures import make_project


def test_stratified_estimate_equals_the_direct_weighted_formula() -> None:
    frames, sampled, hits = [100, 50, 10], [10, 5, 10], [2, 0, 3]
    e = stratified_share(frames, sampled, hits)
    # Direct: W = N_h / 160; p = sum W p_h; V = sum W^2 (1 - n/N) p(1-p)/n.
    p = 100 / 160 * 0.2 + 50 / 160 * 0.0 + 10 / 160 * 0.3
    v = (100 / 160) ** 2 * 0.9 * 0.2 * 0.8 / 10 + 0 + 0  # the census stratum has no variance
    assert e.estimate == pytest.approx(p, abs=1e-15)
    assert e.se == pytest.approx(math.sqrt(v), abs=1e-15)
    assert e.n_eff is not None
    assert e.n_eff == pytest.approx(p * (1 - p) / v, rel=1e-12)
    lo, hi = proportion_confint(p * e.n_eff, e.n_eff, alpha=0.05, method="wilson")
    assert e.ci95 == pytest.approx([lo, hi], abs=1e-12)
    assert e.sampled == 25 and e.frame == 160
    # No error seen anywhere: a positive upper bound, not [0, 0].
    z = stratified_share([100, 50], [10, 5], [0, 0])
    assert z.estimate == 0.0 and z.ci95 is not None and z.ci95[0] == 0.0 and z.ci95[1] > 0.1
    assert z.ci95 == pytest.approx(list(proportion_confint(0, 15, method="wilson")), abs=1e-12)
    assert stratified_share([5], [0], [0]).estimate is None
    with pytest.raises(ValueError):
        stratified_share([5], [3], [4])


def test_stratum_counts_by_hand() -> None:
    queries = {"q1": (2, "R1", "S"), "q2": (2, "R2", "S")}
    grades = {("q1", "a"): 2, ("q1", "b"): 1, ("q1", "c"): 1, ("q2", "d"): 2, ("q2", "e"): 1}
    frame = list(grades)
    sampled = [("q1", "a"), ("q1", "b"), ("q2", "d"), ("q2", "e")]
    new = {("q1", "a"): 1, ("q1", "b"): 0, ("q2", "e"): 2}  # a leaves gold, b dropped, e promoted
    got = stratum_counts(["release", "label"], frame, sampled, grades, queries, new)
    rows = {tuple(s.stratum.values()): s for s in got}
    assert set(rows) == {("R1", "gold"), ("R1", "subset"), ("R2", "gold"), ("R2", "subset")}
    r1g, r1s, r2g, r2s = (rows[k] for k in sorted(rows))
    assert (r1g.frame, r1g.sampled, r1g.changed, r1g.frame_gold, r1g.gold_lost) == (1, 1, 1, 1, 1)
    assert (r1s.frame, r1s.sampled, r1s.changed, r1s.frame_gold, r1s.gold_lost) == (2, 1, 1, 0, 0)
    assert (r2g.frame, r2g.sampled, r2g.changed, r2g.sampled_gold, r2g.gold_lost) == (1, 1, 0, 1, 0)
    assert (r2s.sampled, r2s.changed, r2s.sampled_gold, r2s.gold_lost) == (1, 1, 0, 0)


def test_wilson_matches_statsmodels() -> None:
    for x, n in [(0, 7), (3, 10), (10, 10), (17, 250)]:
        assert wilson(x / n, n) == pytest.approx(
            list(proportion_confint(x, n, alpha=0.05, method="wilson")), abs=1e-12
        )


def test_interval_covers_the_true_rate_about_95_percent() -> None:
    rng = np.random.default_rng(2026)
    sizes, rates, take = [400, 300, 200], [0.05, 0.12, 0.02], [60, 40, 30]
    pops = [rng.random(N) < r for N, r in zip(sizes, rates, strict=True)]
    truth = sum(p.sum() for p in pops) / sum(sizes)
    cover = 0
    reps = 2000
    for _ in range(reps):
        hits = [
            int(rng.choice(p, size=n, replace=False).sum()) for p, n in zip(pops, take, strict=True)
        ]
        ci = stratified_share(sizes, take, hits).ci95
        assert ci is not None
        cover += ci[0] <= truth <= ci[1]
    assert 0.93 <= cover / reps <= 0.975


def _answer_everything(root: Path, packet: str) -> None:
    """Two raters support every condition on distinct pages (other pages per rater)."""
    items = json.loads((root / "packets" / f"{packet}.json").read_text())["items"]
    sha = json.loads((root / "keys" / f"{packet}.key.json").read_text())["packet_sha256"]
    from campaign.project import open_project
    from tests.audit_fixture import write_journal

    for rater, shift in (("A", 0), ("E", 1)):
        ans = {
            it["item_id"]: {
                c["condition_key"]: [c["pages"][(i + shift) % len(c["pages"])]["page_key"]]
                for i, c in enumerate(it["conditions"])
            }
            for it in items
        }
        write_journal(open_project(root), packet, sha, rater, ans, items)  # type: ignore[arg-type]


def test_agreement_estimate_command(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    cli_json("packet", "build", root, "--name", "init", "--seed", "11", "--per-stratum", "3")
    _answer_everything(root, "init")
    fin = cli_json("finalize", root, "--out", tmp_path / "o", "--allow-pending")
    rep = cli_json("agreement", "estimate", root, "init")
    key = json.loads((root / "keys" / "init.key.json").read_text())
    alloc = key["sampling"]["allocation"]
    assert [s["frame"] for s in rep["strata"]] == [a["available"] for a in alloc]
    assert [s["sampled"] for s in rep["strata"]] == [a["selected"] for a in alloc]
    frames = [s["frame"] for s in rep["strata"]]
    sampled = [s["sampled"] for s in rep["strata"]]
    hits = [s["changed"] for s in rep["strata"]]
    want = sum(N / sum(frames) * x / n for N, n, x in zip(frames, sampled, hits, strict=True))
    assert rep["grade_changed"]["estimate"] == pytest.approx(want)
    assert sum(hits) == fin["changed"] > 0  # every sampled pair is in the audit's sample
    gold = rep["gold_not_gold"]
    assert [s["frame_gold"] for s in rep["strata"]] == [
        a["available"] if a["stratum"]["label"] == "gold" else 0 for a in alloc
    ]
    assert gold["sampled"] == sum(a["gold"] for a in alloc)
    assert rep["method"].startswith("stratified Wilson")
