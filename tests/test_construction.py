"""Construction invariants on the committed sample benchmark and on a rebuild of it.

Page text is re-extracted here with plain PyMuPDF (no construction code), so the
clue counts and evidence are checked against the PDFs themselves.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from sample_packets.construction.aliases import concept_key, occurs, plural, singular
from sample_packets.construction.grading import clue_grade
from vocabulary.grades import distinct_page_assignment
from vocabulary.textnorm import normalize

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_packets"
OUTPUTS = [
    "queries.jsonl",
    "qrels.txt",
    "qrels.jsonl",
    "evidence.jsonl",
    "runs/bm25_doc.trec",
    "runs/bm25_and.trec",
    "runs/bm25_page.trec",
    "runs/rrf.trec",
]
CONDITION_FIELDS = {
    "condition_id",
    "name",
    "requirement",
    "counts",
    "does_not_count",
    "note",
    "aliases",
}


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def pages() -> dict[str, list[str]]:
    """doc_id -> normalized page texts, straight from the committed PDFs."""
    out = {}
    for pdf in sorted((SAMPLE / "pdfs").glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            out[pdf.stem] = [normalize(p.get_text()) for p in doc]
    return out


@pytest.fixture(scope="module")
def queries() -> dict[str, dict[str, Any]]:
    return {q["query_id"]: q for q in _jsonl(SAMPLE / "queries.jsonl")}


@pytest.fixture(scope="module")
def qrels() -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for line in (SAMPLE / "qrels.txt").read_text().splitlines():
        qid, zero, doc, grade = line.split()
        assert zero == "0" and (qid, doc) not in out
        out[(qid, doc)] = int(grade)
    return out


@pytest.fixture(scope="module")
def evidence() -> dict[tuple[str, str], dict[str, list[int]]]:
    out: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(dict)
    for e in _jsonl(SAMPLE / "evidence.jsonl"):
        assert e["condition_id"] not in out[(e["query_id"], e["doc_id"])]
        out[(e["query_id"], e["doc_id"])][e["condition_id"]] = e["pages"]
    return out


def test_sample_size_and_sources(pages: dict[str, list[str]]) -> None:
    pdfs = sorted((SAMPLE / "pdfs").glob("*.pdf"))
    assert 10 <= len(pdfs) <= 20
    assert sum(p.stat().st_size for p in pdfs) <= 15 * 1024 * 1024
    sources = (SAMPLE / "SOURCES.md").read_text(encoding="utf-8")
    for p in pdfs:
        assert f"| {p.stem} |" in sources
        # Every PDF yields real text on most pages (PyMuPDF extracts it well).
        texts = pages[p.stem]
        assert sum(len(t) > 200 for t in texts) >= 0.8 * len(texts)


def test_query_rubric_fields(queries: dict[str, dict[str, Any]]) -> None:
    assert 25 <= len(queries) <= 40
    seen_cids: set[str] = set()
    for q in queries.values():
        assert set(q) == {"query_id", "text", "release", "source", "conditions"}
        assert q["text"] and q["release"] in {"CrossPage", "SourceShift"} and q["source"]
        assert len(q["conditions"]) in (2, 3)
        for c in q["conditions"]:
            assert set(c) == CONDITION_FIELDS
            assert c["requirement"].startswith("The page must")
            assert c["counts"] and all(isinstance(x, str) and x for x in c["counts"])
            assert any("index" in x for x in c["does_not_count"])
            assert isinstance(c["aliases"], list) and c["note"]
            assert c["condition_id"] not in seen_cids
            seen_cids.add(c["condition_id"])
    # Both strata exist for stratified sampling.
    assert {q["release"] for q in queries.values()} == {"CrossPage", "SourceShift"}
    assert len({q["source"] for q in queries.values()}) == 3


def test_doc_ids_are_pdf_stems(
    pages: dict[str, list[str]], qrels: dict[tuple[str, str], int]
) -> None:
    docs = {d for _, d in qrels}
    for e in _jsonl(SAMPLE / "evidence.jsonl"):
        docs.add(e["doc_id"])
    for run in (SAMPLE / "runs").glob("*.trec"):
        docs |= {line.split()[2] for line in run.read_text().splitlines()}
    assert docs <= set(pages)


def test_qrels_jsonl_matches_trec(qrels: dict[tuple[str, str], int]) -> None:
    rows = _jsonl(SAMPLE / "qrels.jsonl")
    assert {(r["query_id"], r["doc_id"]): r["grade"] for r in rows} == qrels
    assert len(rows) == len(qrels) >= 200


def test_clue_counts_equal_evidence_and_gold_gates(
    queries: dict[str, dict[str, Any]],
    qrels: dict[tuple[str, str], int],
    evidence: dict[tuple[str, str], dict[str, list[int]]],
) -> None:
    assert set(evidence) == set(qrels)
    golds: dict[str, int] = defaultdict(int)
    subsets: dict[str, int] = defaultdict(int)
    for (qid, doc), grade in qrels.items():
        n = len(queries[qid]["conditions"])
        ev = evidence[(qid, doc)]
        assert 1 <= grade <= n
        assert all(ev.values())
        sets = [set(p) for p in ev.values()]
        single_page = bool(set.intersection(*sets)) if len(ev) == n else False
        hall = distinct_page_assignment(ev) is not None
        if grade == n:
            golds[qid] += 1
            # Gold: every condition has pages, distinct-page assignment, no all-condition page.
            assert len(ev) == n and hall and not single_page
        elif len(ev) == n:
            # All conditions present but a gate fails: stays partial at n-1.
            assert grade == n - 1 and (single_page or not hall)
            subsets[qid] += 1
        else:
            assert grade == len(ev)
            subsets[qid] += 1
        assert clue_grade(n, ev) == grade
    for qid in queries:
        assert golds[qid] >= 1, qid
        assert subsets[qid] >= 3, qid


def test_evidence_is_exactly_where_the_forms_occur(
    pages: dict[str, list[str]],
    queries: dict[str, dict[str, Any]],
    evidence: dict[tuple[str, str], dict[str, list[int]]],
) -> None:
    """Every page of every document: counted iff a name/alias occurs (nonzero qrels exhaustive)."""
    for qid, q in queries.items():
        for c in q["conditions"]:
            forms = [c["name"], *c["aliases"]]
            for doc, texts in pages.items():
                # the sample was built with rule 1 (ConstructionConfig.rules)
                want = [i for i, t in enumerate(texts, start=1) if occurs(forms, t, False)]
                got = evidence.get((qid, doc), {}).get(c["condition_id"], [])
                assert got == want, (qid, c["condition_id"], doc)
                for i in got:  # the rule implies a plain substring match of some form
                    assert any(normalize(f) in texts[i - 1] for f in forms)


def test_runs(queries: dict[str, dict[str, Any]]) -> None:
    runs = sorted((SAMPLE / "runs").glob("*.trec"))
    assert len(runs) >= 3
    for run in runs:
        by_q: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for line in run.read_text().splitlines():
            qid, q0, _doc, rank, score, tag = line.split()
            assert q0 == "Q0" and tag == run.stem and qid in queries
            by_q[qid].append((int(rank), float(score)))
        for rows in by_q.values():
            assert [r for r, _ in rows] == list(range(1, len(rows) + 1)) and len(rows) <= 100
            scores = [s for _, s in rows]
            assert scores == sorted(scores, reverse=True)


def test_rebuild_is_byte_identical(tmp_path: Path) -> None:
    sys.path.insert(0, str(SAMPLE))
    try:
        import build  # sample_packets/build.py
    finally:
        sys.path.remove(str(SAMPLE))
    build.build(tmp_path, workers=2)
    for name in OUTPUTS:
        assert (tmp_path / name).read_bytes() == (SAMPLE / name).read_bytes(), name


def test_grade_gates_unit() -> None:
    assert clue_grade(2, {"a": [1], "b": [2]}) == 2
    assert clue_grade(2, {"a": [1, 2], "b": [2]}) == 1  # page 2 holds both: single-page solvable
    assert clue_grade(3, {"a": [1], "b": [1], "c": [2]}) == 2  # Hall fails: a, b share one page
    assert clue_grade(3, {"a": [1, 2], "b": [1, 3], "c": [2, 3]}) == 3
    assert clue_grade(3, {"a": [4], "b": [], "c": [5]}) == 2


def test_alias_rules_unit() -> None:
    assert singular("references") == "reference" and plural("entry") == "entries"
    key = concept_key("table of contents")
    assert key == concept_key("\\tableofcontents") == concept_key("Table-of-Content")
    assert occurs(["\\foo"], "use \\foo{x}") and not occurs(["\\foo"], "use \\foobar")
    assert occurs(["page break"], "a page break.") and not occurs(["page break"], "page breaks")
