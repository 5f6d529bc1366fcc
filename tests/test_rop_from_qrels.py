"""`rop from-qrels`: qrels + run -> a hard-mode declaration, cross-checked with pytrec_eval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytrec_eval

from formats.qrels import read_qrels
from formats.readers import read_queries, read_run
from tests.conftest import SAMPLE, cli_json, run_cli

RUNS = sorted((SAMPLE / "runs").glob("*.trec"))


def _gold_qrels() -> dict[str, dict[str, int]]:
    """Binary qrels: 1 for grade == n (the query's number of conditions)."""
    n_of = {q.query_id: q.n for q in read_queries(SAMPLE / "queries.jsonl")}
    out: dict[str, dict[str, int]] = {q: {} for q in n_of}
    for row in read_qrels(SAMPLE / "qrels.txt").itertuples():
        out[row.query_id][row.doc_id] = int(row.grade == n_of[row.query_id])
    return out


@pytest.mark.parametrize("k", [1, 5, 10])
@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.stem)
def test_pass_equals_trec_eval_success(tmp_path: Path, run: Path, k: int) -> None:
    out = tmp_path / "rop"
    summary = cli_json(
        "rop",
        "from-qrels",
        "--queries",
        SAMPLE / "queries.jsonl",
        "--qrels",
        SAMPLE / "qrels.txt",
        "--run",
        run,
        "--k",
        k,
        "--out",
        out,
    )
    assert summary["queries"] == 30
    result = run_cli("rop", "evaluate", out / "declaration.json", "--json", expect=None)
    got = json.loads(result.stdout)
    df = read_run(run)
    trec_run: dict[str, dict[str, float]] = {}
    for row in df.itertuples():
        trec_run.setdefault(row.query_id, {})[row.doc_id] = float(row.score)
    qrels = _gold_qrels()
    measures = pytrec_eval.RelevanceEvaluator(qrels, {f"success.{k}"}).evaluate(trec_run)
    for qid, verdict in got["record_verdicts"].items():
        if not any(qrels[qid].values()):
            assert verdict == "SELECTOR_ERROR"
            continue
        success = measures[qid][f"success_{k}"]
        assert verdict == ("PASS" if success == 1.0 else "FAIL"), (qid, k)
    assert (
        result.exit_code == {"RUN_PASS": 0, "RUN_FAIL": 1, "RUN_UNVERIFIABLE": 2}[got["run_status"]]
    )


def _write(tmp: Path, queries: list[dict], qrels: str, run: str) -> tuple[Path, Path, Path]:
    q = tmp / "queries.jsonl"
    q.write_text("".join(json.dumps(x) + "\n" for x in queries))
    r = tmp / "qrels.txt"
    r.write_text(qrels)
    u = tmp / "run.trec"
    u.write_text(run)
    return q, r, u


def _query(qid: str, n: int) -> dict:
    conds = [
        {
            "condition_id": f"c{i}",
            "name": f"c{i}",
            "requirement": "r",
            "counts": [],
            "does_not_count": [],
            "aliases": [],
        }
        for i in range(n)
    ]
    return {"query_id": qid, "text": "t", "conditions": conds}


def test_population_accounting_from_qrels(tmp_path: Path) -> None:
    q, r, u = _write(
        tmp_path,
        [_query("q1", 2), _query("q2", 1), _query("q3", 2)],
        "q1 0 d1 2\nq1 0 d2 1\nq2 0 d3 1\nq3 0 d9 1\n",
        "q1 Q0 d2 1 9.0 t\nq1 Q0 d1 2 8.0 t\nq3 Q0 d9 1 1.0 t\n",
    )
    summary = cli_json(
        "rop",
        "from-qrels",
        "--queries",
        q,
        "--qrels",
        r,
        "--run",
        u,
        "--k",
        1,
        "--out",
        tmp_path / "o",
    )
    assert summary["queries_without_gold"] == ["q3"]  # d9 has grade 1 of n = 2
    assert summary["queries_missing_from_run"] == ["q2"]
    result = run_cli("rop", "evaluate", tmp_path / "o" / "declaration.json", "--json", expect=1)
    got = json.loads(result.stdout)
    # q1: gold d1 at rank 2 > k=1 -> FAIL; q3: no gold -> SELECTOR_ERROR; q2 missing.
    assert got["record_verdicts"] == {"q1": "FAIL", "q3": "SELECTOR_ERROR"}
    assert got["missing_record_ids"] == ["q2"]
    assert got["run_status"] == "RUN_FAIL"


def test_run_query_outside_queries_is_unexpected(tmp_path: Path) -> None:
    q, r, u = _write(
        tmp_path, [_query("q1", 1)], "q1 0 d1 1\n", "q1 Q0 d1 1 2.0 t\nq7 Q0 d1 1 2.0 t\n"
    )
    cli_json("rop", "from-qrels", "--queries", q, "--qrels", r, "--run", u, "--out", tmp_path / "o")
    result = run_cli("rop", "evaluate", tmp_path / "o" / "declaration.json", "--json", expect=3)
    assert json.loads(result.stdout)["unexpected_record_ids"] == ["q7"]


def test_bad_input_and_no_overwrite(tmp_path: Path) -> None:
    q, r, u = _write(tmp_path, [_query("q1", 1)], "q1 0 d1 x\n", "q1 Q0 d1 1 2.0 t\n")
    result = run_cli(
        "rop",
        "from-qrels",
        "--queries",
        q,
        "--qrels",
        r,
        "--run",
        u,
        "--out",
        tmp_path / "o",
        expect=2,
    )
    assert "qrels.txt:1:" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()  # nothing half-written
    r.write_text("q1 0 d1 1\n")
    run_cli("rop", "from-qrels", "--queries", q, "--qrels", r, "--run", u, "--out", tmp_path / "o")
    result = run_cli(
        "rop",
        "from-qrels",
        "--queries",
        q,
        "--qrels",
        r,
        "--run",
        u,
        "--out",
        tmp_path / "o",
        expect=2,
    )
    assert "would overwrite" in result.stderr
