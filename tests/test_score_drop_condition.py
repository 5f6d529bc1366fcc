"""`evaudit score drop-condition` (n-Clue supplement Table S5a): dropped grades recomputed from the
evidence (with the distinct-page cap), Gold-NDCG against pytrec_eval, the change and its interval
against a direct computation over the same family draws."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from click.testing import CliRunner

from evaudit.cli import cli
from scorers.runs.drop_condition import dropped_qrels


def _q(qid: str, n: int) -> str:
    conds = [
        {"condition_id": f"{qid}c{i}", "name": f"n{i}", "requirement": "r"} for i in range(1, n + 1)
    ]
    return json.dumps({"query_id": qid, "text": qid, "conditions": conds})


def test_dropped_grades_by_hand() -> None:
    conds = {"q1": ["a", "b", "c"], "q2": ["x"], "q3": ["y", "z"]}
    ev = {
        ("q1", "d1"): {"a": [1], "b": [2]},  # drop c -> both remaining: gold (2)
        ("q1", "d2"): {"a": [5], "c": [5]},  # drop b -> a, c on the same single page: capped 1
        ("q1", "d3"): {"b": [3], "c": [4]},
        ("q2", "d4"): {"x": [1]},  # one condition: never eligible
        ("q3", "d5"): {"z": [9]},
    }
    qids, n, rows = dropped_qrels(conds, ev, 3)
    assert qids == ["q1"] and n == [2]
    assert rows == [("q1", "d1", 2), ("q1", "d2", 1), ("q1", "d3", 1)]
    qids, n, rows = dropped_qrels(conds, ev, 2)
    assert qids == ["q1", "q3"] and n == [2, 1]
    assert ("q1", "d2", 1) in rows and ("q1", "d3", 1) in rows and ("q1", "d1", 1) in rows
    assert all(r[0] != "q3" for r in rows)  # q3 keeps only y, which d5 has no evidence for
    qids, n, rows = dropped_qrels(conds, ev, 1)
    assert ("q3", "d5", 1) in rows and ("q1", "d3", 2) in rows


def test_drop_condition_cli_against_pytrec_eval(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    qids = [f"q{i}" for i in range(12)]
    ns = {q: 2 + i % 2 for i, q in enumerate(qids)}  # position 3: every other query
    (tmp_path / "q.jsonl").write_text("\n".join(_q(q, ns[q]) for q in qids) + "\n")
    ev_lines, qrels = [], []
    for q in qids:
        for d in range(8):
            have = [i for i in range(1, ns[q] + 1) if rng.random() < 0.6]
            for i in have:
                ev_lines.append(json.dumps({"query_id": q, "doc_id": f"d{d}",
                                            "condition_id": f"{q}c{i}", "pages": [10 * i + d % 2]}))  # fmt: skip
            if have:
                qrels.append(f"{q} 0 d{d} {len(have)}")
    (tmp_path / "ev.jsonl").write_text("\n".join(ev_lines) + "\n")
    (tmp_path / "qrels.txt").write_text("\n".join(qrels) + "\n")

    def run(name: str, seed: int) -> Path:
        r = np.random.default_rng(seed)
        lines = []
        for q in qids:
            for rank, d in enumerate(r.permutation(8)[:6], start=1):
                lines.append(f"{q} Q0 d{d} {rank} {10 - rank} {name}")
        path = tmp_path / f"{name}.trec"
        path.write_text("\n".join(lines) + "\n")
        return path

    full, drop1, drop3 = run("full", 1), run("drop1", 2), run("drop3", 3)
    args = ["score", "drop-condition", "--queries", tmp_path / "q.jsonl", "--qrels",
            tmp_path / "qrels.txt", "--evidence", tmp_path / "ev.jsonl", "--run", f"S={full}",
            "--drop", f"S:1={drop1}", "--drop", f"S:3={drop3}", "--bootstrap", "200", "--k", "5",
            "--json"]  # fmt: skip
    res = CliRunner().invoke(cli, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    rows = {r["position"]: r for r in json.loads(res.stdout)["rows"]}

    def gold_ndcg(run_path: Path, gold: dict[str, dict[str, int]], which: list[str]) -> dict:
        rd: dict[str, dict[str, float]] = {}
        for line in run_path.read_text().splitlines():
            q, _, d, _, s, _ = line.split()
            rd.setdefault(q, {})[d] = float(s)
        ev = pytrec_eval.RelevanceEvaluator({q: gold.get(q, {"none": 0}) for q in which},
                                            {"ndcg_cut.5"})  # fmt: skip
        res = ev.evaluate({q: rd[q] for q in which})
        return {q: res[q]["ndcg_cut_5"] if gold.get(q) else 0.0 for q in which}

    full_gold: dict[str, dict[str, int]] = {}
    for line in qrels:
        qq, _, dd, gg = line.split()
        if int(gg) == ns[qq]:
            full_gold.setdefault(qq, {})[dd] = 1
    evid: dict[tuple[str, str], dict[str, list[int]]] = {}
    for line in ev_lines:
        o = json.loads(line)
        evid.setdefault((o["query_id"], o["doc_id"]), {})[o["condition_id"]] = o["pages"]
    for pos, path in ((1, drop1), (3, drop3)):
        cond = {q: [f"{q}c{i}" for i in range(1, ns[q] + 1)] for q in qids}
        eq, en, drows = dropped_qrels(cond, evid, pos)
        nmap = dict(zip(eq, en, strict=True))
        gold: dict[str, dict[str, int]] = {}
        for qq, dd, grade in drows:
            if grade == nmap[qq]:
                gold.setdefault(qq, {})[dd] = 1
        a = gold_ndcg(path, gold, eq)
        b = gold_ndcg(full, full_gold, eq)
        diffs = [a[q] - b[q] for q in eq]
        assert rows[pos]["queries"] == len(eq) == sum(ns[q] >= max(pos, 2) for q in qids)
        assert rows[pos]["diff_gold_ndcg"] == pytest.approx(np.mean(diffs), abs=1e-12)
        assert rows[pos]["dropped_gold_ndcg"] == pytest.approx(np.mean(list(a.values())), abs=1e-12)
    bad = CliRunner().invoke(cli, [str(a) for a in args[:-7]] + ["--drop", f"T:1={drop1}"])
    assert bad.exit_code != 0 and "NAME:POSITION=FILE" in bad.stderr
