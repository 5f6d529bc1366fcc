"""Benchmark: page aggregation of a page-level run (`score nclue --page-aggregate`).

A page-level run of 1,000 queries x 100 documents x 1-8 pages (about 450,000 page rows,
scores with ties) is aggregated by `scorers.page_aggregate.aggregate_pages`:

* MaxSim (K = 1) against the best-page loop `score nclue` used before this option
  (`scorers.gold_support.document_rows`, the baseline); the two must keep the same rows;
* ptop3 (K = 3) against the same rule written as a per-row Python loop (a dict of page
  score lists per document, tests/test_paper_page_aggregate.py's reference), which must give
  the same documents and scores.

Prints each time (best of REPEATS, interleaved) and the ratio baseline / aggregate_pages.
Run: .venv/bin/python benchmarks/page_aggregate.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorers.gold_support import document_rows  # noqa: E402
from scorers.page_aggregate import aggregate_pages  # noqa: E402


def generate(seed: int = 11) -> tuple[list[str], list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    q: list[str] = []
    d: list[str] = []
    for i in range(1000):
        for j in range(100):
            m = int(rng.integers(1, 9))
            q += [f"q{i}"] * m
            d += [f"doc{j}"] * m
    return q, d, np.round(rng.random(len(q)) * 50, 1)  # one decimal: many equal scores


def loop_top(q: list[str], d: list[str], sc: np.ndarray, top: int) -> list[tuple[int, float]]:
    order = sorted(range(len(sc)), key=lambda i: (-sc[i], i))
    best: dict[tuple[str, str], int] = {}
    got: dict[tuple[str, str], list[float]] = {}
    for i in order:
        key = (q[i], d[i])
        if key not in best:
            best[key] = i
            got[key] = []
        if len(got[key]) < top:
            got[key].append(float(sc[i]))
    keys = list(best)
    means = [sum(got[k]) / len(got[k]) for k in keys]
    again = sorted(range(len(keys)), key=lambda j: (-means[j], j))
    return [(best[keys[j]], means[j]) for j in again]


def best_of(fn, repeats: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    q, d, sc = generate()
    print(f"{len(sc)} page rows, {len(set(zip(q, d, strict=True)))} documents")
    t_base, base = best_of(lambda: document_rows(q, d, sc), args.repeats)
    t_max, (rows, _) = best_of(lambda: aggregate_pages(q, d, sc, 1), args.repeats)  # type: ignore[misc]
    assert np.array_equal(rows, base), "MaxSim rows differ from document_rows"
    print(f"MaxSim: document_rows {t_base:.3f} s, aggregate_pages {t_max:.3f} s, "
          f"ratio {t_base / t_max:.1f}x")  # fmt: skip
    t_loop, ref = best_of(lambda: loop_top(q, d, sc, 3), args.repeats)
    t_top, (rows3, agg3) = best_of(lambda: aggregate_pages(q, d, sc, 3), args.repeats)  # type: ignore[misc]
    assert [r for r, _ in ref] == rows3.tolist() and [m for _, m in ref] == agg3.tolist()  # type: ignore[union-attr]
    print(f"ptop3: Python loop {t_loop:.3f} s, aggregate_pages {t_top:.3f} s, "
          f"ratio {t_loop / t_top:.1f}x (identical documents and scores)")  # fmt: skip


if __name__ == "__main__":
    main()
