"""Run measures: agreement with pytrec_eval, hand-computed outcomes, ties, missing queries."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

from scorers.runs import bind_qrels, measure, rank_run, summarize

LOG2_3 = math.log2(3)


def _bound(qrels: list[tuple[str, str, int]], n: dict[str, int], k: int = 10):
    qids = list(n)
    return bind_qrels(
        qids,
        [n[q] for q in qids],
        [r[0] for r in qrels],
        [r[1] for r in qrels],
        [r[2] for r in qrels],
        k=k,
    )


def _score(bound, run: list[tuple[str, str, float]], ties: str = "file"):
    top = rank_run(bound, [r[0] for r in run], [r[1] for r in run], [r[2] for r in run], ties=ties)
    return measure(bound, top)


def _generated(seed: int, n_queries: int = 60, with_ties: bool = False):
    """Random graded qrels (0..n) and runs; distinct scores unless with_ties."""
    rng = np.random.default_rng(seed)
    n = {f"q{i:03d}": int(rng.integers(1, 5)) for i in range(n_queries)}
    qrels, run = [], []
    for q, nq in n.items():
        for d in rng.choice(300, 40, replace=False):
            qrels.append((q, f"d{d:04d}", int(rng.integers(0, nq + 1))))
        # Every query gets a gold so pytrec_eval's gold-only qrels keep every query.
        qrels.append((q, "gold-extra", nq))
        docs = list(rng.choice(300, 80, replace=False))
        scores = rng.integers(0, 5, len(docs)) if with_ties else rng.permutation(len(docs))
        run += [(q, f"d{d:04d}", float(s)) for d, s in zip(docs, scores, strict=True)]
        run.append((q, "gold-extra", float(rng.integers(0, 5) if with_ties else -1 - rng.random())))
    return n, qrels, run


def _pytrec(qrels, run, n, gold_only: bool) -> dict[str, float]:
    qd: dict[str, dict[str, int]] = {}
    for q, d, g in qrels:
        qd.setdefault(q, {})[d] = int(g == n[q]) if gold_only else g
    rd: dict[str, dict[str, float]] = {}
    for q, d, s in run:
        rd.setdefault(q, {})[d] = s
    res = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10"}).evaluate(rd)
    return {q: v["ndcg_cut_10"] for q, v in res.items()}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ndcg_and_gold_ndcg_equal_pytrec_eval(seed: int) -> None:
    n, qrels, run = _generated(seed)
    pq = _score(_bound(qrels, n), run)
    graded = _pytrec(qrels, run, n, gold_only=False)
    gold = _pytrec(qrels, run, n, gold_only=True)
    qids = list(n)
    assert np.abs(pq.ndcg - np.array([graded[q] for q in qids])).max() < 1e-9
    assert np.abs(pq.gold_ndcg - np.array([gold[q] for q in qids])).max() < 1e-9
    assert summarize(pq)["ndcg"] == pytest.approx(np.mean(list(graded.values())), abs=1e-9)


def test_trec_eval_tie_mode_equals_pytrec_eval_with_many_ties() -> None:
    n, qrels, run = _generated(7, with_ties=True)
    pq = _score(_bound(qrels, n), run, ties="trec_eval")
    graded = _pytrec(qrels, run, n, gold_only=False)
    assert np.abs(pq.ndcg - np.array([graded[q] for q in n])).max() < 1e-9


N3 = {"qm": 3, "qs": 3, "qg": 3}
QRELS3 = [
    ("qm", "g", 3), ("qm", "s", 1),
    ("qs", "g", 3), ("qs", "s", 2),
    ("qg", "g", 3), ("qg", "s", 1), ("qg", "g2", 3),
]  # fmt: skip


def test_each_outcome_class_by_hand() -> None:
    b = _bound(QRELS3, N3, k=3)
    run = [
        # miss: the gold sits at rank 4, below k = 3
        ("qm", "s", 9), ("qm", "x1", 8), ("qm", "x2", 7), ("qm", "g", 6),
        # subset_first: subset at 1, gold at 3
        ("qs", "s", 9), ("qs", "x", 8), ("qs", "g", 7),
        # gold_first: unjudged at 1, gold at 2, subset at 3
        ("qg", "x", 9), ("qg", "g", 8), ("qg", "s", 7),
    ]  # fmt: skip
    pq = _score(b, run)
    assert pq.outcome.tolist() == [0, 1, 2]
    assert pq.first_gold.tolist() == [0, 3, 2]
    assert pq.first_subset.tolist() == [1, 1, 3]
    # Gold-NDCG@3: qs gold at rank 3 -> (1/log2 4) / 1; qg gold at 2 of 2 golds -> (1/log2 3)/(1 + 1/log2 3)
    assert pq.gold_ndcg[0] == 0.0
    assert pq.gold_ndcg[1] == pytest.approx(0.5, abs=1e-12)
    assert pq.gold_ndcg[2] == pytest.approx((1 / LOG2_3) / (1 + 1 / LOG2_3), abs=1e-12)
    # Graded NDCG@3 for qs: gains 2, 0, 3 against ideal 3, 2.
    ideal = 3 + 2 / LOG2_3
    assert pq.ndcg[1] == pytest.approx((2 + 3 / 2) / ideal, abs=1e-12)
    s = summarize(pq)
    assert s["nclue"] == pytest.approx(1 / 3)
    assert s["gold_hit"] == pytest.approx(2 / 3)
    assert s["outcomes"] == {"miss": 1, "subset_first": 1, "gold_first": 1}


def test_ties_file_order_versus_trec_eval_order() -> None:
    # Subset "a1" and gold "z9" tie; the file lists the subset first.
    b = _bound([("q", "a1", 1), ("q", "z9", 2)], {"q": 2})
    run = [("q", "a1", 5.0), ("q", "z9", 5.0)]
    assert _score(b, run, "file").outcome.tolist() == [1]  # stable file order: subset first
    assert _score(b, run, "trec_eval").outcome.tolist() == [2]  # doc id descending: z9 first
    # Reversed file order flips the file mode only.
    rev = run[::-1]
    assert _score(b, rev, "file").outcome.tolist() == [2]
    assert _score(b, rev, "trec_eval").outcome.tolist() == [2]


def test_rank_column_is_ignored_scores_decide() -> None:
    b = _bound([("q", "s", 1), ("q", "g", 2)], {"q": 2})
    assert _score(b, [("q", "g", 1.0), ("q", "s", 2.0)]).outcome.tolist() == [1]


def test_missing_queries_and_queries_without_gold() -> None:
    n = {"q1": 2, "q2": 2, "q3": 2}
    b = _bound([("q1", "g", 2), ("q3", "s", 1), ("other", "g", 2)], n)
    assert b.n_gold.tolist() == [1, 0, 0]
    pq = _score(b, [("q1", "g", 1.0), ("q3", "s", 1.0), ("unknown", "g", 1.0)])
    assert pq.present.tolist() == [True, False, True]
    assert pq.outcome.tolist() == [2, 0, 0]
    assert pq.gold_ndcg.tolist() == [1.0, 0.0, 0.0]
    assert pq.ndcg.tolist() == [1.0, 0.0, 1.0]
    s = summarize(pq)
    assert s["nclue"] == pytest.approx(1 / 3)  # every query is in the denominator
    assert s["queries_in_run"] == 2
    empty = _score(b, [("unknown", "g", 1.0)])
    assert summarize(empty)["nclue"] == 0.0 and summarize(empty)["queries_in_run"] == 0


def test_grade_zero_rows_are_non_relevant_and_bad_grades_rejected() -> None:
    b = _bound([("q", "z", 0), ("q", "g", 1)], {"q": 1})
    assert _score(b, [("q", "z", 2.0), ("q", "g", 1.0)]).outcome.tolist() == [2]
    with pytest.raises(ValueError, match="exceeds"):
        _bound([("q", "g", 3)], {"q": 2})
    with pytest.raises(ValueError, match="twice"):
        _bound([("q", "g", 1), ("q", "g", 2)], {"q": 2})
