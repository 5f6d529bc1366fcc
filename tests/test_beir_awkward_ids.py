"""BEIR ids as BEIR's loader keeps them: spaces, slashes, colons, angle brackets (dbpedia-
entity's `<dbpedia:AC/DC>`), tabs and quotes (quoted in the qrels TSV), any Unicode.

`ingest --beir` and `load --beir` store each id verbatim, on the Arrow fast path and the
per-line reader alike, exactly as `GenericDataLoader` returns it; a campaign through
finalize writes the revised qrels in BEIR's TSV, which BEIR's loader reads back id for
id, and no TREC copy; a TREC export of such ids refuses in one line naming them.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from beir.datasets.data_loader import GenericDataLoader

from formats.qrels import read_any_qrels
from formats.qrels_export import beir_tsv, revised_texts, trec_qrels, trec_unwritable
from packet_builder import beir_fast
from tests.classic_fixture import TOPICS, make_beir, run_campaign, write_guideline
from tests.conftest import cli_json, run_cli
from vocabulary.errors import InputError

QUERY_IDS = {
    "q1": "<dbpedia:Q/1>",
    "q2": "query two",
    "q3": "#q3",
    "q4": "問題 4",
    "q5": 'q5\t"tab"',
    "q6": "q6",
}
DOC_IDS = {
    "d1_0": "<dbpedia:AC/DC>",
    "d1_1": "doc with spaces",
    "d1_2": "tab\there",
    "d1_4": '"quoted" id',
    "d2_0": "ünï/cødé ☃ 文書",
    "d2_1": " lead and trail ",
    "d2_2": "back\\slash",
    "d3_0": "../../etc/passwd",
    "d3_1": "#hash",
    "d3_4": "a:b;c,d|e",
    "d4_0": "CON",
    "d4_1": "x" * 300,
    "d5_0": "new\nline",
    "d5_1": "emoji 😀 \u00a0nbsp",
    "d6_0": "\u0130stanbul",
}


def _rename(value: str, names: dict[str, str]) -> str:
    return names.get(value, value)


def make_awkward(root: Path) -> Path:
    """The classic fixture's folder with the ids above, written as a BEIR folder is:
    JSON lines (non-ASCII as itself) and a qrels TSV by the csv module (tabs quoted)."""
    beir = make_beir(root)
    for name, names in (("corpus.jsonl", DOC_IDS), ("queries.jsonl", QUERY_IDS)):
        objs = [json.loads(ln) for ln in (beir / name).read_text().splitlines()]
        for o in objs:
            o["_id"] = _rename(o["_id"], names)
        (beir / name).write_text(
            "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8"
        )
    path = beir / "qrels" / "test.tsv"
    rows = list(csv.reader(path.open(encoding="utf-8"), delimiter="\t"))
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(rows[0])
        writer.writerows([_rename(q, QUERY_IDS), _rename(d, DOC_IDS), g] for q, d, g in rows[1:])
    return beir


def _guideline(path: Path) -> Path:
    g = json.loads(write_guideline(path).read_text())
    g["queries"] = {_rename(q, QUERY_IDS): v for q, v in g["queries"].items()}
    path.write_text(json.dumps(g, ensure_ascii=False), encoding="utf-8")
    return path


def _rows(project: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _pairs(qrels: dict[str, dict[str, int]]) -> dict[tuple[str, str], int]:
    return {(q, d): g for q, ds in qrels.items() for d, g in ds.items()}


@pytest.mark.parametrize("fast", [True, False], ids=["arrow", "per-line"])
def test_store_holds_every_id_beir_loader_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    beir = make_awkward(tmp_path / "dbpedia")
    corpus, queries, qrels = GenericDataLoader(data_folder=str(beir)).load(split="test")
    assert set(DOC_IDS.values()) <= set(corpus) and set(QUERY_IDS.values()) <= set(queries)
    used: list[bool] = []
    real = beir_fast.read_corpus
    monkeypatch.setattr(beir_fast, "read_corpus", lambda f: used.append(True) or real(f))
    if not fast:
        monkeypatch.setattr(beir_fast, "MAX_BYTES", 0)
    project = tmp_path / "p"
    run_cli("init", project, "--admin-password", "pw-for-tests")
    ing = cli_json("ingest", project, "--beir", beir)
    assert ing["documents"] == len(corpus) and used == [True]
    assert (real(beir) is not None) is fast  # the fast path vouches for this folder
    stored = dict(_rows(project, "SELECT doc_id, text FROM pages WHERE page = 1"))
    assert stored == {d: (e["title"] + " " + e["text"]).strip() for d, e in corpus.items()}
    cli_json(
        "load", project, "--beir", beir, "--split", "test", "--relevant-from", 1,
        "--guideline", _guideline(tmp_path / "g.json"),
    )  # fmt: skip
    assert _rows(project, "SELECT query_id, text FROM queries ORDER BY position") == list(
        queries.items()
    )
    graded = _rows(project, "SELECT query_id, doc_id, grade FROM graded_qrels")
    assert {(q, d): g for q, d, g in graded} == _pairs(qrels)
    assert {q for (q,) in _rows(project, "SELECT query_id FROM conditions")} == set(queries)


def test_qrels_tsv_is_read_as_beir_reads_it(tmp_path: Path) -> None:
    beir = make_awkward(tmp_path / "b")
    _c, _q, qrels = GenericDataLoader(data_folder=str(beir)).load(split="test")
    got = read_any_qrels(beir / "qrels" / "test.tsv")  # what `score trec` reads
    assert {(q, d): g for q, d, g in got.itertuples(index=False)} == _pairs(qrels)
    assert "tab\there" in set(got["doc_id"])


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("awkward_campaign")
    d, beir = root / "proj", make_awkward(root / "dbpedia")
    run_cli("init", d, "--admin-password", "pw-for-tests")
    cli_json("ingest", d, "--beir", beir)
    cli_json(
        "load", d, "--beir", beir, "--split", "test", "--relevant-from", 1,
        "--guideline", _guideline(root / "guideline.json"),
    )  # fmt: skip
    c = run_campaign(d, root, cli_json)
    c.update(dir=d, beir=beir, root=root)
    return c


def test_finalize_writes_beir_tsv_and_no_trec_copy(campaign: dict[str, Any]) -> None:
    out, beir = campaign["root"] / "revised", campaign["beir"]
    fin = campaign["finalize"]
    assert fin["changed"] > 0 and len(TOPICS) == 6
    assert not (out / "qrels.txt").exists() and not (out / "qrels.after_audit.txt").exists()
    assert set(fin["outputs"]) == {
        "qrels.tsv", "qrels.after_audit.tsv", "qrels.jsonl", "queries.jsonl", "report.json",
        "manifest.json",
    }  # fmt: skip
    assert "tab\there" in fin["trec_unwritable_ids"] and "#q3" in fin["trec_unwritable_ids"]
    assert "<dbpedia:AC/DC>" not in fin["trec_unwritable_ids"]  # no whitespace: TREC-safe
    assert (
        (out / "qrels.tsv").read_text(encoding="utf-8").startswith("query-id\tcorpus-id\tscore\n")
    )
    jsonl = {
        (r["query_id"], r["doc_id"]): r["grade"]
        for r in map(json.loads, (out / "qrels.jsonl").read_text().splitlines())
    }
    for name in ("qrels.tsv", "qrels.after_audit.tsv"):
        loader = GenericDataLoader(data_folder=str(beir), qrels_file=str(out / name))
        _c, _q, qrels = loader.load_custom()
        assert _pairs(qrels) == jsonl
    original = GenericDataLoader(data_folder=str(beir)).load(split="test")[2]
    assert set(_pairs(original)) == set(jsonl)  # every id came back
    demoted = {
        (c["query_id"], c["doc_id"])
        for c in json.loads((out / "report.json").read_text())["changes"]
    }
    assert demoted and all(jsonl[k] == 0 for k in demoted)


def test_finalize_text_names_the_ids(campaign: dict[str, Any]) -> None:
    res = run_cli("finalize", campaign["dir"], "--out", campaign["root"] / "again")
    assert "no TREC copy (qrels.txt)" in res.stdout and "'#q3'" in res.stdout
    assert (campaign["root"] / "again" / "qrels.tsv").read_bytes() == (
        campaign["root"] / "revised" / "qrels.tsv"
    ).read_bytes()


ROWS = [
    {"query_id": "q1", "doc_id": "<dbpedia:AC/DC>", "grade": 1},
    {"query_id": "q 2", "doc_id": "d", "grade": 2},
    {"query_id": "#q3", "doc_id": "a\tb", "grade": 0},
    {"query_id": "q4", "doc_id": "x y", "grade": 1},
]


def test_a_trec_export_refuses_in_one_line_naming_the_ids() -> None:
    assert trec_unwritable(ROWS) == ["q 2", "#q3", "a\tb", "x y"]
    with pytest.raises(InputError) as exc:
        trec_qrels(ROWS)
    msg = str(exc.value.message)
    assert "\n" not in msg and "4 id(s)" in msg
    assert all(repr(i) in msg for i in ("q 2", "#q3", "a\tb", "x y"))
    assert "'q1'" not in msg and "AC/DC" not in msg
    with pytest.raises(InputError, match="cannot write the revised qrels as TREC"):
        revised_texts(ROWS, {"qrels.after_audit.txt": ROWS}, beir=False)
    texts, names, bad = revised_texts(ROWS, {"qrels.after_audit.txt": ROWS}, beir=True)
    assert set(texts) == {"qrels.tsv", "qrels.after_audit.tsv"} and bad == trec_unwritable(ROWS)
    assert names == ["qrels.after_audit.tsv", "qrels.tsv"]
    safe = ROWS[:1]
    texts, names, bad = revised_texts(safe, {"qrels.after_audit.txt": safe}, beir=True)
    assert texts["qrels.txt"] == "q1 0 <dbpedia:AC/DC> 1\n" and bad == []
    assert texts["qrels.tsv"] == "query-id\tcorpus-id\tscore\nq1\t<dbpedia:AC/DC>\t1\n"


def test_beir_tsv_round_trips_through_beir_loader(tmp_path: Path) -> None:
    rows = [{"query_id": q, "doc_id": d, "grade": i} for i, (q, d) in enumerate(
        zip(QUERY_IDS.values(), list(DOC_IDS.values())[:6], strict=True)
    )]  # fmt: skip
    path = tmp_path / "r.tsv"
    path.write_text(beir_tsv(rows), encoding="utf-8")
    for name in ("corpus.jsonl", "queries.jsonl"):
        (tmp_path / name).write_text("")
    qrels = GenericDataLoader(data_folder=str(tmp_path), qrels_file=str(path))
    qrels.check = lambda fIn, ext: None  # type: ignore[method-assign]
    qrels._load_qrels()
    assert _pairs(qrels.qrels) == {(r["query_id"], r["doc_id"]): r["grade"] for r in rows}
    with pytest.raises(InputError, match="carriage return"):
        beir_tsv([{"query_id": "a\rb", "doc_id": "d", "grade": 1}])
