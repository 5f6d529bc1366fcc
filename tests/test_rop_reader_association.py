"""Reader-side association audit ("Does the Selected Object Reach the Reader?", Table 9) and the
cluster bootstrap it shares with the deletion contrasts."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scorers.rop.reader_association import associate, parse_reader_rows
from scorers.rop.resampling import BLOCK, cluster_bootstrap_difference
from tests.conftest import cli_json, run_cli

# Table 9: pair -> (n, Return EM, Omit EM, Delta EM), points.
TABLE9 = {
    ("id", "question"): (832, 79.2, 50.6, 28.6),
    ("id", "rewrite"): (200, 76.0, 45.0, 31.0),
    ("rewrite", "question"): (903, 81.9, 52.6, 29.3),
}
EXACT = {
    ("id", "question"): (659, 421),
    ("id", "rewrite"): (152, 90),
    ("rewrite", "question"): (740, 475),
}


def loop_interval(
    a: list[float], b: list[float], clusters: list[str], resamples: int, seed: int
) -> tuple[float, float]:
    """The plain cluster bootstrap: same generator calls, each resample rebuilt record by record."""
    names = sorted(set(clusters))
    members = {c: [i for i, x in enumerate(clusters) if x == c] for c in names}
    rng = np.random.default_rng(seed)
    stats: list[float] = []
    while len(stats) < resamples:
        rows = min(BLOCK, resamples - len(stats))
        for draw in rng.integers(0, len(names), size=(rows, len(names))):
            picked = [i for c in draw for i in members[names[c]]]
            stats.append(
                sum(a[i] for i in picked) / len(picked) - sum(b[i] for i in picked) / len(picked)
            )
    lo, hi = np.quantile(np.array(stats), [0.025, 0.975])
    return float(lo), float(hi)


@pytest.mark.parametrize("resamples", [1, 999, 2500])
def test_cluster_bootstrap_equals_plain_loop(resamples: int) -> None:
    rng = random.Random(resamples)
    clusters = [f"q{rng.randrange(40)}" for _ in range(150)]
    a = [float(rng.random() < 0.8) for _ in clusters]
    b = [float(rng.random() < 0.5) for _ in clusters]
    got = cluster_bootstrap_difference(a, b, clusters, resamples=resamples, seed=11)
    lo, hi = loop_interval(a, b, clusters, resamples, 11)
    assert got.low == pytest.approx(lo, abs=1e-12) and got.high == pytest.approx(hi, abs=1e-12)
    assert got.clusters == len(set(clusters))


def test_cluster_bootstrap_ignores_row_order() -> None:
    clusters = [f"q{i % 7}" for i in range(30)]
    a = [float(i % 3 == 0) for i in range(30)]
    b = [float(i % 4 == 0) for i in range(30)]
    perm = list(reversed(range(30)))
    one = cluster_bootstrap_difference(a, b, clusters, resamples=500, seed=2)
    two = cluster_bootstrap_difference(
        [a[i] for i in perm],
        [b[i] for i in perm],
        [clusters[i] for i in perm],
        resamples=500,
        seed=2,
    )
    assert (one.low, one.high) == pytest.approx((two.low, two.high), abs=1e-12)


def _table9_rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for (arm_a, arm_b), (n, *_rest) in TABLE9.items():
        ret_exact, omit_exact = EXACT[(arm_a, arm_b)]
        for i in range(n):
            qid, model = f"{arm_a}{arm_b}-q{i // 3}", ["claude", "gpt", "gemini"][i % 3]
            a_holds = i % 2 == 0  # the object sits in either arm
            ret, omit = float(i < ret_exact), float(i < omit_exact)
            for arm, holds, em in (
                (arm_a, a_holds, ret if a_holds else omit),
                (arm_b, not a_holds, omit if a_holds else ret),
            ):
                rows.append(
                    {
                        "question_id": qid,
                        "model": model,
                        "arm": arm,
                        "em": em,
                        "contains_selected": holds,
                        "passages": 5,
                    }
                )
        # rows that must not enter: both contain, neither, misaligned, four passages
        for j, (ha, hb, al, pa) in enumerate(
            [
                (True, True, True, 5),
                (False, False, True, 5),
                (True, False, False, 5),
                (True, False, True, 4),
            ]
        ):
            q = f"{arm_a}{arm_b}-x{j}"
            rows.append(
                {
                    "question_id": q,
                    "model": "m",
                    "arm": arm_a,
                    "em": 1,
                    "aligned": al,
                    "contains_selected": ha,
                    "passages": pa,
                }
            )
            rows.append(
                {
                    "question_id": q,
                    "model": "m",
                    "arm": arm_b,
                    "em": 0,
                    "aligned": al,
                    "contains_selected": hb,
                    "passages": 5,
                }
            )
    return rows


def test_table9_reproduced(tmp_path: Path) -> None:
    path = tmp_path / "reader.jsonl"
    # Each pair's rows live under their own arm names, so pairs do not join across groups.
    path.write_text("".join(json.dumps(r) + "\n" for r in _table9_rows()))
    out = cli_json(
        "rop",
        "association",
        path,
        "--pair",
        "id:question,id:rewrite",
        "--pair",
        "rewrite:question",
        "--passages",
        "5",
        "--bootstrap",
        "300",
    )
    got = {(p["arm_a"], p["arm_b"]): p for p in out["pairs"]}
    for pair, (n, ret, omit, delta) in TABLE9.items():
        p = got[pair]
        assert p["n"] == n
        assert (round(100 * p["return_em"], 1), round(100 * p["omit_em"], 1)) == (ret, omit)
        assert round(100 * p["delta_em"], 1) == delta
        assert p["excluded_passages"] >= 1 and p["excluded_not_aligned"] >= 1
        boot = p["bootstrap"]
        assert boot["ci_low"] < p["delta_em"] < boot["ci_high"]
    text = run_cli(
        "rop", "association", path, "--pair", "id:question", "--bootstrap", "0", "--passages", "5"
    ).stdout
    assert "Return EM" in text and "28.6" in text


def test_interval_is_the_loop_over_entered_records() -> None:
    rows = parse_reader_rows([(i + 1, r) for i, r in enumerate(_table9_rows())], "r")
    report = associate(rows, [("id", "rewrite")], passages=5, resamples=400, seed=5)
    (pair,) = report.pairs
    entered = [r for r in _table9_rows() if r["question_id"].startswith("idrewrite-q")]
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in entered:
        by.setdefault((r["question_id"], r["model"]), []).append(r)
    a, b, cl = [], [], []
    for (qid, _), two in sorted(by.items()):
        holder = next(r for r in two if r["contains_selected"])
        other = next(r for r in two if not r["contains_selected"])
        a.append(holder["em"])
        b.append(other["em"])
        cl.append(qid)
    lo, hi = loop_interval(a, b, cl, 400, 5)
    assert (pair.interval.low, pair.interval.high) == pytest.approx((lo, hi), abs=1e-12)


def test_bad_rows_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "reader.jsonl"
    path.write_text(
        json.dumps(
            {"question_id": "q", "model": "m", "arm": "a", "em": 2, "contains_selected": True}
        )
        + "\n"
    )
    result = run_cli("rop", "association", path, "--pair", "a:b", expect=2)
    assert "reader.jsonl:1: 'em' must be a number in [0, 1]" in result.output
    path.write_text(
        "".join(
            json.dumps(
                {"question_id": "q", "model": "m", "arm": "a", "em": 1, "contains_selected": True}
            )
            + "\n"
            for _ in range(2)
        )
    )
    result = run_cli("rop", "association", path, "--pair", "a:b", expect=2)
    assert "reader.jsonl:2:" in result.output and "repeats line 1" in result.output
