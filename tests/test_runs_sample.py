"""The #18 run commands on the sample benchmark: examples/runs/make_runs.py's per-condition
and page-level runs regenerate identically, and `runs compose` (every method), `runs
support` and `score nclue`'s Gold+Support run on them (Gold+Support checked against the
brute-force loop of tests/test_runs_gold_support.py)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from tests.conftest import SAMPLE, run_cli
from tests.test_runs_gold_support import _brute

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "runs"
NAMES = ("conditions_pages.trec", "conditions_docs.trec", "pages.trec")


def test_sample_runs_regenerate_identically(tmp_path: Path) -> None:
    make = runpy.run_path(str(EXAMPLE / "make_runs.py"))["make"]
    for path in make(tmp_path):
        assert path.read_bytes() == (EXAMPLE / path.name).read_bytes(), path.name


@pytest.mark.parametrize(("method", "run"), [("min", "conditions_docs.trec"),
                         ("product", "conditions_docs.trec"), ("harmonic", "conditions_docs.trec"),
                         ("injective", "conditions_pages.trec")])  # fmt: skip
def test_runs_compose_runs_on_the_sample(tmp_path: Path, method: str, run: str) -> None:
    out = tmp_path / f"{method}.trec"
    rep = json.loads(run_cli("runs", "compose", "--queries", SAMPLE / "queries.jsonl",
                             "--method", method, "--run", EXAMPLE / run, "--out", out,
                             "--json").stdout)  # fmt: skip
    assert rep["queries"] == 30 and rep["queries_without_lists"] == 0
    assert {ln.split()[0] for ln in out.read_text().splitlines()} == {
        json.loads(x)["query_id"] for x in (SAMPLE / "queries.jsonl").read_text().splitlines()
    }
    scored = json.loads(run_cli("score", "nclue", "--queries", SAMPLE / "queries.jsonl",
                                "--qrels", SAMPLE / "qrels.txt", "--run", out, "--bootstrap",
                                "0", "--json").stdout)  # fmt: skip
    assert 0 < scored["runs"][f"compose_{method}"]["gold_hit"] <= 1


def test_gold_support_on_the_sample_page_run() -> None:
    queries = [json.loads(x) for x in (SAMPLE / "queries.jsonl").read_text().splitlines()]
    conditions = {q["query_id"]: [c["condition_id"] for c in q["conditions"]] for q in queries}
    n = {q: len(c) for q, c in conditions.items()}
    gold: dict[str, set[str]] = {q: set() for q in conditions}
    for line in (SAMPLE / "qrels.txt").read_text().splitlines():
        q, _, d, g = line.split()
        if int(g) == n[q]:
            gold[q].add(d)
    evidence: dict[tuple[str, str, str], set[int]] = {}
    for line in (SAMPLE / "evidence.jsonl").read_text().splitlines():
        e = json.loads(line)
        evidence.setdefault((e["query_id"], e["doc_id"], e["condition_id"]), set()).update(
            e["pages"]
        )
    rows = []
    for line in (EXAMPLE / "pages.trec").read_text().splitlines():
        q, _, docno, _, s, _ = line.split()
        d, _, p = docno.rpartition("#")
        rows.append((q, d, int(p), float(s)))
    success, hit, covered, pairs = _brute(conditions, gold, evidence, rows, 10, 3)
    common = ["--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt",
              "--evidence", SAMPLE / "evidence.jsonl"]  # fmt: skip
    sup = json.loads(run_cli("runs", "support", *common, "--run", EXAMPLE / "pages.trec",
                             "--json").stdout)["runs"]["bm25_pages"]  # fmt: skip
    assert (sup["counts"]["gold_support"], sup["counts"]["gold_hit"]) == (success, hit)
    assert (sup["counts"]["covered_pairs"], sup["counts"]["condition_pairs"]) == (covered, pairs)
    assert 0 < success < hit
    rep = json.loads(run_cli("score", "nclue", *common, "--run", EXAMPLE / "pages.trec",
                             "--run", SAMPLE / "runs/bm25_doc.trec", "--bootstrap", "0",
                             "--json").stdout)  # fmt: skip
    assert rep["gold_support"]["runs"] == {"bm25_pages": sup}  # the document run has none
    assert rep["runs"]["bm25_pages"]["gold_hit"] == hit / 30
