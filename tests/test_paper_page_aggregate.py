"""Page aggregation of page-level runs (`score nclue --page-aggregate max|top3|topk:K`, the
supplement's ptop3) against a brute force: each document's mean of its K best page scores,
written as a document run and scored as one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scorers.gold_support import document_rows
from scorers.page_aggregate import aggregate_pages, parse_page_aggregate
from tests.conftest import SAMPLE, run_cli

ROOT = Path(__file__).resolve().parents[1]
PAGE_RUN = ROOT / "examples" / "runs" / "pages.trec"


def _brute(rows: list[tuple[str, str, float]], top: int) -> list[tuple[str, str, float]]:
    """Per query: documents by the mean of their top pages, ties by best-page order."""
    ranked = sorted(range(len(rows)), key=lambda i: (-rows[i][2], i))  # pages, file-order ties
    out = []
    for q in dict.fromkeys(r[0] for r in rows):
        firsts: list[str] = []
        scores: dict[str, list[float]] = {}
        for i in ranked:
            qq, d, s = rows[i]
            if qq != q:
                continue
            if d not in scores:
                firsts.append(d)
                scores[d] = []
            scores[d].append(s)
        means = {d: float(np.mean(scores[d][:top])) for d in firsts}
        docs = sorted(firsts, key=lambda d: (-means[d], firsts.index(d)))
        out += [(q, d, means[d]) for d in docs]
    return out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("top", [1, 2, 3, 5])
def test_aggregate_pages_equals_brute_force(seed: int, top: int) -> None:
    rng = np.random.default_rng(seed)
    rows = [(f"q{rng.integers(3)}", f"d{rng.integers(6)}", float(rng.integers(0, 5)))
            for _ in range(60)]  # fmt: skip
    keep, agg = aggregate_pages([r[0] for r in rows], [r[1] for r in rows],
                                [r[2] for r in rows], top)  # fmt: skip
    got = [(rows[i][0], rows[i][1], float(a)) for i, a in zip(keep, agg, strict=True)]
    want = _brute(rows, top)
    for q in {r[0] for r in rows}:
        g, w = [x for x in got if x[0] == q], [x for x in want if x[0] == q]
        assert [x[:2] for x in g] == [x[:2] for x in w]
        assert [x[2] for x in g] == pytest.approx([x[2] for x in w], abs=1e-12)
    if top == 1:  # MaxSim is the best-page rule of Gold+Support
        assert keep.tolist() == document_rows([r[0] for r in rows], [r[1] for r in rows],
                                              [r[2] for r in rows]).tolist()  # fmt: skip


def test_parse_page_aggregate() -> None:
    assert [parse_page_aggregate(x) for x in ("max", "top3", "topk:1", "topk:7")] == [1, 3, 1, 7]
    for bad in ("top", "topk:", "topk:0", "topk:x", "mean"):
        with pytest.raises(ValueError):
            parse_page_aggregate(bad)


@pytest.mark.parametrize("agg,top", [("top3", 3), ("topk:2", 2), ("max", 1)])
def test_score_nclue_page_aggregate_equals_the_brute_force_document_run(
    tmp_path: Path, agg: str, top: int
) -> None:
    rows = []
    for line in PAGE_RUN.read_text().splitlines():
        q, _, docno, _, s, _ = line.split()
        rows.append((q, docno.split("#")[0], float(s)))
    doc_run = tmp_path / "docs.trec"
    per_q: dict[str, int] = {}
    lines = []
    for q, d, s in _brute(rows, top):
        per_q[q] = per_q.get(q, 0) + 1
        lines.append(f"{q} Q0 {d} {per_q[q]} {s!r} pages")
    doc_run.write_text("\n".join(lines) + "\n")
    base = ["score", "nclue", "--queries", SAMPLE / "queries.jsonl", "--qrels",
            SAMPLE / "qrels.txt", "--bootstrap", "0", "--json"]  # fmt: skip
    paged = json.loads(run_cli(*base, "--run", f"pages={PAGE_RUN}", "--evidence",
                               SAMPLE / "evidence.jsonl", "--page-aggregate", agg).stdout)  # fmt: skip
    plain = json.loads(run_cli(*base, "--run", f"pages={doc_run}").stdout)
    for m in ("nclue", "gold_hit", "gold_ndcg", "ndcg", "outcomes"):
        assert paged["runs"]["pages"][m] == plain["runs"]["pages"][m], m
    assert paged["page_aggregate"] == agg and paged["page_top"] == top
    if top == 3:  # ptop3 ranks the documents differently from MaxSim on this run
        mx = json.loads(run_cli(*base, "--run", f"pages={PAGE_RUN}", "--evidence",
                                SAMPLE / "evidence.jsonl").stdout)  # fmt: skip
        assert mx["runs"]["pages"]["ndcg"] != paged["runs"]["pages"]["ndcg"]


def test_page_aggregate_bad_value() -> None:
    res = run_cli("score", "nclue", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                  SAMPLE / "qrels.txt", "--run", PAGE_RUN, "--page-aggregate", "top", expect=2)  # fmt: skip
    assert "--page-aggregate 'top' is not max, top3 or topk:K" in res.output


def test_diagnostics_score_page_runs_as_nclue_does() -> None:
    base = ["--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt"]
    runs = ["--run", f"pages={PAGE_RUN}", "--run", SAMPLE / "runs" / "rrf.trec"]
    mr = json.loads(run_cli("score", "metric-ranking", *base, *runs, "--page-aggregate", "top3",
                            "--json").stdout)  # fmt: skip
    nc = json.loads(run_cli("score", "nclue", *base, *runs, "--evidence",
                            SAMPLE / "evidence.jsonl", "--page-aggregate", "top3",
                            "--bootstrap", "0", "--json").stdout)  # fmt: skip
    for m in ("nclue", "gold_hit", "gold_ndcg", "ndcg"):
        assert mr["means"]["pages"][m] == pytest.approx(nc["runs"]["pages"][m], abs=1e-15)
    assert mr["means"]["pages"]["gold_hit"] > 0  # scored as documents, not as doc#page ids
