"""The Delta V interval for the mean over splits and H2b's scaled counts
("Which Reranking Conclusions Survive the Answer Interface?"; readings in docs/orbit.md)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from statsmodels.stats.weightstats import DescrStatsW

from evaudit.cli import cli
from scorers.orbit.decisions import Thresholds, replication_rules
from scorers.orbit.readings import delta_v_mean_interval, h2b_required, scaled_count
from tests.test_orbit_cli import EXAMPLE, FAST
from tests.test_orbit_selection import summary


@pytest.mark.parametrize("fraction", [0.4, 0.5, 0.25])
def test_mean_interval_is_the_corrected_t_interval(fraction: float) -> None:
    rng = np.random.default_rng(1)
    delta = rng.normal(0.002, 0.01, 200).round(4)
    got = delta_v_mean_interval(delta, fraction).to_json()
    # statsmodels' plain t interval of the mean, widened by sqrt(1 + S * n_test / n_select)
    lo, hi = DescrStatsW(delta).tconfint_mean(alpha=0.05)
    widen = math.sqrt(1 + len(delta) * (1 - fraction) / fraction)
    mid = float(np.mean(delta))
    assert got["low"] == pytest.approx(mid - (mid - lo) * widen, abs=1e-12)
    assert got["high"] == pytest.approx(mid + (hi - mid) * widen, abs=1e-12)
    assert got["method"] == "nadeau_bengio_corrected_resampled_t"


def test_mean_interval_is_not_the_degenerate_spread() -> None:
    """Most splits agree (Delta V = 0): the spread is [0, 0], the mean's interval is not."""
    delta = np.zeros(200)
    delta[:4] = -0.165
    assert np.quantile(delta, [0.025, 0.975]).tolist() == [0.0, 0.0]
    got = delta_v_mean_interval(delta, 0.4).to_json()
    assert got["low"] < float(np.mean(delta)) < got["high"] and got["low"] < -0.005
    assert delta_v_mean_interval(delta[:1], 0.4).low is None


def test_scaled_counts() -> None:
    for e in range(0, 13):
        assert scaled_count(5, e) == math.ceil(5 * e / 6)
        assert scaled_count(4, e) == math.ceil(4 * e / 6)
    assert h2b_required(None, None, 6) == (5, 4)  # the paper's six environments
    assert h2b_required(None, None, 4) == (4, 3)
    assert h2b_required(2, None, 4) == (2, 3)


def test_h2b_can_hold_with_four_confirmatory_environments() -> None:
    ok = dict(
        higher_order_negligible=True, first_order_signs_replicated=True, heldout_error_below=True
    )
    envs = [summary("F" if i < 2 else "R", f"r{i}", **ok) for i in range(4)]
    rules = replication_rules(envs, Thresholds()).to_json()
    assert rules["H2b"]["holds"] is True
    assert rules["H2b"]["required"]["higher_order_negligible"] == 4
    envs[0]["decisions"]["first_order_signs_replicated"] = False
    assert replication_rules(envs, Thresholds()).to_json()["H2b"]["holds"] is True  # 3 of 4 signs
    envs[0]["decisions"]["higher_order_negligible"] = False
    assert replication_rules(envs, Thresholds()).to_json()["H2b"]["holds"] is False  # needs 4 of 4
    assert replication_rules(envs, Thresholds(h2b_negligible=3)).to_json()["H2b"]["holds"] is True


def test_analyze_reports_both_intervals_and_the_scaled_rule() -> None:
    conf = "FEVER:llama,FEVER:gemma,RAGuard:llama,RAGuard:gemma"
    res = CliRunner().invoke(
        cli, ["orbit", "analyze", str(EXAMPLE), *FAST, "--confirmatory", conf, "--json"]
    )
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["replication"]["H2b"]["required"]["higher_order_negligible"] == 4
    assert out["replication"]["H2b"]["required"]["first_order_signs_replicated"] == 3
    for env in out["environments"]:
        s = env["selection"]
        mean_ci = s["delta_v_mean_interval"]
        assert mean_ci["low"] <= s["delta_v"] <= mean_ci["high"]
        assert isinstance(s["operational_mean_interval"], bool)
    assert out["generation_diagnostics"] is None and out["coverage"] is None
    res = CliRunner().invoke(
        cli,
        [
            "orbit",
            "analyze",
            str(EXAMPLE),
            *FAST,
            "--confirmatory",
            conf,
            "--h2b-negligible",
            "2",
            "--json",
        ],
    )
    assert json.loads(res.stdout)["replication"]["H2b"]["required"]["higher_order_negligible"] == 2
