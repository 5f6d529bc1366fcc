"""`evaudit score compare --block/--by`, `score nclue --by`, `score sensitivity`, `score bound`:
JSON shape, values equal to the library's, tables, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaudit.cli import cli

SAMPLE = Path(__file__).resolve().parents[1] / "sample_packets"
RUNS = sorted((SAMPLE / "runs").glob("*.trec"))


def _run(args: list[object]) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


def _inputs() -> list[object]:
    args: list[object] = ["--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt"]
    for r in RUNS:
        args += ["--run", r]
    return args


def test_compare_block_json_and_table() -> None:
    base = ["score", "compare", *_inputs(), "--draws", "500", "--bootstrap", "100"]
    blocks = ["--block", "comp=bm25_doc:bm25_and,bm25_page", "--block", "fus=bm25_page:rrf"]
    code, out, err = _run([*base, *blocks, "--json"])
    assert code == 0, err
    rep = json.loads(out)
    assert rep["pairs"] == [] and [b["name"] for b in rep["blocks"]] == ["comp", "fus"]
    comp = rep["blocks"][0]
    assert {"base", "endpoints", "selected", "max_t", "p_selection", "p_selection_holm"} <= set(
        comp
    )
    assert [e["variant"] for e in comp["endpoints"]] == ["bm25_and", "bm25_page"]
    assert comp["selected"] == "bm25_and"  # the higher n-Clue Score endpoint
    assert comp["p_selection_holm"] >= comp["p_selection"]
    code, text, _ = _run([*base, *blocks, "--pair", "bm25_doc:rrf"])
    assert code == 0 and "Sel.+Holm p" in text and "pairs Holm p" in text
    # The plain Holm column never claims selection adjustment.
    assert "not selection-adjusted" in text


def test_compare_by_slices_and_pages_file(tmp_path: Path) -> None:
    pages = tmp_path / "pages.jsonl"
    docs = {
        json.loads(line)["doc_id"] for line in (SAMPLE / "qrels.jsonl").read_text().splitlines()
    }
    pages.write_text(
        "".join(
            json.dumps({"doc_id": d, "page": p, "text": "x"}) + "\n"
            for i, d in enumerate(sorted(docs))
            for p in range(1, 2 + 3 * i)
        )
    )
    args = ["score", "compare", *_inputs(), "--pair", "bm25_page:rrf", "--draws", "200",
            "--bootstrap", "100", "--by", "n", "--by", "source", "--by", "lmin:10,30",
            "--pages", pages, "--json"]  # fmt: skip
    code, out, err = _run(args)
    assert code == 0, err
    sl = json.loads(out)["slices"]
    assert [s["spec"] for s in sl["slices"]] == ["n", "source", "lmin:10,30"]
    by_n = sl["slices"][0]["cells"]
    assert sum(c["queries"] for c in by_n) == sl["queries"] == 30
    assert by_n[0]["contrasts"][0]["base"] == "bm25_page"
    code, out, _ = _run(["score", "nclue", *_inputs(), "--by", "dplus:3,5", "--json",
                         "--bootstrap", "0"])  # fmt: skip
    assert code == 0 and json.loads(out)["slices"]["slices"][0]["spec"] == "dplus:3,5"


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--block", "comp=bm25_doc:nope"], "--block 'comp=bm25_doc:nope'"),
        (["--block", "bm25_doc:rrf"], "NAME=BASE:VARIANT1"),
        (["--block", "a=bm25_doc:rrf", "--block", "a=bm25_doc:bm25_and"], "same NAME"),
        (["--pair", "bm25_doc:rrf", "--by", "size"], "unknown slice factor"),
        (["--pair", "bm25_doc:rrf", "--by", "lmin:30"], "needs page counts"),
        (["--pair", "bm25_doc:rrf", "--by", "dplus:5,3"], "increasing cut points"),
    ],
)
def test_compare_bad_options_one_line(extra: list[str], needle: str) -> None:
    code, out, err = _run(["score", "compare", *_inputs(), "--draws", "10", *extra])
    assert code != 0 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1


def test_sensitivity_json_matches_library() -> None:
    import numpy as np

    from formats.qrels import read_qrels
    from formats.readers import read_queries, read_run
    from scorers.runs import bind_qrels, measure, rank_run
    from scorers.runs.sensitivity import sensitivity_report

    runs = [SAMPLE / "runs" / "bm25_page.trec", SAMPLE / "runs" / "rrf.trec"]
    args = ["score", "sensitivity", "--queries", SAMPLE / "queries.jsonl", "--qrels",
            SAMPLE / "qrels.txt", "--run", runs[0], "--run", runs[1], "--draws", "300",
            "--membership", "judged", "--json"]  # fmt: skip
    code, out, err = _run(args)
    assert code == 0, err
    rep = json.loads(out)
    qs = read_queries(SAMPLE / "queries.jsonl")
    qr = read_qrels(SAMPLE / "qrels.txt")
    b = bind_qrels([q.query_id for q in qs], [q.n for q in qs], qr.query_id, qr.doc_id, qr.grade)
    pq = [measure(b, rank_run(b, r.query_id, r.doc_id, r.score)) for r in map(read_run, runs)]
    d = pq[1].values()[0] - pq[0].values()[0]
    want = sensitivity_report(b, d, base="bm25_page", variant="rrf", membership="judged",
                              draws=300, seed=11).to_json()  # fmt: skip
    assert rep == json.loads(json.dumps(want))
    assert rep["observed"] == pytest.approx(float(np.mean(d)))
    one_run = ["score", "sensitivity", "--queries", SAMPLE / "queries.jsonl", "--run", runs[0]]
    code, _, err = _run(one_run)
    assert code != 0 and "exactly two runs" in err


def test_bound_json_and_budget_errors() -> None:
    args = ["score", "bound", *_inputs(), "--pair", "bm25_page:rrf", "--k", "0,1,3", "--json"]
    code, out, err = _run(args)
    assert code == 0, err
    row = json.loads(out)["contrasts"][0]
    assert row["minimum"]["0"] == row["observed"] == row["maximum"]["0"]
    assert row["minimum"]["1"] == row["minimum"]["3"] <= row["observed"] <= row["maximum"]["3"]
    code, out, err = _run([*args[:-3], "--k", "one"])
    assert code != 0 and out == "" and "promotion budgets" in err


def test_impact_reports_changed_labels_in_top_k_correlation_and_sources(tmp_path: Path) -> None:
    rows = (SAMPLE / "qrels.txt").read_text().splitlines()
    after = tmp_path / "after.txt"
    # Drop every fifth label: a revision the impact report must see.
    after.write_text("".join(r + "\n" for i, r in enumerate(rows) if i % 5))
    args = ["score", "impact", "--queries", SAMPLE / "queries.jsonl", "--qrels-before",
            SAMPLE / "qrels.txt", "--qrels-after", after, "--pair", "bm25_doc:rrf",
            "--draws", "100", "--bootstrap", "100"]  # fmt: skip
    for r in RUNS:
        args += ["--run", r]
    code, out, err = _run([*args, "--json"])
    assert code == 0, err
    rep = json.loads(out)
    assert rep["labels_changed"] == rep["labels"]["changed"] == len(rows[::5])
    assert set(rep["changed_in_top"]) == {r.stem for r in RUNS}
    assert max(rep["changed_in_top"].values()) <= rep["changed_in_top_union"]
    assert rep["changed_in_top_union"] <= rep["labels_changed"]
    assert set(rep["ndcg_vs_gold_ndcg"]) == {"before", "after"}
    cells = rep["by_source"]["before"]["slices"][0]["cells"]
    assert sum(c["queries"] for c in cells) == 30 and cells[0]["contrasts"][0]["base"] == "bm25_doc"
    code, text, _ = _run(args)
    assert code == 0 and "Contrasts by source" in text and "graded NDCG vs by Gold-NDCG" in text


def test_nclue_category_groups_and_leaves_privileged_unranked(tmp_path: Path) -> None:
    cats = tmp_path / "cats.txt"
    cats.write_text("# run category\nbm25_and BL\nbm25_doc BL\nbm25_page BL privileged\nrrf FUS\n")
    code, out, err = _run(["score", "nclue", *_inputs(), "--bootstrap", "0", "--category", cats,
                           "--json"])  # fmt: skip
    assert code == 0, err
    rep = json.loads(out)
    assert rep["privileged"] == ["bm25_page"] and "bm25_page" not in rep["rank"]
    fair = sorted((t for t in rep["runs"] if t != "bm25_page"),
                  key=lambda t: (-rep["runs"][t]["nclue"], -rep["runs"][t]["gold_hit"], t))  # fmt: skip
    assert rep["ranking"] == fair and [rep["rank"][t] for t in fair] == [1, 2, 3]
    assert rep["categories"] == {
        "bm25_and": "BL",
        "bm25_doc": "BL",
        "bm25_page": "BL",
        "rrf": "FUS",
    }
    code, text, _ = _run(["score", "nclue", *_inputs(), "--bootstrap", "0", "--category", cats])
    assert "Table S1d-style" in text and text.count("Table S1") == 4
    for bad, needle in [("nope BL\n", "not among the scored runs"), ("rrf\n", "cats.txt:1"),
                        ("rrf A x\n", "RUN CATEGORY privileged"),
                        ("rrf A\nrrf B\n", "listed twice")]:  # fmt: skip
        cats.write_text(bad)
        code, out, err = _run(["score", "nclue", *_inputs(), "--category", cats])
        assert code != 0 and out == "" and needle in err, err


def test_robustness_commands_run_on_finalize_output(tmp_path: Path) -> None:
    """The new commands read what `evaudit finalize` writes (its queries.jsonl and qrels)."""
    from tests.test_finalize_decisions import _campaign

    root, _ = _campaign(tmp_path)
    code, _, err = _run(["finalize", root, "--out", tmp_path / "fin", "--json"])
    assert code == 0, err
    fin = tmp_path / "fin"
    a, b = tmp_path / "a.trec", tmp_path / "b.trec"
    a.write_text("q1 Q0 d1 1 2 A\nq1 Q0 gold-doc 2 1 A\n")
    b.write_text("q1 Q0 gold-doc 1 2 B\nq1 Q0 d1 2 1 B\n")
    base = ["--queries", fin / "queries.jsonl", "--qrels", fin / "qrels.txt", "--run", a,
            "--run", b]  # fmt: skip
    for cmd in (
        ["score", "compare", *base, "--block", "x=A:B", "--by", "n", "--by", "source",
         "--draws", "50", "--bootstrap", "50"],
        ["score", "sensitivity", *base, "--draws", "50"],
        ["score", "bound", *base, "--pair", "A:B"],
        ["score", "nclue", *base, "--by", "dplus:1", "--bootstrap", "0"],
    ):  # fmt: skip
        code, out, err = _run([*cmd, "--json"])
        assert code == 0, (cmd, err)
        assert json.loads(out)
    code, out, err = _run(["score", "bound", *base, "--pair", "A:B", "--json"])
    row = json.loads(out)["contrasts"][0]
    assert row["observed"] == 1.0  # A puts the subset d1 first, B the gold
    assert row["minimum"]["1"] == 0.0  # promoting d1 makes A gold-first too
    # With the project's queries and the finalize qrels too.
    code, out, err = _run(["score", "sensitivity", "--project", root, "--qrels", fin / "qrels.txt",
                           "--run", a, "--run", b, "--draws", "20", "--json"])  # fmt: skip
    assert code == 0, err
