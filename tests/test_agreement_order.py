"""`agreement stats --order` / `--guideline`: ordinal alpha on string labels in the
scale's order, equal to the krippendorff package given the same `value_domain`.

Without an order string labels sort alphabetically ("high" < "low" < "mid" < "very
high" < "very low"): on krippendorff's own doctest data that reads 0.702 where the
package's documented value is 0.815.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import krippendorff
import pytest
from sklearn.metrics import cohen_kappa_score

from formats.classic import read_guideline
from tests.conftest import cli_json, run_cli

NAN = math.nan
# krippendorff.alpha's doctest (krippendorff 0.9.0): raters x units.
DOCTEST = [
    ["very low", "low", "mid", "mid", "low", "very low", "high", "very low", "low", NAN, NAN, NAN],
    ["very low", "low", "mid", "mid", "low", "low", "high", "very low", "low", "very high", NAN,
     "mid"],
    [NAN, "mid", "mid", "mid", "low", "mid", "high", "low", "low", "very high", "very low", NAN],
    ["very low", "low", "mid", "mid", "low", "high", "high", "very low", "low", "very high",
     "very low", NAN],
]  # fmt: skip
SCALE = ["very low", "low", "mid", "high", "very high"]


def _csv(path: Path, data: list[list[Any]]) -> Path:
    lines = ["unit,rater,value"]
    for r, row in enumerate(data):
        lines += [f"u{u:02d},r{r},{v}" for u, v in enumerate(row) if v == v]  # NaN: no row
    path.write_text("\n".join(lines) + "\n")
    return path


def _reference(data: list[list[Any]], domain: list[Any]) -> float:
    return float(
        krippendorff.alpha(
            reliability_data=data,
            level_of_measurement="ordinal",
            value_domain=domain,
        )
    )


def test_doctest_data_in_the_declared_order(tmp_path: Path) -> None:
    ratings = _csv(tmp_path / "r.csv", DOCTEST)
    out = cli_json("agreement", "stats", "--ratings", ratings, "--order", ",".join(SCALE))
    expected = _reference(DOCTEST, SCALE)
    assert round(expected, 3) == 0.815  # the package's documented value
    assert out["krippendorff_alpha"]["ordinal"] == pytest.approx(expected, abs=1e-12)
    assert round(out["krippendorff_alpha"]["ordinal"], 3) == 0.815
    assert out["order"] == SCALE and out["values"] == SCALE
    assert round(out["krippendorff_alpha"]["nominal"], 3) == 0.743  # order-free
    assert out["krippendorff_alpha"]["interval"] is None
    # Without an order: alphabetical, the figure the issue reports.
    plain = cli_json("agreement", "stats", "--ratings", ratings)
    assert round(plain["krippendorff_alpha"]["ordinal"], 3) == 0.702
    assert plain["krippendorff_alpha"]["ordinal"] == pytest.approx(
        _reference(DOCTEST, sorted(SCALE)), abs=1e-12
    )
    text = run_cli("agreement", "stats", "--ratings", ratings, "--order", ",".join(SCALE)).stdout
    assert "ordinal (very low < low < mid < high < very high)" in text and "0.815" in text
    plain_text = run_cli("agreement", "stats", "--ratings", ratings).stdout
    assert "labels in alphabetical order" in plain_text


def test_order_from_the_guideline(tmp_path: Path) -> None:
    ratings = _csv(tmp_path / "r.csv", DOCTEST)
    g = tmp_path / "g.json"
    g.write_text(json.dumps({"requirement": "The passage answers.", "labels": SCALE}))
    assert read_guideline(g).default is not None  # the rubric reader ignores the labels
    out = cli_json("agreement", "stats", "--ratings", ratings, "--guideline", g)
    assert out["krippendorff_alpha"]["ordinal"] == pytest.approx(
        _reference(DOCTEST, SCALE), abs=1e-12
    )
    g2 = tmp_path / "g2.json"
    g2.write_text(json.dumps({"default": {"requirement": "x"}, "labels": SCALE, "queries": {}}))
    assert read_guideline(g2).default is not None
    assert cli_json("agreement", "stats", "--ratings", ratings, "--guideline", g2) == out


def test_an_unobserved_label_in_the_order_and_weighted_kappas(tmp_path: Path) -> None:
    # Two raters; "extreme" is in the scale but nobody used it.
    a = ["low", "mid", "high", "mid", "low", "high", "mid", "low", "mid", "high"]
    b = ["mid", "mid", "high", "low", "low", "mid", "high", "low", "mid", "high"]
    scale = ["low", "mid", "high", "extreme"]
    ratings = _csv(tmp_path / "r.csv", [a, b])
    out = cli_json("agreement", "stats", "--ratings", ratings, "--order", ",".join(scale))
    assert out["krippendorff_alpha"]["ordinal"] == pytest.approx(
        _reference([a, b], scale), abs=1e-12
    )
    assert out["values"] == ["low", "mid", "high"]
    for weights, key in (("linear", "cohen_kappa_linear"), ("quadratic", "cohen_kappa_quadratic")):
        expected = cohen_kappa_score(a, b, labels=["low", "mid", "high"], weights=weights)
        assert out[key] == pytest.approx(expected, abs=1e-12)
        alphabetical = cohen_kappa_score(a, b, labels=sorted(set(a)), weights=weights)
        assert not math.isclose(expected, alphabetical)  # the order matters here


def test_a_numeric_scale_in_another_order(tmp_path: Path) -> None:
    data = [[1, 2, 3, 3, 2, 1, 2], [1, 3, 3, 2, 2, 1, 1], [2, 2, 3, 3, 1, 1, 2]]
    ratings = _csv(tmp_path / "r.csv", data)
    out = cli_json("agreement", "stats", "--ratings", ratings, "--order", "2,1,3")
    pos = {2: 0, 1: 1, 3: 2}
    coded = [[pos[v] for v in row] for row in data]
    assert out["krippendorff_alpha"]["ordinal"] == pytest.approx(
        _reference(coded, [0, 1, 2]), abs=1e-12
    )
    # Interval alpha stays on the numbers themselves.
    assert out["krippendorff_alpha"]["interval"] == pytest.approx(
        float(krippendorff.alpha(reliability_data=data, level_of_measurement="interval")),
        abs=1e-12,
    )


@pytest.mark.parametrize(
    "args, what",
    [
        (
            ["--order", "very low,low,mid,high"],
            "value 'very high' of the ratings is not in --order",
        ),
        (["--order", "very low,low,low,mid,high,very high"], "--order names 'low' twice"),
        (["--order", "very low,,low"], "has an empty label"),
        (["--order", "a", "--guideline", "g.json"], "give --order or --guideline, not both"),
        (["--guideline", "nolabels.json"], "the guideline declares no 'labels'"),
        (["--guideline", "badlabels.json"], "'labels' must be a non-empty list"),
    ],
)
def test_bad_orders_are_one_line(tmp_path: Path, args: list[str], what: str) -> None:
    ratings = _csv(tmp_path / "r.csv", DOCTEST)
    (tmp_path / "g.json").write_text(json.dumps({"requirement": "x", "labels": SCALE}))
    (tmp_path / "nolabels.json").write_text(json.dumps({"requirement": "x"}))
    (tmp_path / "badlabels.json").write_text(json.dumps({"requirement": "x", "labels": "low"}))
    args = [str(tmp_path / a) if a.endswith(".json") else a for a in args]
    err = run_cli("agreement", "stats", "--ratings", ratings, *args, expect=2).stderr
    assert what in err and len(err.strip().splitlines()) == 1, err
