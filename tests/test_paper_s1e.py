"""Table S1e's dNDCG column is the Gold-NDCG difference (the n-Clue supplement, Table S1e).

A case built so that Gold-NDCG and graded NDCG differ: every query has one gold (grade 2)
and one subset (grade 1); the base ranks the subset first, the variant the gold.
"""

from __future__ import annotations

import itertools
import math

import pytest

from scorers.runs import bind_qrels, measure, rank_run
from scorers.runs.selection import selection_report


def _case():
    qids = ["q1", "q2", "q3"]
    n = [2, 2, 2]
    rows = [(q, f"g{q}", 2) for q in qids] + [(q, f"s{q}", 1) for q in qids]
    b = bind_qrels(qids, n, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], k=10)
    base = [(q, d, s) for q in qids for d, s in ((f"s{q}", 2.0), (f"g{q}", 1.0))]
    # the variant fixes q1 and q2 only
    variant = [(q, d, s) for q in ("q1", "q2") for d, s in ((f"g{q}", 2.0), (f"s{q}", 1.0))]
    variant += [("q3", "sq3", 2.0), ("q3", "gq3", 1.0)]
    scored = {}
    for tag, rr in (("base", base), ("variant", variant)):
        top = rank_run(b, [r[0] for r in rr], [r[1] for r in rr], [r[2] for r in rr])
        scored[tag] = measure(b, top)
    return b, scored


def test_s1e_dndcg_column_is_the_gold_ndcg_difference() -> None:
    b, scored = _case()
    rep = selection_report(b, scored, [("fix", "base", ["variant"])], draws=50, bootstrap=20)
    # by hand: gold at rank 2 -> 1/log2(3); at rank 1 -> 1 (ideal gold DCG = 1)
    d_gold = 2 * (1 - 1 / math.log2(3)) / 3
    # graded: ideal 2 + 1/log2(3); base 1 + 2/log2(3); variant = ideal
    ideal = 2 + 1 / math.log2(3)
    d_graded = 2 * (1 - (1 + 2 / math.log2(3)) / ideal) / 3
    text = rep.to_text()
    head, first = text.splitlines()[1], text.splitlines()[3]
    heads = [c.strip() for c in head.split("  ") if c.strip()]
    cells = [c.strip() for c in first.split("  ") if c.strip()]
    col = next(i for i, h in enumerate(heads) if h.startswith("dNDCG"))
    assert cells[col] == f"{100 * d_gold:+.1f}" == "+24.6"  # the old column printed +9.4
    assert heads[col] == "dNDCG (Gold-NDCG)" and heads[col + 1] == "d graded NDCG"
    assert cells[col + 1] == f"{100 * d_graded:+.1f}" == "+9.4"
    (row,) = rep.s1e()
    assert row.d_gold_ndcg == pytest.approx(d_gold, abs=1e-12)
    assert row.d_graded_ndcg == pytest.approx(d_graded, abs=1e-12)
    assert row.d_nclue == pytest.approx(2 / 3)
    assert rep.rows()[0]["d_gold_ndcg"] == row.d_gold_ndcg


def test_every_ndcg_column_says_which_ndcg(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import re

    from tests.conftest import SAMPLE, run_cli

    base = ["--queries", SAMPLE / "queries.jsonl", "--run", SAMPLE / "runs" / "bm25_doc.trec",
            "--run", SAMPLE / "runs" / "rrf.trec", "--bootstrap", "20"]  # fmt: skip
    q = ["--qrels", SAMPLE / "qrels.txt"]
    outs = [
        run_cli("score", "nclue", *base, *q).stdout,
        run_cli(
            "score",
            "compare",
            *base,
            *q,
            "--pair",
            "bm25_doc:rrf",
            "--draws",
            "50",
            "--block",
            "B=bm25_doc:rrf",
        ).stdout,
        run_cli(
            "score",
            "impact",
            *base,
            "--qrels-before",
            SAMPLE / "qrels.txt",
            "--qrels-after",
            SAMPLE / "qrels.jsonl",
            "--pair",
            "bm25_doc:rrf",
            "--draws",
            "50",
            "--metric",
            "ndcg",
        ).stdout,
    ]
    seen = 0
    for out in outs:
        lines = out.splitlines()
        for head, rule in itertools.pairwise(lines):
            if not set(rule) <= {"-", " "} or "-" not in rule:
                continue
            for col in re.split(r"\s{2,}", head.strip()):
                if "NDCG" in col.upper():
                    seen += 1
                    assert "Gold-NDCG" in col or "graded NDCG" in col, (col, head)
        for line in lines:
            if "ndcg" in line and ("ranks above by" in line or line.startswith("Paired")):
                raise AssertionError(line)
    assert seen >= 7
