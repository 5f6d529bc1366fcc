"""Target comparison ("Does the Selected Object Reach the Reader?", Sec. 3.4, Tables 16-18) and the question-cluster bootstrap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scorers.rop.targets import cluster_bootstrap_change
from tests.conftest import cli_json, run_cli

# Table 16 (cutoff five, 329 object-distinct records): Both, U only, G only, Neither.
TABLE16 = {
    "body_bm25": (42, 210, 3, 74),
    "bge_m3": (31, 284, 0, 14),
    "colbertv2": (39, 285, 0, 5),
    "hybrid_rrf": (34, 258, 0, 37),
    "rrf_rerank": (48, 278, 0, 3),
}
TABLE18_K5 = {
    "body_bm25": 213,
    "bge_m3": 284,
    "colbertv2": 285,
    "hybrid_rrf": 258,
    "rrf_rerank": 278,
}


def _ranking(p: bool, h: bool, i: int) -> list[str]:
    """Five returned ids realising one joint outcome at cutoff five (fillers are unknown ids)."""
    ids = [f"filler-{i}-{j}" for j in range(5)]
    if p:
        ids[0] = f"U{i}"
    if h:
        ids[1] = f"G{i}"
    return [*ids, f"U{i}", f"G{i}"]  # both sit at ranks 6-7: outside the cutoff


def _table16_records() -> list[dict[str, Any]]:
    """329 records whose cutoff-5 joint counts are Table 16, ordered so that every BM25
    selected hit is also a reranker hit (the paper: 74 miss->hit, none hit->miss)."""
    per_stack = {}
    for stack, (both, u_only, g_only, neither) in TABLE16.items():
        per_stack[stack] = (
            [(True, True)] * both
            + [(True, False)] * u_only
            + [(False, True)] * g_only
            + [(False, False)] * neither
        )
    records = []
    for i in range(329):
        records.append(
            {
                "record_id": f"rec{i}",
                "question_id": f"q{i % 160}",
                "model": ("claude", "gpt", "gemini")[i % 3],
                "selected": f"/wiki/U{i}",
                "trace": f"/wiki/G{i}",
                "rankings": {s: _ranking(*per_stack[s][i], i) for s in TABLE16},
            }
        )
    return records


def _resolver() -> dict[str, Any]:
    objects = {}
    for i in range(329):
        objects[f"U{i}"] = [f"/wiki/U{i}"]
        objects[f"G{i}"] = [f"/wiki/G{i}"]
    return {"version": "t", "objects": objects}


def _write(
    tmp_path: Path, rows: list[dict[str, Any]], resolver: dict[str, Any]
) -> tuple[Path, Path]:
    rec = tmp_path / "records.jsonl"
    rec.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = tmp_path / "resolver.json"
    res.write_text(json.dumps(resolver))
    return rec, res


def test_table16_and_table18_at_cutoff_five(tmp_path: Path) -> None:
    rec, res = _write(tmp_path, _table16_records(), _resolver())
    report = cli_json(
        "rop",
        "targets",
        "--records",
        rec,
        "--resolver",
        res,
        "--cutoffs",
        "5",
        "--subset",
        "distinct",
        "--pair",
        "body_bm25,rrf_rerank",
    )
    assert report["distinct_records"] == 329 and report["records_scored"] == 329
    for row in report["table"]:
        cells = (row["P1H1"], row["P1H0"], row["P0H1"], row["P0H0"])
        assert cells == TABLE16[row["stack"]]
        assert row["different_labels"] == TABLE18_K5[row["stack"]]
        assert row["recall_selected"] == pytest.approx((cells[0] + cells[1]) / 329, abs=1e-12)
        assert row["recall_trace"] == pytest.approx((cells[0] + cells[2]) / 329, abs=1e-12)
    # Section 3.4: BM25 -> reranker changes 74 labels miss->hit, none hit->miss; +22.5 points.
    (pair,) = report["pairs"]
    assert (pair["miss_to_hit"], pair["hit_to_miss"]) == (74, 0)
    assert round(pair["change_points"], 1) == 22.5
    assert pair["base_recall_selected"] == pytest.approx(252 / 329)
    assert pair["new_recall_selected"] == pytest.approx(326 / 329)


def test_without_resolver_raw_ids_are_compared(tmp_path: Path) -> None:
    rows = [
        {
            "record_id": "a",
            "question_id": "q1",
            "selected": "x",
            "trace": "y",
            "rankings": {"s": ["y", "x", "z"]},
        },
        {
            "record_id": "b",
            "question_id": "q1",
            "selected": "x",
            "trace": "x",
            "rankings": {"s": ["z", "x"]},
        },
        {
            "record_id": "c",
            "question_id": "q2",
            "selected": None,
            "trace": "x",
            "rankings": {"s": ["x"]},
        },
    ]
    rec, _ = _write(tmp_path, rows, {})
    report = cli_json("rop", "targets", "--records", rec, "--cutoffs", "1,2")
    assert report["excluded_record_ids"] == ["c"]
    assert (report["distinct_records"], report["aligned_records"]) == (1, 1)
    k1, k2 = report["table"]
    assert (k1["P1H1"], k1["P1H0"], k1["P0H1"], k1["P0H0"]) == (0, 0, 1, 1)
    assert (k2["P1H1"], k2["P1H0"], k2["P0H1"], k2["P0H0"]) == (2, 0, 0, 0)
    assert k1["different_labels"] == 1 and k2["different_labels"] == 0


def _numpy_cluster_bootstrap(base, new, clusters, resamples, seed):  # type: ignore[no-untyped-def]
    """Independent percentile cluster bootstrap (plain NumPy) for cross-checking."""
    labels, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    d = np.bincount(inverse, weights=new.astype(float) - base.astype(float))
    s = np.bincount(inverse).astype(float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(labels), size=(resamples, len(labels)))
    stat = d[idx].sum(axis=1) / s[idx].sum(axis=1)
    return np.percentile(stat, [2.5, 97.5])


def test_cluster_bootstrap_agrees_with_plain_numpy() -> None:
    rng = np.random.default_rng(3)
    clusters = [f"q{i}" for i in rng.integers(0, 60, size=300)]
    base = rng.random(300) < 0.6
    new = base | (rng.random(300) < 0.3)
    got = cluster_bootstrap_change(base, new, clusters, resamples=4000, seed=11).to_json()
    low, high = _numpy_cluster_bootstrap(base, new, clusters, 4000, 99)
    point = new.mean() - base.mean()
    assert got["clusters"] == len(set(clusters))
    assert got["ci_low"] < point < got["ci_high"]
    # Two independent Monte Carlo runs of the same percentile interval agree closely.
    assert got["ci_low"] == pytest.approx(low, abs=0.01)
    assert got["ci_high"] == pytest.approx(high, abs=0.01)


def test_cluster_bootstrap_degenerate_cases_are_exact() -> None:
    base = np.array([False, False, True, True])
    new = np.array([True, True, True, True])
    # Every cluster changes by exactly +1 per record: the interval is the point.
    same = cluster_bootstrap_change(
        np.zeros(4, bool), np.ones(4, bool), ["a", "a", "b", "c"], resamples=200, seed=1
    ).to_json()
    assert same["ci_low"] == pytest.approx(1.0) and same["ci_high"] == pytest.approx(1.0)
    one = cluster_bootstrap_change(base, new, ["a"] * 4, resamples=200, seed=1).to_json()
    assert one["clusters"] == 1 and one["ci_low"] is None


def test_bootstrap_through_cli_is_reproducible(tmp_path: Path) -> None:
    rec, res = _write(tmp_path, _table16_records(), _resolver())
    args = (
        "rop",
        "targets",
        "--records",
        rec,
        "--resolver",
        res,
        "--cutoffs",
        "5",
        "--pair",
        "body_bm25,rrf_rerank",
        "--bootstrap",
        "300",
        "--seed",
        "5",
    )
    a, b = cli_json(*args), cli_json(*args)
    boot = a["pairs"][0]["bootstrap"]
    assert boot == b["pairs"][0]["bootstrap"]
    assert boot["clusters"] == 160
    assert boot["ci_low"] <= a["pairs"][0]["change"] <= boot["ci_high"]


def test_by_group_rows(tmp_path: Path) -> None:
    rec, res = _write(tmp_path, _table16_records(), _resolver())
    report = cli_json(
        "rop", "targets", "--records", rec, "--resolver", res, "--cutoffs", "5", "--by", "model"
    )
    rows = [r for r in report["table"] if r["stack"] == "body_bm25"]
    assert [r["group"] for r in rows] == [None, "claude", "gemini", "gpt"]
    assert sum(r["n"] for r in rows[1:]) == rows[0]["n"] == 329


def test_bad_input_is_one_line_error(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    rec.write_text('{"record_id": "a", "rankings": {"s": ["x"]}}\n{"record_id": "a"}\n')
    result = run_cli("rop", "targets", "--records", rec, expect=2)
    assert "r.jsonl:2:" in result.stderr and "Traceback" not in result.stderr
    result = run_cli("rop", "targets", "--records", rec, "--cutoffs", "0", expect=2)
    assert "cutoffs" in result.stderr
    rec.write_text('{"record_id": "a", "selected": "x", "trace": "x", "rankings": {"s": ["x"]}}\n')
    result = run_cli("rop", "targets", "--records", rec, "--pair", "s,t", expect=2)
    assert "unknown stack 't'" in result.stderr
    result = run_cli("rop", "targets", "--records", rec, "--bootstrap", "10", expect=2)
    assert "--pair" in result.stderr


@pytest.mark.parametrize(("confidence", "label"), [(0.95, "95%"), (0.9, "90%")])
def test_pair_line_names_the_interval_level_it_was_drawn_at(confidence: float, label: str) -> None:
    from types import SimpleNamespace

    from scorers.rop.resampling import Interval
    from scorers.rop.targets import PairChange
    from services.rop import TargetsReport

    boot = Interval(500, 12, confidence, 3, -0.0125, 0.25)
    pair = PairChange("a", "b", 10, 40, 0.5, 0.6, 0.1, 5, 1, boot)
    lines = TargetsReport(SimpleNamespace(pairs=[pair])).pair_lines()  # type: ignore[arg-type]
    assert lines == [
        f"a -> b @ 10: change +10.0 points (miss->hit 5, hit->miss 1), {label} cluster"
        " bootstrap [-1.2, 25.0] over 12 clusters"
    ]
