"""Benchmark: `evaudit runs fuse` against ranx's fuse, and `runs compose` against a Python loop.

Fusion: generates (with benchmarks/scoring.py's generator) 1,000 queries and
70 TREC runs of 100 documents per query, then times, each as its own process
and end to end (start-up, reading all 70 files, RRF k = 60 over depth 100,
writing the fused run):

* evaudit: `python -m evaudit runs fuse --method rrf --k 60 --depth 100 --run ... --out F`;
* ranx (baseline): `Run.from_file(path, kind="trec")` for each file, then
  `fuse(runs, norm=None, method="rrf", params={"k": 60})` and `.save(F, kind="trec")`.

ranx compiles its numba kernels on first use and caches them; one untimed
warm-up run of each tool comes first, so neither pays compilation. The two
fused runs are compared (scores to 1e-12).

Composition: 1,000 queries x 2-4 conditions x 100 documents per condition
list; `scorers.compose.compose` (product) against the same rules written as a
per-query Python loop (tests/test_runs_compose.py's reference, in-process).

Run: .venv/bin/python benchmarks/scoring.py fusion|composition [REPEATS=3] (or this file
for both; best of REPEATS, interleaved)
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scoring import DEPTH, RUNS, Q, generate  # noqa: E402

RANX = """
import sys
from ranx import Run, fuse
paths, out = sys.argv[2:], sys.argv[1]
runs = [Run.from_file(p, kind="trec") for p in paths]
fuse(runs, norm=None, method="rrf", params={"k": 60}).save(out, kind="trec")
"""


def _proc(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - t


def _read(path: Path) -> dict[tuple[str, str], float]:
    out = {}
    with path.open() as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            out[(q, d)] = float(s)
    return out


def fusion(root: Path, repeats: int) -> None:
    _, _, runs = generate(root)
    ours, theirs = root / "evaudit.trec", root / "ranx.trec"
    ev = [sys.executable, "-m", "evaudit", "runs", "fuse", "--method", "rrf", "--k", "60",
          "--depth", str(DEPTH), "--out", str(ours), *[a for p in runs for a in ("--run", str(p))]]  # fmt: skip
    rx = [sys.executable, "-c", RANX, str(theirs), *map(str, runs)]
    _proc(ev), _proc(rx)  # warm-up: imports, page cache, numba cache
    t_ev, t_rx = [], []
    for _ in range(repeats):
        t_rx.append(_proc(rx))
        t_ev.append(_proc(ev))
    a, b = _read(ours), _read(theirs)
    top = {k: v for k, v in b.items() if k in a}
    worst = max(abs(a[k] - top[k]) for k in a)
    print(f"fusion: {RUNS} runs x {Q} queries x depth {DEPTH}; evaudit rows {len(a)}, "
          f"max |score - ranx| {worst:.1e}")  # fmt: skip
    bw, ew = min(t_rx), min(t_ev)
    print(f"  ranx fuse end to end (baseline)      {bw:7.2f} s")
    print(f"  evaudit runs fuse end to end         {ew:7.2f} s   {bw / ew:5.2f}x "
          f"(target >= 5x: {'met' if bw / ew >= 5 else 'NOT met'})")  # fmt: skip


def _compose_case(seed: int = 3):
    rng = np.random.default_rng(seed)
    conditions: dict[str, list[str]] = {}
    qs, cs, ds, ss = [], [], [], []
    for qi in range(Q):
        q = f"q{qi:04d}"
        conditions[q] = [f"c{j}" for j in range(int(rng.integers(2, 5)))]
        for c in conditions[q]:
            docs = rng.choice(300, DEPTH, replace=False)
            qs += [q] * DEPTH
            cs += [c] * DEPTH
            ds += [f"d{d}" for d in docs]
            ss += sorted(rng.random(DEPTH).tolist(), reverse=True)  # as run files are written
    return conditions, qs, cs, ds, ss


def _loop(conditions, qs, cs, ds, ss, depth: int, floor: float):  # type: ignore[no-untyped-def]
    """The compose rules (product) one query at a time, in plain Python."""
    by_list: dict[tuple[str, str], list[tuple[int, str, float]]] = {}
    for i, (q, c, d, s) in enumerate(zip(qs, cs, ds, ss, strict=True)):
        by_list.setdefault((q, c), []).append((i, d, s))
    out = {}
    for q, conds in conditions.items():
        maps, docs = [], {}
        for c in conds:
            top = sorted(by_list.get((q, c), []), key=lambda t: (-t[2], t[0]))[:depth]
            if not top:
                maps.append({})
                continue
            lo, hi = min(t[2] for t in top), max(t[2] for t in top)
            m = {d: 1.0 if hi == lo else (s - lo) / (hi - lo) for _, d, s in top}
            maps.append(m)
            for _, d, _ in top:
                docs.setdefault(d, None)
        scored = [(d, math.prod(m.get(d, floor) for m in maps)) for d in docs]
        order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))[:depth]
        out[q] = [scored[i] for i in order]
    return out


def composition(repeats: int) -> None:
    from scorers.compose import compose

    conditions, qs, cs, ds, ss = _compose_case()
    t_lib, t_loop = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        ranked, _ = compose(qs, cs, ds, ss, conditions, method="product", depth=DEPTH)
        t_lib.append(time.perf_counter() - t)
        t = time.perf_counter()
        ref = _loop(conditions, qs, cs, ds, ss, DEPTH, 0.0)
        t_loop.append(time.perf_counter() - t)
    ours = ranked.per_query()
    same = all([d for d, _ in ours[q]] == [d for d, _ in ref[q]] for q in ref)
    print(f"composition (product): {Q} queries, {len(qs)} condition-list rows; "
          f"same rankings as the loop: {same}")  # fmt: skip
    print(f"  per-query Python loop (baseline)     {min(t_loop):7.2f} s")
    print(f"  scorers.compose.compose              {min(t_lib):7.2f} s   "
          f"{min(t_loop) / min(t_lib):5.2f}x")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("repeats", nargs="?", type=int, default=3, help="best of REPEATS")
    repeats = ap.parse_args().repeats
    with tempfile.TemporaryDirectory(prefix="evaudit-bench-runs-") as tmp:
        fusion(Path(tmp), repeats)
    composition(repeats)


if __name__ == "__main__":
    main()
