"""Gold+Support@k and conditional page coverage against a brute-force loop on random page runs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from scorers.gold_support import gold_support, page_sets
from tests.conftest import run_cli


def _random_case(seed: int):
    rng = random.Random(seed)
    conditions, gold, evidence, rows = {}, {}, {}, []
    for qi in range(40):
        q = f"q{qi}"
        conditions[q] = [f"c{j}" for j in range(rng.randint(1, 3))]
        docs = [f"d{d}" for d in rng.sample(range(30), 15)]
        gold[q] = set(rng.sample(docs, rng.randint(0, 3)))
        for d in gold[q]:
            for c in conditions[q]:
                if rng.random() < 0.9:
                    evidence[(q, d, c)] = set(rng.sample(range(1, 9), rng.randint(1, 3)))
        if rng.random() < 0.1:
            continue  # a query the run does not rank
        for d in docs:
            for p in rng.sample(range(1, 9), rng.randint(1, 6)):
                rows.append((q, d, p, float(rng.randint(0, 6))))  # many tied scores
    rng.shuffle(rows)
    return conditions, gold, evidence, rows


def _brute(conditions, gold, evidence, rows, k, npages):
    """The Table S5b rule as a plain loop over every query."""
    success = hit = pairs = covered = 0
    for q, conds in conditions.items():
        mine = sorted(
            [(i, r) for i, r in enumerate(rows) if r[0] == q], key=lambda t: (-t[1][3], t[0])
        )
        doc_order: list[str] = []
        for _, r in mine:
            if r[1] not in doc_order:
                doc_order.append(r[1])
        top_gold = [d for d in doc_order[:k] if d in gold[q]]
        if not top_gold:
            continue
        hit += 1
        sets = {}
        for d in top_gold:
            pages: list[int] = []
            for _, r in mine:
                if r[1] == d and r[2] not in pages and len(pages) < npages:
                    pages.append(r[2])
            sets[d] = set(pages)
        ok_any = False
        for d in top_gold:
            if all(sets[d] & evidence.get((q, d, c), set()) for c in conds):
                ok_any = True
        success += ok_any
        for c in conds:
            pairs += 1
            covered += any(sets[d] & evidence.get((q, d, c), set()) for d in top_gold)
    return success, hit, covered, pairs


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("k", "npages"), [(10, 3), (3, 1), (15, 5)])
def test_gold_support_matches_brute_force(seed: int, k: int, npages: int) -> None:
    conditions, gold, evidence, rows = _random_case(seed)
    ranked = page_sets(*(list(c) for c in zip(*rows, strict=True)), pages=npages)
    got = gold_support(ranked, conditions, gold, evidence, k=k)
    success, hit, covered, pairs = _brute(conditions, gold, evidence, rows, k, npages)
    assert (got.gold_support_queries, got.gold_hit_queries) == (success, hit)
    assert (got.covered_pairs, got.condition_pairs) == (covered, pairs)
    assert got.gold_support == success / 40 and got.gold_hit == hit / 40
    assert got.condition_coverage == covered / pairs
    assert got.all_condition_coverage == success / hit
    assert success < hit  # the data is not trivially all-covered
    assert success > 0 or npages == 1


def test_several_golds_use_the_best_covered_one_and_pages_need_not_be_distinct() -> None:
    # Gold A covers c1 only, gold B covers both conditions with one page (not injective).
    ranked = {"q": [("A", [1, 2, 3]), ("B", [5])]}
    ev = {("q", "A", "c1"): {2}, ("q", "B", "c1"): {5}, ("q", "B", "c2"): {5}}
    got = gold_support(ranked, {"q": ["c1", "c2"], "r": ["c1"]}, {"q": {"A", "B"}}, ev)
    assert (got.gold_support, got.gold_hit, got.all_condition_coverage) == (0.5, 0.5, 1.0)
    assert got.by_position == {1: 1.0, 2: 1.0}


def test_support_cli(tmp_path: Path) -> None:
    q = tmp_path / "q.jsonl"
    q.write_text(
        "".join(
            json.dumps({"query_id": qid, "text": "t", "conditions": [
                {"condition_id": "c1", "name": "x", "requirement": "r"},
                {"condition_id": "c2", "name": "y", "requirement": "r"}]}) + "\n"
            for qid in ("q1", "q2")
        )
    )  # fmt: skip
    (tmp_path / "qrels.txt").write_text("q1 0 A 2\nq1 0 B 1\nq2 0 C 2\n")
    (tmp_path / "ev.jsonl").write_text(
        '{"query_id":"q1","doc_id":"A","condition_id":"c1","pages":[2]}\n'
        '{"query_id":"q1","doc_id":"A","condition_id":"c2","pages":[4]}\n'
        '{"query_id":"q2","doc_id":"C","condition_id":"c1","pages":[1]}\n'
    )
    # q1: A's three best pages are 2, 4, 7 (page 9 is fourth) -> covered; q2: C lacks c2.
    (tmp_path / "pages.trec").write_text(
        "q1 Q0 B#1 1 9 vis\nq1 Q0 A#2 2 8 vis\nq1 Q0 A#4 3 7 vis\nq1 Q0 A#7 4 6 vis\n"
        "q1 Q0 A#9 5 5 vis\nq2 Q0 C#1 1 3 vis\n"
    )
    rep = json.loads(
        run_cli("runs", "support", "--queries", q, "--qrels", tmp_path / "qrels.txt",
                "--evidence", tmp_path / "ev.jsonl", "--run", tmp_path / "pages.trec",
                "--json").stdout
    )  # fmt: skip
    assert rep["k"] == 10 and rep["pages"] == 3 and rep["queries"] == 2
    vis = rep["runs"]["vis"]
    assert vis["gold_support"] == 0.5 and vis["gold_hit"] == 1.0
    assert vis["condition_coverage"] == 0.75 and vis["all_condition_coverage"] == 0.5
    assert vis["condition_coverage_by_position"] == {"1": 1.0, "2": 0.5}
    rep = json.loads(
        run_cli("runs", "support", "--queries", q, "--qrels", tmp_path / "qrels.txt",
                "--evidence", tmp_path / "ev.jsonl", "--run", tmp_path / "pages.trec",
                "--pages", "1", "--json").stdout
    )  # fmt: skip
    assert rep["runs"]["vis"]["gold_support"] == 0.0
    (tmp_path / "doc.trec").write_text("q1 Q0 A 1 9 d\n")
    res = run_cli("runs", "support", "--queries", q, "--qrels", tmp_path / "qrels.txt",
                  "--evidence", tmp_path / "ev.jsonl", "--run", tmp_path / "doc.trec",
                  expect=2)  # fmt: skip
    assert "DOC_ID#PAGE" in res.stderr and "doc.trec" in res.stderr


def test_page_sets_keep_distinct_pages_in_rank_order_with_stable_ties() -> None:
    rows = [("q", "A", 2, 5.0), ("q", "A", 2, 4.0), ("q", "B", 1, 5.0), ("q", "A", 3, 5.0),
            ("q", "A", 1, 4.0), ("q", "A", 8, 1.0)]  # fmt: skip
    got = page_sets(*(list(c) for c in zip(*rows, strict=True)), pages=3)
    # Ties at 5.0 keep file order: A#2, B#1, A#3; A's repeated page 2 is counted once.
    assert got == {"q": [("A", [2, 3, 1]), ("B", [1])]}


def _write_case(tmp_path: Path, seed: int) -> tuple[dict, dict, dict, list]:
    """The random case as files: queries (n = number of conditions), qrels with gold at
    grade n and partials, evidence, and a page-level run (doc#page) in shuffled file order."""
    conditions, gold, evidence, rows = _random_case(seed)
    with (tmp_path / "q.jsonl").open("w") as fh:
        for q, conds in conditions.items():
            fh.write(json.dumps({"query_id": q, "text": "t", "conditions": [
                {"condition_id": c, "name": c, "requirement": "r"} for c in conds]}) + "\n")  # fmt: skip
    with (tmp_path / "qrels.txt").open("w") as fh:
        for q, conds in conditions.items():
            for d in sorted(gold[q]):
                fh.write(f"{q} 0 {d} {len(conds)}\n")
            if len(conds) > 1:
                fh.write(f"{q} 0 partial{q} 1\n")
    with (tmp_path / "ev.jsonl").open("w") as fh:
        for (q, d, c), pages in sorted(evidence.items()):
            fh.write(json.dumps({"query_id": q, "doc_id": d, "condition_id": c,
                                 "pages": sorted(pages)}) + "\n")  # fmt: skip
    with (tmp_path / "pages.trec").open("w") as fh:
        for i, (q, d, p, s) in enumerate(rows):
            fh.write(f"{q} Q0 {d}#{p} {i + 1} {s} vis\n")
    return conditions, gold, evidence, rows


@pytest.mark.parametrize("seed", [4, 5])
def test_score_nclue_reports_gold_support_of_a_page_level_run(tmp_path: Path, seed: int) -> None:
    conditions, gold, evidence, rows = _write_case(tmp_path, seed)
    common = ["--queries", tmp_path / "q.jsonl", "--qrels", tmp_path / "qrels.txt"]
    rep = json.loads(run_cli("score", "nclue", *common, "--evidence", tmp_path / "ev.jsonl",
                             "--run", tmp_path / "pages.trec", "--bootstrap", "0",
                             "--json").stdout)  # fmt: skip
    success, hit, covered, pairs = _brute(conditions, gold, evidence, rows, 10, 3)
    gs = rep["gold_support"]["runs"]["vis"]
    assert gs["counts"]["gold_support"] == success and gs["counts"]["gold_hit"] == hit
    assert (gs["counts"]["covered_pairs"], gs["counts"]["condition_pairs"]) == (covered, pairs)
    assert gs["gold_support"] == success / 40
    # The n-Clue measures score documents (each at its best page), so Gold Hit agrees
    # with the brute-force loop's gold-in-top-10 count, and matches `runs support`.
    assert rep["runs"]["vis"]["gold_hit"] == hit / 40 == gs["gold_hit"]
    sup = json.loads(run_cli("runs", "support", *common, "--evidence", tmp_path / "ev.jsonl",
                             "--run", tmp_path / "pages.trec", "--json").stdout)  # fmt: skip
    assert sup["runs"]["vis"] == gs
    text = run_cli("score", "nclue", *common, "--evidence", tmp_path / "ev.jsonl", "--run",
                   tmp_path / "pages.trec", "--bootstrap", "0").stdout  # fmt: skip
    assert "Gold+Support@10" in text
    # Without evidence, a page-level run is refused with the fix named.
    res = run_cli("score", "nclue", *common, "--run", tmp_path / "pages.trec", expect=2)
    assert "page-level run" in res.stderr and "--evidence" in res.stderr
