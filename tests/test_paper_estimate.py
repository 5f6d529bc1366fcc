"""`agreement estimate` says it is design-weighted (inverse inclusion probabilities per
stratum), not the supplement's reading of its stratified counts, and prints those counts
beside it: per stratum sampled, corrected, the unweighted share, n/N and N/n."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorers.label_error import StratumCounts, label_error_report
from tests.conftest import cli_json, run_cli
from tests.test_packet_fixtures import make_project
from tests.test_score_label_error import _answer_everything


def test_report_by_hand() -> None:
    strata = [
        StratumCounts({"source": "a"}, 40, 10, 2, 20, 5, 1),
        StratumCounts({"source": "b"}, 10, 10, 5, 4, 4, 0),
    ]
    rep = label_error_report("init", ["source"], strata)
    js = rep.to_json()
    a, b = js["strata"]  # type: ignore[misc]
    assert (a["corrected_share"], a["inclusion_probability"], a["weight"]) == (0.2, 0.25, 4.0)
    assert (b["corrected_share"], b["inclusion_probability"], b["weight"]) == (0.5, 1.0, 1.0)
    # design weighting: every sampled pair counts N_h / n_h times
    assert rep.grade_changed.estimate == pytest.approx((4.0 * 2 + 1.0 * 5) / 50)
    # the unweighted pooled share the supplement's counts give is different: 7/20
    assert rep.grade_changed.estimate != pytest.approx(7 / 20)
    assert str(js["design"]).startswith("design-weighted")
    assert "not how the n-Clue supplement reads its stratified counts" in str(js["reading"])
    text = rep.to_text()
    assert "design-weighted" in text and "must not be reweighted" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("source=a"))
    assert row.split()[1:7] == ["10", "2", "20.0%", "40", "0.250", "4.000"]


def test_agreement_estimate_cli_prints_strata_beside_the_estimate(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    cli_json("packet", "build", root, "--name", "init", "--seed", "11", "--per-stratum", "3")
    _answer_everything(root, "init")
    rep = cli_json("agreement", "estimate", root, "init")
    for s in rep["strata"]:
        assert s["corrected_share"] == pytest.approx(s["changed"] / s["sampled"])
        assert s["inclusion_probability"] == pytest.approx(s["sampled"] / s["frame"])
        assert s["weight"] == pytest.approx(s["frame"] / s["sampled"])
    text = run_cli("agreement", "estimate", root, "init").stdout
    assert "design-weighted" in text and "Corrections by audit stratum" in text
    assert "inverse inclusion probabilities" in run_cli("agreement", "estimate", "--help").stdout
