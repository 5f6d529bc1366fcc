"""`runs bm25` and `runs floor`: baseline runs made from an ingested corpus.

BM25 is checked against plain references written from the formulas (Lucene's and
Robertson's) and against rank_bm25 where the two agree by definition; the depth cut's
tie rule against a brute-force sort; the page runs feed Gold+Support and scoring; the
floors against their definitions.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from campaign import store
from packet_builder.routes.base import tokenize
from scorers.lexical import BM25Index, random_scores, top_units
from tests.classic_fixture import TOPICS, make_beir, write_guideline
from tests.conftest import SAMPLE, cli_json, run_cli

WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"])
DOCS = st.lists(st.lists(WORDS, min_size=0, max_size=12), min_size=1, max_size=12)


def _plain(
    docs: list[list[str]], query: list[str], k1: float, b: float, method: str
) -> list[float]:
    """BM25 from its formula: Lucene's idf ln(1 + (N - df + .5) / (df + .5)); Robertson's
    ln((N - df + .5) / (df + .5)) floored at 0; tf / (tf + k1 (1 - b + b dl / avgdl))."""
    n = len(docs)
    avg = sum(map(len, docs)) / n
    out = []
    for d in docs:
        tf = Counter(d)
        s = 0.0
        for t in query:
            df = sum(t in x for x in docs)
            if not df or not tf[t]:
                continue
            inner = (n - df + 0.5) / (df + 0.5)
            idf = math.log(1 + inner) if method == "lucene" else math.log(max(inner, 1.0))
            s += idf * tf[t] / (tf[t] + k1 * (1 - b + b * len(d) / avg))
        out.append(s)
    return out


@settings(max_examples=150, deadline=None)
@given(DOCS, st.lists(WORDS, min_size=1, max_size=5),
       st.sampled_from([(0.9, 0.4), (1.2, 0.75), (0.8, 0.2)]),
       st.sampled_from(["lucene", "robertson"]))  # fmt: skip
def test_bm25_equals_its_formula(docs, query, params, method) -> None:  # type: ignore[no-untyped-def]
    if not any(docs):
        return
    k1, b = params
    got = BM25Index(docs, k1=k1, b=b, method=method).scores(query)
    assert got.tolist() == pytest.approx(_plain(docs, query, k1, b, method), rel=1e-12, abs=1e-12)


RARE = st.sampled_from([f"w{i}" for i in range(40)])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(RARE, min_size=1, max_size=6), min_size=4, max_size=12),
       st.lists(RARE, min_size=1, max_size=4))  # fmt: skip
def test_robertson_is_rank_bm25_scaled_where_no_idf_is_negative(docs, query) -> None:  # type: ignore[no-untyped-def]
    """rank_bm25's BM25Okapi is Robertson's BM25 times (k1 + 1), except where a term is in
    half the documents or more (it then uses epsilon times the mean idf; bm25s uses 0)."""
    n = len(docs)
    assume(all(sum(t in d for d in docs) < n / 2 for d in docs for t in d))
    ref = BM25Okapi(docs, k1=1.5, b=0.75).get_scores(query)
    got = BM25Index(docs, k1=1.5, b=0.75, method="robertson").scores(query) * 2.5
    assert got.tolist() == pytest.approx(ref.tolist(), rel=1e-12, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=0, max_size=30),
       st.integers(min_value=1, max_value=12), st.booleans())  # fmt: skip
def test_top_units_is_the_brute_force_order(scores, depth, keep_zero) -> None:  # type: ignore[no-untyped-def]
    arr = np.asarray(scores, dtype=np.float64)
    want = sorted((i for i in range(len(arr)) if keep_zero or arr[i] != 0),
                  key=lambda i: (-arr[i], i))[:depth]  # fmt: skip
    got = top_units(arr, depth, keep_zero=keep_zero)
    assert got.units.tolist() == want
    assert got.scores.tolist() == [arr[i] for i in want]


def test_random_floor_is_seeded_per_query() -> None:
    a = random_scores(50, 7, "q1")
    assert sorted(a.tolist()) == list(range(1, 51))
    assert a.tolist() == random_scores(50, 7, "q1").tolist()
    assert a.tolist() != random_scores(50, 8, "q1").tolist()
    assert a.tolist() != random_scores(50, 7, "q2").tolist()


@pytest.fixture(scope="module")
def beir_project(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("baseline")
    d, beir = root / "proj", make_beir(root / "beir")
    run_cli("init", d, "--admin-password", "pw-for-tests")
    run_cli("ingest", d, "--beir", beir)
    run_cli("load", d, "--beir", beir, "--split", "test", "--relevant-from", 1,
            "--guideline", write_guideline(root / "guideline.json"))  # fmt: skip
    return {"dir": d, "root": root}


def _lines(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text().splitlines()]


def test_bm25_document_run_equals_the_reference(beir_project: dict[str, Any]) -> None:
    d, root = beir_project["dir"], beir_project["root"]
    out = root / "bm25.trec"
    rep = cli_json("runs", "bm25", d, "--out", out, "--depth", "7")
    assert rep["kind"] == "bm25" and rep["level"] == "document" and rep["queries"] == 6
    with store.connect(d / "audit.duckdb", read_only=True) as con:
        units: dict[str, str] = {}
        for batch in store.page_batches(con):
            for doc, _page, text in batch:
                units[doc] = units[doc] + "\n" + text if doc in units else text
    ids = list(units)
    docs = [tokenize(units[u]) for u in ids]
    lines = _lines(out)
    for qi, topic in enumerate(TOPICS, start=1):
        query = tokenize(f"What is known about {topic}?")
        ref = _plain(docs, query, 0.9, 0.4, "lucene")
        order = sorted((i for i in range(len(ids)) if ref[i] != 0), key=lambda i: (-ref[i], i))[:7]
        got = [ln for ln in lines if ln[0] == f"q{qi}"]
        assert [g[2] for g in got] == [ids[i] for i in order]
        assert [int(g[3]) for g in got] == list(range(1, len(order) + 1))
        assert [float(g[4]) for g in got] == pytest.approx([ref[i] for i in order], rel=1e-12)
        assert {g[5] for g in got} == {"bm25_document_raw"}
        # The passages that name the topic lead its list.
        assert {g[2] for g in got[:4]} == {f"d{qi}_{j}" for j in range(4)}


def test_forms_change_the_query_text(beir_project: dict[str, Any]) -> None:
    d, root = beir_project["dir"], beir_project["root"]
    a, b = root / "raw.trec", root / "natural.trec"
    cli_json("runs", "bm25", d, "--out", a, "--form", "raw")
    rep = cli_json("runs", "bm25", d, "--out", b, "--form", "natural", "--k1", "1.2", "--b", "0.75")
    assert rep["params"] == {"form": "natural", "k1": 1.2, "b": 0.75, "method": "lucene",
                             "depth": 1000}  # fmt: skip
    assert a.read_text() != b.read_text()


def test_floors(beir_project: dict[str, Any]) -> None:
    d, root = beir_project["dir"], beir_project["root"]
    freq = root / "freq.trec"
    rep = cli_json("runs", "floor", d, "--kind", "frequency", "--out", freq, "--depth", "5")
    assert rep["lines"] == 6 * 5
    with store.connect(d / "audit.duckdb", read_only=True) as con:
        counts = Counter(doc for _q, doc, g in
                         con.execute("SELECT query_id, doc_id, grade FROM qrels").fetchall()
                         if g >= 1)  # fmt: skip
        docs = [
            r[0] for r in con.execute("SELECT doc_id FROM documents ORDER BY doc_id").fetchall()
        ]
    want = sorted(docs, key=lambda x: (-counts.get(x, 0), docs.index(x)))[:5]
    by_q: dict[str, list[str]] = {}
    for q, _z, doc, _r, _s, _t in _lines(freq):
        by_q.setdefault(q, []).append(doc)
    assert all(v == want for v in by_q.values()) and len(by_q) == 6
    r1, r2, r3 = root / "r1.trec", root / "r2.trec", root / "r3.trec"
    cli_json("runs", "floor", d, "--kind", "random", "--seed", "3", "--out", r1)
    cli_json("runs", "floor", d, "--kind", "random", "--seed", "3", "--out", r2)
    cli_json("runs", "floor", d, "--kind", "random", "--seed", "4", "--out", r3)
    assert r1.read_text() == r2.read_text() != r3.read_text()
    assert len(_lines(r1)) == 6 * len(docs)
    res = run_cli("runs", "floor", d, "--kind", "frequency", "--level", "page", "--out", r3,
                  expect=2)  # fmt: skip
    assert "frequency floor ranks documents" in res.stderr


def test_bm25_refuses_an_empty_project_and_a_missing_folder(project: Path, tmp_path: Path) -> None:
    res = run_cli("runs", "bm25", project, "--out", tmp_path / "x.trec", expect=2)
    assert "no queries" in res.stderr or "no ingested text" in res.stderr
    assert not (tmp_path / "x.trec").exists()


def test_page_runs_feed_gold_support_on_the_sample(tmp_path: Path) -> None:
    d = tmp_path / "proj"
    run_cli("init", d, "--admin-password", "pw-for-tests")
    run_cli("ingest", d, "--pdf-dir", SAMPLE / "pdfs", "--workers", "2")
    run_cli("load", d, "--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt",
            "--evidence", SAMPLE / "evidence.jsonl")  # fmt: skip
    pages = tmp_path / "pages.trec"
    rep = cli_json("runs", "bm25", d, "--level", "page", "--form", "clean_v2", "--out", pages,
                   "--depth", "100")  # fmt: skip
    assert rep["level"] == "page" and rep["lines"] > 0
    assert all("#" in ln[2] for ln in _lines(pages))
    doc = tmp_path / "doc.trec"
    cli_json("runs", "bm25", d, "--out", doc, "--form", "clean_v2", "--depth", "100")
    support = cli_json("runs", "support", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                       SAMPLE / "qrels.txt", "--evidence", SAMPLE / "evidence.jsonl", "--run",
                       pages)  # fmt: skip
    assert support
    raw = tmp_path / "raw.trec"
    cli_json("runs", "bm25", d, "--out", raw, "--form", "raw", "--depth", "100")
    fused = tmp_path / "rrf.trec"
    cli_json("runs", "fuse", "--run", f"clean={doc}", "--run", f"raw={raw}", "--out", fused)
    assert fused.stat().st_size > 0
    scored = cli_json("score", "nclue", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                      SAMPLE / "qrels.txt", "--run", f"bm25={doc}", "--bootstrap", "0")  # fmt: skip
    assert 0 < scored["runs"]["bm25"]["gold_hit"] <= 1


def _brute_coverage(
    d: Path, depth: int, k1: float, b: float, relevant_from: int
) -> tuple[int, int]:
    """(covered, queries) by ranking every document with the plain formula."""
    with store.connect(d / "audit.duckdb", read_only=True) as con:
        units: dict[str, str] = {}
        for batch in store.page_batches(con):
            for doc, _page, text in batch:
                units[doc] = units[doc] + "\n" + text if doc in units else text
        qrels = con.execute("SELECT query_id, doc_id, grade FROM qrels").fetchall()
        qtext = dict(con.execute("SELECT query_id, text FROM queries").fetchall())
    ids = list(units)
    docs = [tokenize(units[u]) for u in ids]
    need: dict[str, set[str]] = {}
    for q, doc, g in qrels:
        if g >= relevant_from:
            need.setdefault(q, set()).add(doc)
    covered = 0
    for q, docs_needed in need.items():
        s = _plain(docs, tokenize(qtext[q]), k1, b, "lucene")
        top = sorted((i for i in range(len(ids)) if s[i] != 0), key=lambda i: (-s[i], i))[:depth]
        covered += docs_needed <= {ids[i] for i in top}
    return covered, len(need)


@pytest.fixture(scope="module")
def coverage_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight topics, each with two relevant passages that name it more or less often
    among distractors, so coverage grows with K and moves with k1 and b."""
    import random

    rng = random.Random(3)
    root = tmp_path_factory.mktemp("calibrate")
    beir = root / "beir"
    (beir / "qrels").mkdir(parents=True)
    topics = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "heath"]
    corpus, qrels = [], []
    for t in topics:
        for j in range(4):
            words = [rng.choice(topics) for _ in range(rng.randint(3, 30))]
            words += [t] * (4 - j) * (j < 2) + ["filler"] * rng.randint(0, 40)
            rng.shuffle(words)
            corpus.append({"_id": f"{t}{j}", "title": "", "text": " ".join(words)})
            if j < 2:
                qrels.append(f"{t}\t{t}{j}\t1\n")
    (beir / "corpus.jsonl").write_text("".join(json.dumps(c) + "\n" for c in corpus))
    (beir / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": t, "text": f"{t} {t}"}) + "\n" for t in topics)
    )
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(qrels))
    guideline = root / "guideline.json"
    guideline.write_text(json.dumps({"default": {"requirement": "The passage names it."}}))
    d = root / "proj"
    run_cli("init", d, "--admin-password", "pw-for-tests")
    run_cli("ingest", d, "--beir", beir)
    run_cli("load", d, "--beir", beir, "--split", "test", "--relevant-from", 1,
            "--guideline", guideline)  # fmt: skip
    return d


@pytest.mark.parametrize("target", [0.5, 0.75, 1.0])
def test_orbit_calibrate_equals_brute_force(coverage_project: Path, target: float) -> None:
    d = coverage_project
    res = run_cli("orbit", "calibrate", d, "--depth", "2,3,4,6,32", "--k1", "0.3,1.2,3",
                  "--b", "0,0.75,1", "--target", target, "--json", expect=None)  # fmt: skip
    rep = json.loads(res.stdout)
    assert len(rep["grid"]) == 5 * 3 * 3
    for cell in rep["grid"]:
        want = _brute_coverage(d, cell["depth"], cell["k1"], cell["b"], 1)
        assert (cell["covered"], cell["queries"]) == want, cell
    assert len({c["coverage"] for c in rep["grid"]}) > 3  # the grid is not flat
    meeting = [c for c in rep["grid"] if c["coverage"] >= target]
    if not meeting:
        assert rep["chosen"] is None and res.exit_code == 1
        return
    assert res.exit_code == 0
    k = min(c["depth"] for c in meeting)
    best = max(c["coverage"] for c in meeting if c["depth"] == k)
    first = next(c for c in rep["grid"] if c["depth"] == k and c["coverage"] == best)
    assert rep["chosen"] == first


def test_calibration_selection_rule() -> None:
    from scorers.orbit.calibration import Cell, select

    cells = [Cell(100, 0.9, 0.4, 8, 10), Cell(200, 0.8, 0.2, 9, 10), Cell(200, 0.9, 0.4, 10, 10),
             Cell(200, 1.2, 0.75, 10, 10), Cell(500, 0.8, 0.2, 10, 10)]  # fmt: skip
    assert select(cells, 0.9) == Cell(200, 0.9, 0.4, 10, 10)
    assert select(cells, 0.8) == Cell(100, 0.9, 0.4, 8, 10)
    assert select(cells, 1.01) is None
