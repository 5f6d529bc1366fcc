"""Composition of per-condition runs (min, product, harmonic, injective) against plain loops."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from scorers.compose import compose, injective_score, split_condition_ids


def _random_lists(seed: int, nq: int, pool: int, per_list: int, pages: bool, ties: bool):
    rng = random.Random(seed)
    conditions: dict[str, list[str]] = {}
    rows = []
    for qi in range(nq):
        q = f"q{qi}"
        conditions[q] = [f"c{j}" for j in range(rng.randint(1, 4))]
        for c in conditions[q]:
            if rng.random() < 0.1:
                continue  # a condition without a list: every document gets the floor
            items = rng.sample(
                [(f"d{d}", p) for d in range(pool) for p in range(1, 5)] if pages
                else [(f"d{d}", None) for d in range(pool)],
                per_list,
            )  # fmt: skip
            for d, p in items:
                s = float(rng.randint(0, 3)) if ties else rng.uniform(-2, 5)
                rows.append((q, c, d, p, s))
    rng.shuffle(rows)
    return conditions, rows


def _reference(conditions, rows, method, depth, floor):
    """The stated rules, one query at a time, no numpy."""
    out = {}
    for q, conds in conditions.items():
        lists = []
        for c in conds:
            mine = [(i, r) for i, r in enumerate(rows) if r[0] == q and r[1] == c]
            mine.sort(key=lambda t: (-t[1][4], t[0]))
            mine = mine[:depth]
            if mine:
                lo, hi = min(r[4] for _, r in mine), max(r[4] for _, r in mine)
                norm = [1.0 if hi == lo else (r[4] - lo) / (hi - lo) for _, r in mine]
                lists.append([((r[2], r[3]), v) for (_, r), v in zip(mine, norm, strict=True)])
            else:
                lists.append([])
        docs: list[str] = []
        for lst in lists:
            for (d, _), _ in lst:
                if d not in docs:
                    docs.append(d)
        if not docs:
            continue
        scored = []
        for d in docs:
            if method == "injective":
                per_c = [{p: v for (dd, p), v in lst if dd == d} for lst in lists]
                scored.append((d, _brute_injective(per_c, floor)))
                continue
            vals = [next((v for (dd, _), v in lst if dd == d), floor) for lst in lists]
            if method == "min":
                s = min(vals)
            elif method == "product":
                s = math.prod(vals)
            else:
                s = 0.0 if 0 in vals else len(vals) / sum(1 / v for v in vals)
            scored.append((d, s))
        order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))[:depth]
        out[q] = [scored[i] for i in order]
    return out


def _brute_injective(per_c: list[dict[int, float]], floor: float) -> float:
    pages = sorted({p for m in per_c for p in m})
    options = [*pages, *(None for _ in per_c)]
    best = -math.inf
    for choice in itertools.permutations(range(len(options)), len(per_c)):
        total = 0.0
        for c, j in enumerate(choice):
            p = options[j]
            total += floor if p is None else per_c[c].get(p, floor)
        best = max(best, total / len(per_c))
    return best if pages else floor


def _run(conditions, rows, method, depth, floor):
    pages = [r[3] for r in rows] if method == "injective" else None
    ranked, report = compose(
        [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
        [r[4] for r in rows], conditions, method=method, depth=depth, floor=floor, pages=pages,
    )  # fmt: skip
    return ranked.per_query(), report


@pytest.mark.parametrize("method", ["min", "product", "harmonic"])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("floor", [0.0, 0.05])
def test_document_rules_match_a_plain_loop(method: str, ties: bool, floor: float) -> None:
    conditions, rows = _random_lists(3, nq=20, pool=30, per_list=12, pages=False, ties=ties)
    for depth in (1, 5, 50):
        ours, _ = _run(conditions, rows, method, depth, floor)
        ref = _reference(conditions, rows, method, depth, floor)
        assert list(ours) == list(ref)
        for q in ref:
            assert [d for d, _ in ours[q]] == [d for d, _ in ref[q]], (q, depth)
            assert [s for _, s in ours[q]] == pytest.approx([s for _, s in ref[q]], abs=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_injective_matches_brute_force_assignment(ties: bool) -> None:
    conditions, rows = _random_lists(5, nq=12, pool=4, per_list=9, pages=True, ties=ties)
    ours, report = _run(conditions, rows, "injective", 50, 0.0)
    ref = _reference(conditions, rows, "injective", 50, 0.0)
    assert list(ours) == list(ref) and report.method == "injective"
    for q in ref:
        assert [d for d, _ in ours[q]] == [d for d, _ in ref[q]], q
        assert [s for _, s in ours[q]] == pytest.approx([s for _, s in ref[q]], abs=1e-12)


def test_injective_needs_distinct_pages() -> None:
    # Both conditions are best on page 1; distinct pages force one onto page 2.
    assert injective_score([{1: 1.0, 2: 0.5}, {1: 1.0, 2: 0.2}], 0.0) == pytest.approx(0.75)
    # One page only: the second condition gets the floor.
    assert injective_score([{1: 1.0}, {1: 0.9}], 0.1) == pytest.approx(0.55)


def test_worked_example_of_docs_runs() -> None:
    """The docs/runs.md example: condition lists for c1 and c2 of query q."""
    rows = [
        ("q", "c1", "A", 9.0), ("q", "c1", "B", 5.0), ("q", "c1", "C", 1.0),
        ("q", "c2", "B", 4.0), ("q", "c2", "A", 3.0), ("q", "c2", "D", 0.0),
    ]  # fmt: skip
    cond = {"q": ["c1", "c2"]}
    got = {}
    for method in ("min", "product", "harmonic"):
        ranked, _ = compose(*(list(c) for c in zip(*rows, strict=True)), cond, method=method)
        got[method] = [(d, round(s, 4)) for d, s in ranked.per_query()["q"]]
    assert got["min"] == [("A", 0.75), ("B", 0.5), ("C", 0.0), ("D", 0.0)]
    assert got["product"] == [("A", 0.75), ("B", 0.5), ("C", 0.0), ("D", 0.0)]
    assert got["harmonic"] == [("A", 0.8571), ("B", 0.6667), ("C", 0.0), ("D", 0.0)]
    ranked, _ = compose(["q"] * 2, ["c1", "c2"], ["A", "B"], [1.0, 1.0], cond, method="min")
    # Ties keep first appearance: c1's list is read before c2's.
    assert [d for d, _ in ranked.per_query()["q"]] == ["A", "B"]


def test_split_condition_ids() -> None:
    conds = {"q1": ["c1", "c2"], "a::b": ["c"]}
    qs, cs, bad = split_condition_ids(["q1::c2", "a::b::c", "q1::c1"], conds)
    assert (qs, cs, bad) == (["q1", "a::b", "q1"], ["c2", "c", "c1"], None)
    assert split_condition_ids(["q1::c1", "q1::c9"], conds)[2] == 1
    assert split_condition_ids(["q1"], conds)[2] == 0
