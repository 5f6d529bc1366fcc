"""BEIR folders in: `ingest --beir` and `load --beir --split --guideline --relevant-from`.

The same folder is read by BEIR's own loader (beir.datasets.data_loader.GenericDataLoader)
and the store must hold exactly what it returns: the corpus (title and text joined as
BEIR's models join them), the split's queries, every graded qrels row. Each bad line is
one file:line error with nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from beir.datasets.data_loader import GenericDataLoader

from tests.classic_fixture import make_beir, write_guideline
from tests.conftest import cli_json, run_cli


def _rows(project: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _load(project: Path, beir: Path, *extra: object, expect: int = 0) -> str:
    res = run_cli(
        "load", project, "--beir", beir, "--split", "test",
        "--guideline", write_guideline(beir.parent / "g.json"), "--relevant-from", 1, *extra,
        expect=expect,
    )  # fmt: skip
    return res.stdout + res.stderr


def test_store_holds_what_beir_loader_reads(project: Path, tmp_path: Path) -> None:
    beir = make_beir(tmp_path / "scifact")
    corpus, queries, qrels = GenericDataLoader(data_folder=str(beir)).load(split="test")
    ing = cli_json("ingest", project, "--beir", beir)
    assert ing["documents"] == len(corpus) == 31 and ing["pages"] == 31
    pages = {d: t for d, t in _rows(project, "SELECT doc_id, text FROM pages WHERE page = 1")}
    # beir.retrieval.models.util.extract_corpus_sentences with sep " " (it imports torch).
    assert pages == {d: (e["title"] + " " + e["text"]).strip() for d, e in corpus.items()}
    assert _rows(project, "SELECT DISTINCT kind, n_pages FROM documents") == [("beir", 1)]

    load = json.loads(_load(project, beir, "--json"))
    stored_q = _rows(project, "SELECT query_id, text FROM queries ORDER BY position")
    assert stored_q == list(queries.items())  # the split's queries, in BEIR's order
    graded = _rows(project, "SELECT query_id, doc_id, grade FROM graded_qrels")
    assert sorted(graded) == sorted((q, d, g) for q, ds in qrels.items() for d, g in ds.items())
    audit = _rows(project, "SELECT query_id, doc_id, grade FROM qrels")
    assert sorted(audit) == sorted(
        (q, d, 1) for q, ds in qrels.items() for d, g in ds.items() if g >= 1
    )
    assert load["qrels"] == 24 and load["graded"]["by_grade"] == {"0": 6, "1": 18, "2": 6}
    conds = _rows(project, "SELECT query_id, condition_id, requirement, counts FROM conditions")
    assert len(conds) == 6 and {c[1] for c in conds} == {"relevant"}
    # A query's rubric takes the default's counts it does not give.
    assert all(json.loads(str(c[3])) == ["a direct statement about the topic"] for c in conds)
    ev = _rows(project, "SELECT query_id, doc_id, page FROM evidence ORDER BY ALL")
    assert ev == sorted((q, d, 1) for q, d, _g in audit)
    # The relevance threshold: only grade 2 counts.
    _load(project, beir, "--relevant-from", 2)
    assert sorted(_rows(project, "SELECT doc_id FROM qrels")) == [(f"d{i}_0",) for i in range(1, 7)]


def test_ingest_again_skips_unchanged_entries(project: Path, tmp_path: Path) -> None:
    beir = make_beir(tmp_path / "b")
    cli_json("ingest", project, "--beir", beir)
    lines = (beir / "corpus.jsonl").read_text().splitlines()
    entry = json.loads(lines[0])
    entry["text"] += " one more sentence"
    (beir / "corpus.jsonl").write_text("\n".join([json.dumps(entry), *lines[1:]]) + "\n")
    again = cli_json("ingest", project, "--beir", beir)
    assert again["documents"] == 1 and again["unchanged"] == 30


def _snapshot(project: Path) -> list[list[tuple[object, ...]]]:
    return [
        _rows(project, f"SELECT * FROM {t} ORDER BY ALL")
        for t in ("documents", "pages", "queries", "conditions", "qrels", "evidence")
    ]


@pytest.mark.parametrize(
    ("edit", "where", "what"),
    [
        ("qrels_unknown_doc", "qrels/test.tsv:4:", "unknown document id 'nope'"),
        ("qrels_unknown_query", "qrels/test.tsv:3:", "unknown query id 'q99'"),
        ("qrels_no_header", "qrels/test.tsv:1:", "header"),
        ("qrels_bad_score", "qrels/test.tsv:5:", "score 'high' is not an integer"),
        ("qrels_duplicate", "qrels/test.tsv:32:", "duplicate qrel for query 'q6'"),
        ("queries_duplicate", "queries.jsonl:8:", "duplicate _id 'q1'"),
    ],
)
def test_bad_line_is_one_error_and_nothing_is_written(
    project: Path, tmp_path: Path, edit: str, where: str, what: str
) -> None:
    beir = make_beir(tmp_path / "b")
    cli_json("ingest", project, "--beir", beir)
    _load(project, beir)
    before = _snapshot(project)
    qrels = beir / "qrels" / "test.tsv"
    lines = qrels.read_text().splitlines(keepends=True)
    if edit == "qrels_unknown_doc":
        lines[3] = "q1\tnope\t1\n"
    elif edit == "qrels_unknown_query":
        lines[2] = "q99\td1_1\t1\n"
    elif edit == "qrels_no_header":
        lines = lines[1:]
    elif edit == "qrels_bad_score":
        lines[4] = "q1\td1_3\thigh\n"
    elif edit == "qrels_duplicate":
        lines.append("q6\td6_4\t2\n")
    qrels.write_text("".join(lines))
    if edit == "queries_duplicate":
        with (beir / "queries.jsonl").open("a") as fh:
            fh.write(json.dumps({"_id": "q1", "text": "again"}) + "\n")
    out = _load(project, beir, expect=2)
    assert len(out.strip().splitlines()) == 1 and where in out and what in out, out
    assert _snapshot(project) == before


def test_corpus_bad_lines(project: Path, tmp_path: Path) -> None:
    beir = make_beir(tmp_path / "b")
    path = beir / "corpus.jsonl"
    with path.open("a") as fh:
        fh.write(json.dumps({"_id": "d1_0", "title": "", "text": "twice"}) + "\n")
    out = run_cli("ingest", project, "--beir", beir, expect=2).stderr
    assert "corpus.jsonl:32: duplicate _id 'd1_0' (first on line 1)" in out
    path.write_text(json.dumps({"_id": "", "text": "x"}) + "\n")
    assert (
        "corpus.jsonl:1: missing or empty string '_id'"
        in run_cli("ingest", project, "--beir", beir, expect=2).stderr
    )
    path.write_text(json.dumps({"_id": "a", "title": "t"}) + "\n")
    assert (
        "corpus.jsonl:1: missing string 'text'"
        in run_cli("ingest", project, "--beir", beir, expect=2).stderr
    )
    assert _rows(project, "SELECT count(*) FROM documents") == [(0,)]


def test_load_options_are_checked(project: Path, tmp_path: Path) -> None:
    beir = make_beir(tmp_path / "b")
    cli_json("ingest", project, "--beir", beir)
    g = write_guideline(tmp_path / "g.json")
    err = run_cli("load", project, "--beir", beir, "--guideline", g, expect=2).stderr
    assert "--relevant-from" in err
    err = run_cli("load", project, "--beir", beir, "--relevant-from", 1, expect=2).stderr
    assert "--guideline" in err
    err = run_cli(
        "load", project, "--beir", beir, "--split", "dev", "--guideline", g,
        "--relevant-from", 1, expect=2,
    ).stderr  # fmt: skip
    assert "no qrels for split 'dev'" in err and "splits present: test, train" in err
    err = run_cli(
        "load", project, "--beir", beir, "--guideline", g, "--relevant-from", 3, expect=2
    ).stderr
    assert "no qrels row has a grade >= 3" in err and "[0, 1, 2]" in err
    (tmp_path / "g2.json").write_text(json.dumps({"queries": {"q1": {"requirement": "x"}}}))
    err = run_cli(
        "load", project, "--beir", beir, "--guideline", tmp_path / "g2.json",
        "--relevant-from", 1, expect=2,
    ).stderr  # fmt: skip
    assert "query 'q2' has no relevance rubric" in err
    assert _rows(project, "SELECT count(*) FROM queries") == [(0,)]  # nothing written
    # A rubric for another split's query is fine; one for a query nowhere is not.
    rubrics = {"default": {"requirement": "x"}, "queries": {"train1": {"note": "n"}}}
    (tmp_path / "g3.json").write_text(json.dumps(rubrics))
    load = ("load", project, "--beir", beir, "--guideline", tmp_path / "g3.json")
    cli_json(*load, "--relevant-from", 1)
    rubrics["queries"]["nowhere"] = {"note": "n"}
    (tmp_path / "g3.json").write_text(json.dumps(rubrics))
    err = run_cli(*load, "--relevant-from", 1, expect=2).stderr
    assert "g3.json: guideline rubric for unknown query 'nowhere'" in err
    assert _rows(project, "SELECT count(*) FROM queries") == [(6,)]


def test_n_clue_files_replace_the_grade_scale(project: Path, tmp_path: Path) -> None:
    beir = make_beir(tmp_path / "b")
    cli_json("ingest", project, "--beir", beir)
    _load(project, beir)
    cli_json("load", project, "--run", f"r={_run(tmp_path)}")  # a run alone keeps the scale
    assert _rows(project, "SELECT count(*) FROM graded_qrels") == [(30,)]
    q = {"query_id": "x", "text": "t", "conditions": [{"condition_id": "c", "name": "n",
         "requirement": "r"}]}  # fmt: skip
    (tmp_path / "q.jsonl").write_text(json.dumps(q) + "\n")
    (tmp_path / "qrels.txt").write_text("x 0 d1_0 1\n")
    cli_json("load", project, "--queries", tmp_path / "q.jsonl", "--qrels", tmp_path / "qrels.txt")
    assert _rows(project, "SELECT count(*) FROM graded_qrels") == [(0,)]
    assert _rows(project, "SELECT count(*) FROM meta WHERE key = 'grade_scale'") == [(0,)]


def _run(tmp_path: Path) -> Path:
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 d1_0 1 2.0 r\nq1 Q0 d1_1 2 1.0 r\n")
    return path


def test_a_bad_line_after_written_batches_rolls_back(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import packet_builder.ingest as ingest_module

    monkeypatch.setattr(ingest_module, "_BATCH", 4)  # the corpus streams in batches of 4
    beir = make_beir(tmp_path / "b")
    with (beir / "corpus.jsonl").open("a") as fh:
        fh.write("{not json\n")
    err = run_cli("ingest", project, "--beir", beir, expect=2).stderr
    assert "corpus.jsonl:32: malformed JSON" in err
    assert _rows(project, "SELECT count(*) FROM documents") == [(0,)]
    assert _rows(project, "SELECT count(*) FROM pages") == [(0,)]
    lines = (beir / "corpus.jsonl").read_text().splitlines()[:-1]
    (beir / "corpus.jsonl").write_text("\n".join(lines) + "\n")
    assert cli_json("ingest", project, "--beir", beir)["documents"] == 31
    assert _rows(project, "SELECT count(*) FROM extraction") == [(31,)]
