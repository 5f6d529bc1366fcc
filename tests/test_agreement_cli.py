"""`agreement stats` on CSV ratings (values vs the reference libraries) and its input errors."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
from click.testing import CliRunner
from sklearn.metrics import cohen_kappa_score

from evaudit.cli import cli


def _write(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    path.write_text("unit,rater,value\n" + "".join(f"{u},{r},{v}\n" for u, r, v in rows))
    return path


def test_stats_json_keys_and_values(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    rows = []
    for u in range(40):
        truth = int(rng.integers(0, 4))
        for r in ("ann1", "ann2"):
            if rng.random() < 0.1:
                continue
            rows.append((f"u{u}", r, str(truth if rng.random() < 0.7 else int(rng.integers(0, 4)))))
    res = CliRunner().invoke(
        cli, ["agreement", "stats", "--ratings", str(_write(tmp_path / "r.csv", rows)), "--json"]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    for key in (
        "n_units",
        "n_raters",
        "krippendorff_alpha",
        "fleiss_kappa",
        "fleiss_units",
        "percent_agreement",
        "wilson95",
        "cohen_kappa",
        "cohen_kappa_linear",
        "cohen_kappa_quadratic",
        "gwet_ac1",
    ):
        assert key in out
    units = sorted({u for u, _, _ in rows})
    look = {(u, r): int(v) for u, r, v in rows}
    mat = np.array(
        [[look.get((u, r), np.nan) for u in units] for r in ("ann1", "ann2")], dtype=float
    )
    dom = sorted({int(v) for _, _, v in rows})
    assert (
        abs(
            out["krippendorff_alpha"]["ordinal"]
            - krippendorff.alpha(mat, level_of_measurement="ordinal", value_domain=dom)
        )
        < 1e-9
    )
    shared = [u for u in units if (u, "ann1") in look and (u, "ann2") in look]
    a = [look[(u, "ann1")] for u in shared]
    b = [look[(u, "ann2")] for u in shared]
    assert (
        abs(out["cohen_kappa_quadratic"] - cohen_kappa_score(a, b, weights="quadratic", labels=dom))
        < 1e-9
    )
    human = CliRunner().invoke(cli, ["agreement", "stats", "--ratings", str(tmp_path / "r.csv")])
    assert "Gwet AC1" in human.output


def test_stats_input_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("unit,rater,value\nu1,a,1\nu1,a,2\n")
    res = CliRunner().invoke(cli, ["agreement", "stats", "--ratings", str(bad)])
    assert res.exit_code != 0 and f"{bad}:3:" in res.output and "twice" in res.output
    bad.write_text("item,who,label\n")
    res = CliRunner().invoke(cli, ["agreement", "stats", "--ratings", str(bad)])
    assert res.exit_code != 0 and f"{bad}:1: header must be unit,rater,value" in res.output
    bad.write_text("unit,rater,value\nu1,,1\n")
    res = CliRunner().invoke(cli, ["agreement", "stats", "--ratings", str(bad)])
    assert res.exit_code != 0 and f"{bad}:2:" in res.output
    res = CliRunner().invoke(cli, ["agreement", "stats", "--ratings", str(tmp_path / "none.csv")])
    assert res.exit_code != 0 and "not found" in res.output and "Traceback" not in res.output
