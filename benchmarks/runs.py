"""Benchmark: `evaudit runs fuse` against ranx's fuse, and `runs compose` against a Python loop.

Fusion: generates (with benchmarks/_data.py's generator) 1,000 queries and
70 TREC runs of 100 documents per query, then times, each as its own process
and end to end (start-up, reading all 70 files, RRF k = 60 over depth 100,
writing the fused run):

* evaudit: `python -m evaudit runs fuse --method rrf --k 60 --depth 100 --run ... --out F`;
* ranx (baseline): `Run.from_file(path, kind="trec")` for each file, then
  `fuse(runs, norm=None, method="rrf", params={"k": 60})` and `.save(F, kind="trec")`.

ranx compiles its numba kernels on first use and caches them; one untimed
warm-up run of each tool comes first, so neither pays compilation. The two
fused runs are compared (scores to 1e-12).

Deep RRF ("rrf"): 5 TREC runs x 1,000 queries x 1,000 documents (each run ranks 1,000 of
a query's 1,500 documents, scores on a 0.001 grid so ties are many), RRF k = 60 over depth
1,000, each as its own process end to end: `evaudit runs fuse` against a plain-Python dict
loop (baseline: read each file line by line, rank per query by score with ties in file
order, add 1/(k + rank) into a dict per document, sort, write). Target >= 3x. The two
fused runs hold the same (query, document) rows with scores equal to 1e-15 (the loop adds
run by run, the library in its canonical rank order), and the same order wherever the
scores are not within 1e-15 of a tie.

Composition: 1,000 queries x 2-4 conditions x 100 documents per condition
list; `scorers.compose.compose` (product) against the same rules written as a
per-query Python loop (tests/test_runs_compose.py's reference, in-process).

Run: .venv/bin/python benchmarks/runs.py [REPEATS=3] [--only fusion|rrf|composition]
(best of REPEATS, interleaved)
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

from benchmarks._data import DEPTH, RUNS, Q, generate  # noqa: E402

RANX = """
import sys
from ranx import Run, fuse
paths, out = sys.argv[2:], sys.argv[1]
runs = [Run.from_file(p, kind="trec") for p in paths]
fuse(runs, norm=None, method="rrf", params={"k": 60}).save(out, kind="trec")
"""


DICT_LOOP = """
import sys
from operator import itemgetter
k, depth, out, paths = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
fused = {}  # query -> {document: score}; dicts keep first appearance, sorts are stable
for path in paths:
    per_q = {}
    with open(path) as fh:
        for line in fh:
            q, _z, d, _r, s, _t = line.split()
            per_q.setdefault(q, []).append((-float(s), d))
    for q, rows in per_q.items():
        rows.sort(key=itemgetter(0))
        acc = fused.setdefault(q, {})
        for rank, (_s, d) in enumerate(rows[:depth], start=1):
            acc[d] = acc.get(d, 0.0) + 1.0 / (k + rank)
with open(out, "w") as fh:
    for q, acc in fused.items():
        top = sorted(acc.items(), key=lambda t: -t[1])[:depth]
        fh.writelines(f"{q} Q0 {d} {r} {s!r} loop\\n" for r, (d, s) in enumerate(top, start=1))
"""
DEEP_RUNS, DEEP_Q, DEEP_DOCS, DEEP_POOL = 5, 1000, 1000, 1500


def deep_runs(root: Path, seed: int = 5) -> list[Path]:
    """5 runs x 1,000 queries x 1,000 documents, written rank order, tie-heavy scores."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    paths = []
    qids = np.repeat(np.array([f"q{i:04d}" for i in range(DEEP_Q)], dtype=object), DEEP_DOCS)
    for r in range(DEEP_RUNS):
        picks = np.argsort(rng.random((DEEP_Q, DEEP_POOL)), axis=1)[:, :DEEP_DOCS]
        docs = np.char.add("d", (picks + 10000).astype(str))
        docs = np.char.add(np.char.add(docs, "-"), (np.arange(DEEP_Q)[:, None] + 1000).astype(str))
        scores = -np.sort(-np.round(rng.random((DEEP_Q, DEEP_DOCS)) * 10, 3), axis=1)
        table = pa.table({
            "q": pa.array(qids), "z": pa.array(["Q0"] * len(qids)),
            "d": pa.array(docs.ravel().astype(object)),
            "r": pa.array(np.tile(np.arange(1, DEEP_DOCS + 1), DEEP_Q)),
            "s": pa.array(scores.ravel()), "t": pa.array([f"run{r}"] * len(qids)),
        })  # fmt: skip
        path = root / f"deep{r}.trec"
        with path.open("wb") as fh:
            pacsv.write_csv(table, fh, write_options=pacsv.WriteOptions(
                include_header=False, delimiter=" ", quoting_style="none"))  # fmt: skip
        paths.append(path)
    return paths


def _ordered(path: Path) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {}
    with path.open() as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            out.setdefault(q, []).append((d, float(s)))
    return out


def _same_fusion(
    a: dict[str, list[tuple[str, float]]], b: dict[str, list[tuple[str, float]]]
) -> tuple[bool, float]:
    """Same rows, scores to 1e-15, same order outside near-ties; and the largest gap."""
    worst, same = 0.0, list(a) == list(b)
    for q in a:
        sa, sb = dict(a[q]), dict(b.get(q, []))
        if set(sa) != set(sb):
            return False, float("inf")
        worst = max([worst, *(abs(sa[d] - sb[d]) for d in sa)])
        for (da, xa), (db, _xb) in zip(a[q], b[q], strict=True):
            if da != db and abs(sa[db] - xa) > 1e-15:
                same = False
    return same and worst <= 1e-15, worst


def rrf_deep(root: Path, repeats: int) -> None:
    paths = deep_runs(root)
    ours, loop = root / "evaudit.trec", root / "loop.trec"
    depth = str(DEEP_DOCS)
    ev = [sys.executable, "-m", "evaudit", "runs", "fuse", "--method", "rrf", "--k", "60",
          "--depth", depth, "--out", str(ours), *[a for p in paths for a in ("--run", str(p))]]  # fmt: skip
    lp = [sys.executable, "-c", DICT_LOOP, "60", depth, str(loop), *map(str, paths)]
    _proc(ev), _proc(lp)  # warm-up: imports, page cache
    t_ev, t_lp = [], []
    for _ in range(repeats):
        t_lp.append(_proc_cpu(lp))
        t_ev.append(_proc_cpu(ev))
    same, worst = _same_fusion(_ordered(ours), _ordered(loop))
    print(f"rrf: {DEEP_RUNS} runs x {DEEP_Q} queries x {DEEP_DOCS} documents, depth {depth}; "
          f"same fused run as the loop: {same} (max |score diff| {worst:.1e})")  # fmt: skip
    (bw, bc), (ew, ec) = min(t_lp), min(t_ev)
    print(f"  plain-Python dict loop (baseline)    {bw:7.2f} s   (CPU {bc:5.2f} s)")
    print(f"  evaudit runs fuse end to end         {ew:7.2f} s   (CPU {ec:5.2f} s)   "
          f"{bw / ew:5.2f}x wall, {bc / ec:5.2f}x CPU "
          f"(target >= 3x: {'met' if bw / ew >= 3 else 'NOT met'})")  # fmt: skip


def _proc_cpu(args: list[str]) -> tuple[float, float]:
    """(wall, CPU = user + system) seconds of one process; CPU barely depends on load."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = _proc(args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
    ap.add_argument("--only", choices=["fusion", "rrf", "composition"], default=None,
                    help="run one benchmark (default: all three)")  # fmt: skip
    args = ap.parse_args()
    repeats = args.repeats
    with tempfile.TemporaryDirectory(prefix="evaudit-bench-runs-") as tmp:
        if args.only in (None, "fusion"):
            fusion(Path(tmp), repeats)
        if args.only in (None, "rrf"):
            rrf_deep(Path(tmp), repeats)
    if args.only in (None, "composition"):
        composition(repeats)


if __name__ == "__main__":
    main()
