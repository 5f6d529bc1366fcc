"""TREC collections: topics (SGML, XML, TSV), graded qrels, <DOC> files (plain, gzipped)
and JSONL documents, through `ingest --trec-docs` and `load --trec-topics --trec-qrels`,
audited to revised qrels that keep the original scale (2 stays 2, -2 stays -2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from formats.trec import read_topics
from tests.classic_fixture import TOPICS, make_trec, run_campaign
from tests.conftest import cli_json, run_cli


def _rows(project: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_topic_forms(tmp_path: Path) -> None:
    sgml = tmp_path / "t.sgml"
    sgml.write_text(
        "<top>\n<num> Number: 301\n<title> International Organized Crime\n\n<desc> Description:\n"
        "Identify organizations that participate in crime.\n\n<narr> Narrative:\n"
        "A relevant document must name the organization.\n</top>\n"
    )
    xml = tmp_path / "t.xml"
    xml.write_text(
        "<topics><top><num>301</num><title>International Organized Crime</title>"
        "<desc>Identify organizations that participate in crime.</desc>"
        "<narr>A relevant document must name the organization.</narr></top></topics>\n"
    )
    tsv = tmp_path / "t.tsv"
    tsv.write_text(
        "301\tInternational Organized Crime\tIdentify organizations that participate in crime."
        "\tA relevant document must name the organization.\n"
    )
    want = (
        "301",
        "International Organized Crime",
        "Identify organizations that participate in crime.",
        "A relevant document must name the organization.",
    )
    for path in (sgml, xml, tsv):
        (t,) = read_topics(path)
        assert (t.query_id, t.title, t.desc, t.narr) == want, path
        rubric = t.rubric()
        assert rubric is not None and rubric.requirement == want[3] and rubric.note == want[2]


@pytest.fixture
def trec(tmp_path: Path) -> dict[str, Path]:
    return make_trec(tmp_path / "trec")


def _load(project: Path, trec: dict[str, Path], expect: int = 0) -> Any:
    res = run_cli(
        "load", project, "--trec-topics", trec["topics"], "--trec-qrels", trec["qrels"],
        "--relevant-from", 1, "--json", expect=expect,
    )  # fmt: skip
    return json.loads(res.stdout) if expect == 0 else res.stderr


def test_ingest_and_load(project: Path, trec: dict[str, Path]) -> None:
    ing = cli_json("ingest", project, "--trec-docs", trec["docs"])
    assert ing["documents"] == 30 and ing["pages"] == 30
    text = dict(_rows(project, "SELECT doc_id, text FROM pages"))
    assert text["FT301-0"] == (
        "Report 301 0\nNew findings on solar eclipse were described by the field team. & more"
    )
    assert text["FT306-4"].startswith("Report 306 4\nThe committee")  # from the JSONL file
    load = _load(project, trec)
    assert load["queries"] == 6 and load["qrels"] == 18
    assert load["graded"]["by_grade"] == {"-2": 6, "0": 6, "1": 12, "2": 6}
    req, note = _rows(project, "SELECT requirement, note FROM conditions WHERE query_id = '301'")[0]
    assert req.startswith("A relevant document reports findings on solar eclipse")
    assert note == 'Find reports on "solar eclipse".'
    assert _rows(project, "SELECT text FROM queries WHERE query_id = '301'") == [("solar eclipse",)]


def _snapshot(project: Path) -> list[list[tuple[Any, ...]]]:
    return [
        _rows(project, f"SELECT * FROM {t} ORDER BY ALL")
        for t in ("documents", "pages", "queries", "conditions", "qrels", "evidence")
    ]


def test_bad_lines(project: Path, trec: dict[str, Path]) -> None:
    cli_json("ingest", project, "--trec-docs", trec["docs"])
    _load(project, trec)
    before = _snapshot(project)
    topics = trec["topics"].read_text()
    trec["topics"].write_text(topics.replace("<num> Number: 302\n", "", 1))
    err = _load(project, trec, expect=2)
    assert "topics.txt:12: topic without <num>" in err and len(err.strip().splitlines()) == 1
    trec["topics"].write_text(topics)
    lines = trec["qrels"].read_text().splitlines(keepends=True)
    trec["qrels"].write_text("".join([*lines[:6], "301 0 NOPE 1\n", *lines[6:]]))
    assert "qrels.txt:7: unknown document id 'NOPE'" in _load(project, trec, expect=2)
    trec["qrels"].write_text("".join([*lines[:2], "301 0 FT301-9\n", *lines[2:]]))
    assert "qrels.txt:3: expected 4 fields" in _load(project, trec, expect=2)
    trec["qrels"].write_text("".join([*lines, lines[0]]))
    assert "qrels.txt:31: duplicate qrel for query '301'" in _load(project, trec, expect=2)
    assert _snapshot(project) == before
    bad = trec["docs"] / "zz_bad"
    bad.write_text("<DOC>\n<TEXT>no number</TEXT>\n</DOC>\n")
    err = run_cli("ingest", project, "--trec-docs", trec["docs"], expect=2).stderr
    assert "zz_bad:1: <DOC> without <DOCNO>" in err
    bad.write_text("<DOC>\n<DOCNO>FT301-0</DOCNO>\n<TEXT>again</TEXT>\n</DOC>\n")
    err = run_cli("ingest", project, "--trec-docs", trec["docs"], expect=2).stderr
    assert "zz_bad:1: duplicate DOCNO 'FT301-0' (first in ft911:1)" in err
    assert _snapshot(project) == before


def test_trec_collection_to_revised_qrels(tmp_path: Path, trec: dict[str, Path]) -> None:
    d = tmp_path / "p"
    run_cli("init", d, "--admin-password", "pw-for-tests")
    cli_json("ingest", d, "--trec-docs", trec["docs"])
    _load(d, trec)
    c = run_campaign(d, tmp_path, cli_json, total=18)
    out = tmp_path / "revised"
    original = {}
    for line in trec["qrels"].read_text().splitlines():
        q, _i, doc, g = line.split()
        original[(q, doc)] = int(g)
    revised = {}
    for line in (out / "qrels.txt").read_text().splitlines():
        q, _z, doc, g = line.split()
        revised[(q, doc)] = int(g)
    report = json.loads((out / "report.json").read_text())
    demoted = {(ch["query_id"], ch["doc_id"]) for ch in report["changes"]}
    removed = {r["query_id"] for r in report["removed_queries"]}
    assert revised == {
        k: 0 if k in demoted else g for k, g in original.items() if k[0] not in removed
    }
    assert {2, 1, 0, -2} <= set(revised.values())
    assert c["finalize"]["grade_scale"]["format"] == "trec"
    assert not (out / "qrels.tsv").exists()
    assert len(TOPICS) - len(removed) == len({q for q, _d in revised})


def test_a_guideline_rubric_keeps_the_topic_description(
    project: Path, trec: dict[str, Path]
) -> None:
    """The description reaches the annotator as the note whichever rubric is judged by:
    a guideline rubric without a note takes it; one with its own note keeps that."""
    run_cli("ingest", project, "--trec-docs", trec["docs"])
    guideline = trec["topics"].parent / "guideline.json"
    guideline.write_text(json.dumps({
        "default": {"requirement": "The document answers the topic."},
        "queries": {"302": {"requirement": "It reports on honey bees.", "note": "Our own note."}},
    }))  # fmt: skip
    cli_json("load", project, "--trec-topics", trec["topics"], "--trec-qrels", trec["qrels"],
             "--relevant-from", 1, "--guideline", guideline)  # fmt: skip
    rows = dict(
        (q, (r, n))
        for q, r, n in _rows(project, "SELECT query_id, requirement, note FROM conditions")
    )
    assert rows["301"] == ("The document answers the topic.", 'Find reports on "solar eclipse".')
    assert rows["302"] == ("It reports on honey bees.", "Our own note.")
