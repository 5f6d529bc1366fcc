"""`evaudit score nclue | compare | impact`: JSON shape, tables, per-query file, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaudit.cli import cli

SAMPLE = Path(__file__).resolve().parents[1] / "sample_packets"


def _query(qid: str, n: int) -> str:
    conds = [{"condition_id": f"c{i}", "name": f"n{i}", "requirement": "r"} for i in range(n)]
    return json.dumps({"query_id": qid, "text": f"text {qid}", "conditions": conds})


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    (tmp_path / "queries.jsonl").write_text(
        "\n".join([_query("q1", 2), _query("q2", 2), _query("q3", 1), _query("q4", 2)]) + "\n"
    )
    (tmp_path / "qrels.txt").write_text("q1 0 d1 2\nq1 0 d2 1\nq2 0 d3 2\nq2 0 d4 1\nq3 0 d5 1\n")
    (tmp_path / "after.txt").write_text("q1 0 d1 2\nq1 0 d2 1\nq2 0 d3 2\nq2 0 d4 2\nq3 0 d5 1\n")
    # A: q1 subset-first, q2 gold-first, q3 miss; B: q1, q3 gold-first, q2 subset-first.
    (tmp_path / "a.trec").write_text(
        "q1 Q0 d2 1 3 A\nq1 Q0 d1 2 2 A\nq2 Q0 d3 1 3 A\nq3 Q0 d9 1 1 A\n"
    )
    (tmp_path / "b.trec").write_text(
        "q1 Q0 d1 1 3 B\nq1 Q0 d2 2 2 B\nq2 Q0 d4 1 3 B\nq2 Q0 d3 2 2 B\nq3 Q0 d5 1 1 B\n"
    )
    return tmp_path


def _run(args: list[str]) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


def _base(d: Path) -> list[str]:
    return [
        "--queries",
        str(d / "queries.jsonl"),
        "--run",
        str(d / "a.trec"),
        "--run",
        str(d / "b.trec"),
    ]


def test_nclue_json_shape_and_values(bench: Path) -> None:
    code, out, _ = _run(
        [
            "score",
            "nclue",
            *_base(bench),
            "--qrels",
            bench / "qrels.txt",
            "--json",
            "--bootstrap",
            "200",
        ]
    )
    assert code == 0
    rep = json.loads(out)
    assert {"k", "queries", "runs"} <= rep.keys() and rep["k"] == 10 and rep["queries"] == 4
    assert set(rep["runs"]) == {"A", "B"}
    a = rep["runs"]["A"]
    assert {"nclue", "gold_hit", "gold_ndcg", "ndcg", "outcomes", "ci95"} <= a.keys()
    assert a["outcomes"] == {"miss": 2, "subset_first": 1, "gold_first": 1}  # q4 absent: miss
    assert a["nclue"] == pytest.approx(0.25) and a["gold_hit"] == pytest.approx(0.5)
    assert rep["runs"]["B"]["nclue"] == pytest.approx(0.5)
    for m in ("nclue", "gold_hit", "gold_ndcg"):
        lo, hi = a["ci95"][m]
        assert 0.0 <= lo <= a[m] <= hi <= 1.0


def test_nclue_table_in_points_named_runs_and_per_query(bench: Path) -> None:
    pq = bench / "pq.tsv"
    code, out, _ = _run(
        ["score", "nclue", "--queries", bench / "queries.jsonl", "--qrels", bench / "qrels.txt",
         "--run", f"first={bench / 'a.trec'}", "--run", bench / "b.trec", "--per-query", pq]
    )  # fmt: skip
    assert code == 0
    assert "n-Clue" in out and "first" in out and "50.0" in out and "25.0" in out
    lines = pq.read_text().splitlines()
    assert lines[0].split("\t") == [
        "run", "query_id", "outcome", "first_gold_rank", "first_subset_rank", "gold_ndcg", "ndcg",
    ]  # fmt: skip
    assert len(lines) == 1 + 2 * 4
    assert lines[1].split("\t")[:5] == ["first", "q1", "subset_first", "2", "1"]


def test_ties_option_changes_order(bench: Path) -> None:
    (bench / "t.trec").write_text("q1 Q0 d1 1 5 T\nq1 Q0 d2 2 5 T\n")  # gold d1 listed first
    args = ["score", "nclue", "--queries", bench / "queries.jsonl", "--qrels", bench / "qrels.txt",
            "--run", bench / "t.trec", "--json", "--bootstrap", "0"]  # fmt: skip
    file_mode = json.loads(_run(args)[1])["runs"]["T"]
    trec_mode = json.loads(_run([*args, "--ties", "trec_eval"])[1])["runs"]["T"]
    assert file_mode["outcomes"]["gold_first"] == 1  # file order: gold d1 first
    assert trec_mode["outcomes"]["subset_first"] == 1  # doc id descending: subset "d2" first
    assert file_mode["ci95"]["nclue"] is None


def test_compare_json_shape(bench: Path) -> None:
    code, out, _ = _run(
        [
            "score",
            "compare",
            *_base(bench),
            "--qrels",
            bench / "qrels.txt",
            "--pair",
            "A:B",
            "--draws",
            "500",
            "--bootstrap",
            "100",
            "--json",
        ]
    )
    assert code == 0
    rep = json.loads(out)
    (pair,) = rep["pairs"]
    keys = {"base", "variant", "diff", "ci95", "p", "p_holm", "p_family", "common_n", "delta_D",
            "base_mpg", "variant_mpg"}  # fmt: skip
    assert keys <= pair.keys()
    assert pair["diff"]["nclue"] == pytest.approx(0.25)
    assert pair["common_n"] == 2  # q1 and q2 have a gold in both runs
    assert pair["base_mpg"] == pytest.approx(
        {"miss": 0.5, "subset_first": 0.25, "gold_first": 0.25}
    )
    code, out, _ = _run(
        ["score", "compare", *_base(bench), "--qrels", bench / "qrels.txt", "--pair", "A:B"]
    )
    assert code == 0 and "Holm" in out and "common n" in out


def test_impact_json_and_table(bench: Path) -> None:
    args = ["score", "impact", *_base(bench), "--qrels-before", bench / "qrels.txt",
            "--qrels-after", bench / "after.txt", "--pair", "A:B", "--draws", "500"]  # fmt: skip
    code, out, _ = _run([*args, "--json"])
    assert code == 0
    rep = json.loads(out)
    assert rep["labels_changed"] == 1 and rep["labels"]["to_gold"] == 1
    assert rep["runs"]["B"]["before"]["nclue"] == pytest.approx(0.5)
    assert rep["runs"]["B"]["after"]["nclue"] == pytest.approx(0.75)  # d4 became gold
    assert {"spearman", "kendall", "max_rank_shift"} <= rep["ordering"].keys()
    assert rep["pairs"][0]["after"]["diff"]["nclue"] == pytest.approx(0.5)
    assert rep["queries"] == {"before": 4, "after": 4} and rep["removed_queries"] == []
    code, out, _ = _run(args)
    assert code == 0 and "1 labels changed" in out and "Spearman" in out


def test_impact_drops_queries_the_revision_removed(bench: Path) -> None:
    # As finalize does: q2 loses its gold and all its qrels rows.
    (bench / "removed.txt").write_text("q1 0 d1 2\nq1 0 d2 1\nq3 0 d5 1\n")
    args = ["score", "impact", *_base(bench), "--qrels-before", bench / "qrels.txt",
            "--qrels-after", bench / "removed.txt", "--json"]  # fmt: skip
    rep = json.loads(_run(args)[1])
    assert rep["queries"] == {"before": 4, "after": 3} and rep["removed_queries"] == ["q2"]
    assert rep["labels"]["removed"] == 2 and rep["labels"]["from_gold"] == 1
    # A: q2 was its gold-first query; after, 0 of 3 queries.
    assert rep["runs"]["A"]["after"]["nclue"] == 0.0
    assert rep["runs"]["B"]["after"]["nclue"] == pytest.approx(2 / 3)
    kept = json.loads(_run([*args, "--keep-removed"])[1])
    assert kept["queries"] == {"before": 4, "after": 4} and kept["removed_queries"] == []
    assert kept["runs"]["B"]["after"]["nclue"] == pytest.approx(0.5)


def _error(args: list[str]) -> str:
    code, out, err = _run(args)
    assert code != 0 and out == "" and "Traceback" not in err
    return err


def test_bad_inputs_give_one_line_errors(bench: Path) -> None:
    q, qr = bench / "queries.jsonl", bench / "qrels.txt"
    err = _error(["score", "nclue", "--queries", q, "--qrels", qr, "--run", bench / "nope.trec"])
    assert "nope.trec: file not found" in err
    (bench / "bad.trec").write_text("q1 Q0 d1 1 3 A\nq1 Q0 d2 1 A\n")
    err = _error(["score", "nclue", "--queries", q, "--qrels", qr, "--run", bench / "bad.trec"])
    assert "bad.trec:2: expected 6 fields" in err
    (bench / "dup.trec").write_text("q1 Q0 d1 1 3 A\nq1 Q0 d1 2 2 A\n")
    err = _error(["score", "nclue", "--queries", q, "--qrels", qr, "--run", bench / "dup.trec"])
    assert "dup.trec:2: document 'd1' appears twice" in err
    (bench / "high.txt").write_text("q1 0 d1 2\nq3 0 d5 2\n")
    err = _error(
        ["score", "nclue", "--queries", q, "--qrels", bench / "high.txt", "--run", bench / "a.trec"]
    )
    assert "high.txt:2: grade 2 for query 'q3' exceeds its 1 conditions" in err
    err = _error(["score", "nclue", "--qrels", qr, "--run", bench / "a.trec"])
    assert "--queries" in err
    err = _error(["score", "nclue", *_base(bench), "--qrels", qr, "--run", bench / "a.trec"])
    assert "run name 'A' is also used" in err
    err = _error(["score", "compare", *_base(bench), "--qrels", qr, "--pair", "A:C"])
    assert "--pair 'A:C'" in err and "A, B" in err
    err = _error(["score", "compare", *_base(bench), "--qrels", qr])
    assert "--pair" in err


def test_bad_input_writes_no_per_query_file(bench: Path) -> None:
    pq = bench / "pq.tsv"
    _error(["score", "nclue", "--queries", bench / "queries.jsonl", "--qrels", bench / "qrels.txt",
            "--run", bench / "missing.trec", "--per-query", pq])  # fmt: skip
    assert not pq.exists()


def test_project_store_supplies_queries_and_qrels(bench: Path, tmp_path: Path) -> None:
    from campaign import store
    from campaign.init import init_project

    project, _ = init_project(tmp_path / "proj", admin_password="pw")
    with store.transaction(project.store_path) as con:
        for pos, (qid, n) in enumerate([("q1", 2), ("q2", 2), ("q3", 1), ("q4", 2)]):
            con.execute(
                "INSERT INTO queries (query_id, text, release, source, n, position) "
                "VALUES (?, ?, '', '', ?, ?)",
                [qid, qid, n, pos],
            )
        for line in (bench / "qrels.txt").read_text().splitlines():
            q, _, d, g = line.split()
            con.execute("INSERT INTO qrels VALUES (?, ?, ?)", [q, d, int(g)])
    args = ["--run", bench / "a.trec", "--run", bench / "b.trec", "--json", "--bootstrap", "50"]
    code, out, _ = _run(["score", "nclue", "--project", project.root, *args])
    _, ref, _ = _run(
        [
            "score",
            "nclue",
            "--queries",
            bench / "queries.jsonl",
            "--qrels",
            bench / "qrels.txt",
            *args,
        ]
    )
    assert code == 0 and json.loads(out) == json.loads(ref)
    code, out, _ = _run(
        [
            "score",
            "impact",
            "--project",
            project.root,
            "--qrels-after",
            bench / "after.txt",
            "--run",
            bench / "a.trec",
            "--json",
        ]
    )
    assert code == 0 and json.loads(out)["labels_changed"] == 1


def test_sample_project_runs(tmp_path: Path) -> None:
    import pytrec_eval

    runs = sorted((SAMPLE / "runs").glob("*.trec"))
    assert len(runs) >= 2
    queries, qrels = SAMPLE / "queries.jsonl", SAMPLE / "qrels.txt"
    run_args = [a for p in runs for a in ("--run", p)]
    base = ["--queries", queries, *run_args, "--json", "--bootstrap", "100"]
    code, out, err = _run(["score", "nclue", *base, "--qrels", qrels, "--ties", "trec_eval"])
    assert code == 0, err
    rep = json.loads(out)
    # The project's JSONL qrels copy scores identically to its TREC copy.
    jsonl = json.loads(_run(["score", "nclue", *base, "--qrels", SAMPLE / "qrels.jsonl", "--ties", "trec_eval"])[1])  # fmt: skip
    assert jsonl == rep
    # Graded NDCG@10 equals pytrec_eval's over the queries each run ranks.
    qd: dict[str, dict[str, int]] = {}
    for line in qrels.read_text().splitlines():
        q, _, d, g = line.split()
        qd.setdefault(q, {})[d] = int(g)
    for path in runs:
        rd: dict[str, dict[str, float]] = {}
        for line in path.read_text().splitlines():
            q, _, d, _, sc, tag = line.split()
            rd.setdefault(q, {})[d] = float(sc)
        res = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10"}).evaluate(rd)
        entry = rep["runs"][tag]
        expected = sum(v["ndcg_cut_10"] for v in res.values()) / rep["queries"]
        assert entry["ndcg"] == pytest.approx(expected, abs=1e-9)
    tags = list(rep["runs"])
    pair = f"{tags[0]}:{tags[1]}"
    code, out, err = _run(
        ["score", "compare", "--queries", queries, "--qrels", qrels, *run_args,
         "--pair", pair, "--draws", "500", "--json"]
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["pairs"][0]["base"] == tags[0]
    # Impact: demote one gold label of the sample qrels.
    lines = qrels.read_text().splitlines()
    n_of = {json.loads(x)["query_id"]: len(json.loads(x)["conditions"]) for x in queries.read_text().splitlines() if x.strip()}  # fmt: skip
    i = next(j for j, x in enumerate(lines) if int(x.split()[3]) == n_of[x.split()[0]] > 1)
    q, z, d, g = lines[i].split()
    lines[i] = f"{q} {z} {d} {int(g) - 1}"
    after = tmp_path / "after.txt"
    after.write_text("\n".join(lines) + "\n")
    code, out, err = _run(
        ["score", "impact", "--queries", queries, "--qrels-before", qrels, "--qrels-after", after,
         *run_args, "--pair", pair, "--draws", "200", "--ties", "trec_eval", "--json"]
    )  # fmt: skip
    assert code == 0, err
    imp = json.loads(out)
    assert imp["labels_changed"] == 1 and imp["labels"]["from_gold"] == 1
    assert set(imp["runs"]) == set(tags)
    for t in tags:
        assert imp["runs"][t]["before"]["nclue"] == pytest.approx(rep["runs"][t]["nclue"])


def test_impact_on_finalize_output(tmp_path: Path) -> None:
    """score impact reads what `evaudit finalize` writes (TREC and JSONL), removal included."""
    from tests.test_finalize_decisions import _campaign

    root, _ = _campaign(tmp_path)
    code, out, err = _run(["finalize", root, "--out", tmp_path / "fin", "--json"])
    assert code == 0, err
    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 gold-doc 1 2 R\nq1 Q0 d1 2 1 R\nq2 Q0 d2 1 1 R\n")
    for name in ("qrels.txt", "qrels.jsonl"):
        code, out, err = _run(
            ["score", "impact", "--project", root, "--qrels-after", tmp_path / "fin" / name,
             "--run", run, "--json"]
        )  # fmt: skip
        assert code == 0, err
        rep = json.loads(out)
        assert rep["removed_queries"] == ["q2"]  # finalize removed q2 with its last gold
        assert rep["queries"] == {"before": 2, "after": 1}
        assert rep["runs"]["R"]["before"]["nclue"] == 1.0
        assert rep["runs"]["R"]["after"]["nclue"] == 1.0
