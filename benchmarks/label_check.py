"""Benchmark of the label check `evaudit load` now runs (the whole of `evaudit check`).

Before, `load` ran a cheap part of the check (no distinct-page matching, golds' page gates
left out), so `load` and `check` reported different counts on the same files. Now `load`
runs the full check with the recorded cross-page requirement, plus, when the requirement
is off, a re-check of the mismatched pairs under it (`label_check.explained_by_cross_page`).

Project: `check_labels` (full) + `explained_by_cross_page`, as `load` runs them.
Baseline: `check_labels(cheap=True)`, what `load` ran before, same data, same run.
Data: the texlive scale benchmark's shape, made up in memory: 1,000 queries of 2-3
conditions, 51,292 judged pairs over 779 documents of 27 pages, each evidenced condition
on 1-4 random pages (seeded). The store reads are the same on both sides and not timed.

Run: .venv/bin/python benchmarks/label_check.py
"""

from __future__ import annotations

import argparse
import random
import time

from packet_builder.label_check import explained_by_cross_page
from policies.label_validity import check_labels

QUERIES, PAIRS, DOCS, PAGES = 1000, 51_292, 779, 27


Data = tuple[
    dict[str, list[str]],
    dict[tuple[str, str], int],
    dict[tuple[str, str, str], list[int]],
    dict[str, int],
]


def make(seed: int = 1) -> Data:
    rng = random.Random(seed)
    conds = {f"q{q}": [f"q{q}c{i}" for i in range(rng.choice([2, 2, 3]))] for q in range(QUERIES)}
    n_pages = {f"d{i}": PAGES for i in range(DOCS)}
    grades: dict[tuple[str, str], int] = {}
    evidence: dict[tuple[str, str, str], list[int]] = {}
    while len(grades) < PAIRS:
        q, d = f"q{rng.randrange(QUERIES)}", f"d{rng.randrange(DOCS)}"
        if (q, d) in grades:
            continue
        cs = conds[q]
        grades[(q, d)] = g = rng.randint(1, len(cs))
        for c in cs[: g if rng.random() < 0.9 else len(cs)]:
            evidence[(q, d, c)] = sorted(rng.sample(range(1, PAGES + 1), rng.randint(1, 4)))
    return conds, grades, evidence, n_pages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    args = ap.parse_args()
    conds, grades, evidence, n_pages = make()
    best = {"baseline": float("inf"), "project": float("inf")}
    for r in range(args.rounds):
        for side in ("baseline", "project") if r % 2 == 0 else ("project", "baseline"):
            t0 = time.perf_counter()
            if side == "baseline":
                check_labels(conds, grades, evidence, n_pages, cheap=True)
            else:
                found = check_labels(conds, grades, evidence, n_pages)
                explained = explained_by_cross_page(conds, grades, evidence, n_pages, found)
            best[side] = min(best[side], time.perf_counter() - t0)
    mismatches = sum(1 for f in found if f.kind == "grade_mismatch")
    print(
        f"{len(grades)} pairs: baseline (cheap check) {best['baseline']:.2f} s, project "
        f"(full check + cross-page re-check of {mismatches} mismatches, {explained} explained) "
        f"{best['project']:.2f} s = {best['project'] / best['baseline']:.2f}x the baseline's "
        f"time (best of {args.rounds})"
    )


if __name__ == "__main__":
    main()
