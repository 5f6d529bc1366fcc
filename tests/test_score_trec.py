"""`evaudit score trec` equals pytrec_eval exactly on real files with many tied scores
(BEIR qrels.tsv, TREC graded qrels with negative grades, graded_qrels JSONL), names the
tie rule it used, and `score impact --trec-measures` reports the measures before/after."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import pytrec_eval

from tests.conftest import cli_json, run_cli

MEASURES = "ndcg,ndcg_cut_10,ndcg_cut_5,P_10,P_5,map,map_cut_10,recall_100,recall_10,recip_rank,Rprec,success_1,num_ret,num_rel,num_rel_ret"
PYTREC = {"ndcg", "ndcg_cut.10,5", "P.10,5", "map", "map_cut.10", "recall.100,10",
          "recip_rank", "Rprec", "success.1", "num_ret", "num_rel", "num_rel_ret"}  # fmt: skip


def _collection(root: Path, grades: list[int], seed: int) -> tuple[dict, dict]:
    """Qrels and a depth-100 run whose scores take only 4 values: ties everywhere."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(40):
        qid = f"q{q}"
        docs = [f"d{d}" for d in rng.sample(range(400), 130)]
        qrels[qid] = {d: rng.choice(grades) for d in docs[:30]}
        run[qid] = {d: rng.choice([0.5, 1.25, 2.0, 7.0]) for d in docs[20:120]}
    run["q_unjudged"] = {"d1": 1.0, "d2": 1.0}  # no qrels: not evaluated (pytrec_eval's rule)
    qrels["q_no_run"] = {"d1": 2}  # not in the run: not evaluated either
    with (root / "run.txt").open("w") as fh:
        for qid, ranked in run.items():
            for r, (d, s) in enumerate(ranked.items(), start=1):
                fh.write(f"{qid} Q0 {d} {r} {s} tied\n")
    return qrels, run


def _check(rep: dict, qrels: dict, run: dict, tag: str) -> None:
    ref = pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(run)
    got = rep["runs"][tag]["per_query"]
    assert set(got) == set(ref) == {f"q{q}" for q in range(40)}
    for qid, vals in got.items():
        assert set(vals) == set(MEASURES.split(","))
        for name, value in vals.items():
            assert value == ref[qid][name], (qid, name)  # exact, not approx
    for name in MEASURES.split(","):
        total = sum(ref[q][name] for q in sorted(ref))
        # trec_eval's "all" line: counts are summed, every other measure averaged
        want = total if name.startswith("num_") else total / len(ref)
        assert rep["runs"][tag]["mean"][name] == pytest.approx(want, rel=1e-12, abs=1e-15)


def _trec(args: list, *extra: str) -> dict:
    return cli_json("score", "trec", *args, "--measure", MEASURES, "--per-query", *extra)


def test_beir_qrels_tsv_equal_pytrec_eval(tmp_path: Path) -> None:
    qrels, run = _collection(tmp_path, [0, 0, 1, 1, 2, 3], 1)
    with (tmp_path / "test.tsv").open("w") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        fh.writelines(f"{q}\t{d}\t{g}\n" for q, ds in qrels.items() for d, g in ds.items())
    rep = _trec(["--qrels", tmp_path / "test.tsv", "--run", tmp_path / "run.txt"])
    assert rep["ties"] == "trec_eval"
    _check(rep, qrels, run, "tied")


def test_trec_qrels_with_negative_grades_equal_pytrec_eval(tmp_path: Path) -> None:
    qrels, run = _collection(tmp_path, [-2, -1, 0, 1, 2, 4], 2)
    with (tmp_path / "qrels.txt").open("w") as fh:
        fh.writelines(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items())
    rep = _trec(["--qrels", tmp_path / "qrels.txt", "--run", f"R={tmp_path / 'run.txt'}"])
    _check(rep, qrels, run, "R")


def test_jsonl_graded_qrels_and_query_filter(tmp_path: Path) -> None:
    qrels, run = _collection(tmp_path, [0, 1, 2], 3)
    with (tmp_path / "graded_qrels.jsonl").open("w") as fh:
        for q, ds in qrels.items():
            fh.writelines(json.dumps({"query_id": q, "doc_id": d, "grade": g}) + "\n"
                          for d, g in ds.items())  # fmt: skip
    rep = _trec(["--qrels", tmp_path / "graded_qrels.jsonl", "--run", tmp_path / "run.txt"])
    _check(rep, qrels, run, "tied")
    (tmp_path / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "a"}\n{"_id": "q2", "text": "b"}\n'
    )
    sub = _trec(["--qrels", tmp_path / "graded_qrels.jsonl", "--run", tmp_path / "run.txt",
                 "--queries", tmp_path / "queries.jsonl"])  # fmt: skip
    assert set(sub["runs"]["tied"]["per_query"]) == {"q1", "q2"}
    assert sub["runs"]["tied"]["per_query"]["q1"] == rep["runs"]["tied"]["per_query"]["q1"]


def test_file_ties_differ_and_are_named(tmp_path: Path) -> None:
    qrels, run = _collection(tmp_path, [0, 1, 2, 3], 4)
    with (tmp_path / "qrels.txt").open("w") as fh:
        fh.writelines(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items())
    base = ["--qrels", tmp_path / "qrels.txt", "--run", tmp_path / "run.txt"]
    te = _trec(base)
    fi = _trec(base, "--ties", "file")
    assert fi["ties"] == "file" and te["ties"] == "trec_eval"
    assert fi["runs"]["tied"]["mean"]["ndcg_cut_10"] != te["runs"]["tied"]["mean"]["ndcg_cut_10"]
    # file order: a reference run whose scores are the file rank reproduces it under trec_eval.
    ranked = {}
    for q, ds in run.items():
        names, vals = list(ds), list(ds.values())
        order = sorted(range(len(ds)), key=lambda i: -vals[i])  # stable
        ranked[q] = {names[i]: -float(r) for r, i in enumerate(order)}
    ref = pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(ranked)
    for qid, vals in fi["runs"]["tied"]["per_query"].items():
        assert vals == {k: ref[qid][k] for k in vals}
    text = run_cli("score", "trec", *base).stdout
    assert "ties: trec_eval" in text.splitlines()[0]


def test_bad_measure_and_bad_qrels_line(tmp_path: Path) -> None:
    _collection(tmp_path, [0, 1], 5)
    (tmp_path / "q.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\tx\n")
    err = run_cli("score", "trec", "--qrels", tmp_path / "q.tsv", "--run", tmp_path / "run.txt",
                  expect=2).stderr  # fmt: skip
    assert "q.tsv:2" in err and "not an integer" in err and len(err.strip().splitlines()) == 1
    err = run_cli("score", "trec", "--qrels", tmp_path / "q.tsv", "--run", tmp_path / "run.txt",
                  "--measure", "ndcg_cut_x", expect=2).stderr  # fmt: skip
    assert "unknown measure 'ndcg_cut_x'" in err


def _nclue_bench(root: Path) -> list:
    conds = [{"condition_id": "c0", "name": "n0", "requirement": "r"}]
    (root / "queries.jsonl").write_text("".join(
        json.dumps({"query_id": q, "text": q, "conditions": conds}) + "\n" for q in ("q1", "q2")
    ))  # fmt: skip
    (root / "before.txt").write_text("q1 0 d1 1\nq1 0 d2 1\nq2 0 d3 1\n")
    (root / "after.txt").write_text("q1 0 d1 0\nq1 0 d2 1\nq2 0 d3 1\nq2 0 d4 1\n")
    (root / "a.trec").write_text("q1 Q0 d1 1 2 A\nq1 Q0 d2 2 2 A\nq2 Q0 d4 1 1 A\nq2 Q0 d3 2 1 A\n")
    return ["--queries", root / "queries.jsonl", "--run", root / "a.trec"]


def test_impact_reports_trec_measures_before_and_after(tmp_path: Path) -> None:
    base = _nclue_bench(tmp_path)
    rep = cli_json("score", "impact", *base, "--qrels-before", tmp_path / "before.txt",
                   "--qrels-after", tmp_path / "after.txt", "--trec-measures", "ndcg_cut_10,P_1")  # fmt: skip
    assert rep["ties"] == "file" and rep["trec_measures"]["ties"] == "trec_eval"
    got = rep["trec_measures"]["runs"]["A"]
    for side, name in (("before", "before.txt"), ("after", "after.txt")):
        qrels: dict[str, dict[str, int]] = {}
        for line in (tmp_path / name).read_text().splitlines():
            q, _, d, g = line.split()
            qrels.setdefault(q, {})[d] = int(g)
        run = {"q1": {"d1": 2.0, "d2": 2.0}, "q2": {"d4": 1.0, "d3": 1.0}}
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "P.1"}).evaluate(run)
        for m in ("ndcg_cut_10", "P_1"):
            assert got[m][side] == sum(ref[q][m] for q in sorted(ref)) / len(ref)
    assert got["P_1"]["delta"] == got["P_1"]["after"] - got["P_1"]["before"]
    text = run_cli("score", "impact", *base, "--qrels-before", tmp_path / "before.txt",
                   "--qrels-after", tmp_path / "after.txt", "--trec-measures", "P_1").stdout  # fmt: skip
    assert text.splitlines()[0].startswith("ties: file")
    assert "trec_eval measures before -> after (ties: trec_eval)" in text


def test_every_ndcg_output_names_its_tie_rule(tmp_path: Path) -> None:
    base = _nclue_bench(tmp_path)
    q = ["--qrels", tmp_path / "before.txt"]
    for ties in ("file", "trec_eval"):
        rep = cli_json("score", "nclue", *base, *q, "--ties", ties, "--bootstrap", "0")
        assert rep["ties"] == ties and "ndcg" in json.dumps(rep)
        text = run_cli("score", "nclue", *base, *q, "--ties", ties, "--bootstrap", "0").stdout
        assert text.splitlines()[0].startswith(f"ties: {ties}")
    (tmp_path / "b.trec").write_text("q1 Q0 d2 1 2 B\nq2 Q0 d3 1 1 B\n")
    pair = [*base, "--run", tmp_path / "b.trec", "--pair", "A:B", "--draws", "50"]
    assert cli_json("score", "compare", *pair, *q)["ties"] == "file"
    assert run_cli("score", "compare", *pair, *q).stdout.startswith("ties: file")


def test_impact_of_a_classic_benchmark_without_conditions(tmp_path: Path) -> None:
    """BEIR qrels.tsv before, finalize's qrels.tsv after (original scale), no queries file."""
    qrels, run = _collection(tmp_path, [0, 1, 2], 6)
    revised = {q: dict(ds) for q, ds in qrels.items()}
    for q in list(revised)[:10]:
        d = next(iter(revised[q]))
        revised[q][d] = 0 if revised[q][d] else 2  # demoted to 0 / promoted to 2
    for name, rel in (("before.tsv", qrels), ("after.tsv", revised)):
        with (tmp_path / name).open("w") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            fh.writelines(f"{q}\t{d}\t{g}\n" for q, ds in rel.items() for d, g in ds.items())
    rep = cli_json("score", "impact", "--qrels-before", tmp_path / "before.tsv", "--qrels-after",
                   tmp_path / "after.tsv", "--run", tmp_path / "run.txt", "--trec-measures",
                   "ndcg_cut_10,map")["trec_measures"]  # fmt: skip
    assert rep["ties"] == "trec_eval"
    for side, rel in (("before", qrels), ("after", revised)):
        ref = pytrec_eval.RelevanceEvaluator(rel, {"ndcg_cut.10", "map"}).evaluate(run)
        for m in ("ndcg_cut_10", "map"):
            assert rep["runs"]["tied"][m][side] == pytest.approx(
                sum(ref[q][m] for q in sorted(ref)) / len(ref), rel=1e-12
            )
    assert rep["runs"]["tied"]["map"]["before"] != rep["runs"]["tied"]["map"]["after"]


def test_project_gives_a_classic_benchmarks_original_grades(tmp_path: Path) -> None:
    from tests.classic_fixture import make_beir, write_guideline

    beir = make_beir(tmp_path / "scifact")
    proj = tmp_path / "p"
    run_cli("init", proj, "--admin-password", "pw-for-tests")
    run_cli("ingest", proj, "--beir", beir)
    run_cli("load", proj, "--beir", beir, "--split", "test", "--guideline",
            write_guideline(tmp_path / "g.json"), "--relevant-from", 2)  # fmt: skip
    qrels: dict[str, dict[str, int]] = {}
    for line in (beir / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        q, d, g = line.split("\t")
        qrels.setdefault(q, {})[d] = int(g)
    assert max(g for ds in qrels.values() for g in ds.values()) >= 2  # graded, not binary
    docs = sorted({d for ds in qrels.values() for d in ds})
    with (tmp_path / "run.txt").open("w") as fh:
        for q in qrels:
            fh.writelines(f"{q} Q0 {d} {i + 1} {i % 3} r\n" for i, d in enumerate(docs))
    args = ["--run", tmp_path / "run.txt", "--measure", "ndcg_cut_10,map", "--per-query"]
    from_project = cli_json("score", "trec", "--project", proj, *args)
    from_file = cli_json("score", "trec", "--qrels", beir / "qrels" / "test.tsv", *args)
    assert from_project["runs"] == from_file["runs"]
