"""Benchmark: run scoring end to end against pytrec_eval end to end, plus bootstrap and tests.

Generates, in a temporary folder, 1,000 queries (queries.jsonl), 50,000 graded
qrels (TREC) and 70 TREC run files of 100 documents per query (distinct scores,
so both tools rank identically). Then times, in this one process:

* evaudit: `evaudit score nclue --bootstrap 0 --json` in-process (reads queries,
  qrels and the 70 runs; NDCG@10, n-Clue, Gold Hit and Gold-NDCG for all 70);
  and the same library path with one reader thread;
* pytrec_eval (baseline): read the same qrels and runs into dicts with a plain
  line loop, build RelevanceEvaluator(qrels, {"ndcg_cut.10"}) and evaluate each run;
* 1,000 exact-family bootstrap replicates for all 70 runs plus 8 paired tests
  with 10,000 sign-flip draws each (with their paired family-bootstrap CIs);
* `sensitivity`: the shared-document sensitivity of one contrast with 10,000
  crossed query x document draws (and 10,000 one-query-per-document draws),
  against a per-draw Python loop (baseline; 500 draws, scaled to 10,000);
* `bound`: the exact adversarial qrel bound at k = 1, 2, 3 for 69 contrasts
  (every run against run00), against a per-query Python loop enumerating every
  promotion set of <= 3 judged subsets of the top-10 union (baseline; 8 of the
  contrasts, scaled to 69).

Subcommands (benchmarks/runs.py holds their code and its docstring the method):

* `fusion`: `evaudit runs fuse` (RRF k = 60, depth 100) of 70 runs x 1,000 queries
  against ranx's fuse on the same files, each end to end as its own process
  (target >= 5x);
* `composition`: `scorers.compose.compose` (product) on 1,000 queries x 2-4
  condition lists x 100 documents against the same rules as a per-query Python loop;
* `trec`: `score trec` and `trec_eval -m all_trec` against pytrec_eval, ir_measures and
  ranx as processes (benchmarks/trec_scoring.py holds its code and method).

Run: .venv/bin/python benchmarks/scoring.py [fusion|composition|trec] [REPEATS=3]
(best of REPEATS, interleaved; without a subcommand, the scoring benchmark above)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._data import DEPTH, JUDGED, RUNS, Q, generate


def pytrec_end_to_end(qrels: Path, runs: list[Path]) -> dict[str, float]:
    import pytrec_eval

    qd: dict[str, dict[str, int]] = {}
    with qrels.open() as fh:
        for line in fh:
            q, _, d, g = line.split()
            qd.setdefault(q, {})[d] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10"})
    means = {}
    for path in runs:
        rd: dict[str, dict[str, float]] = {}
        with path.open() as fh:
            for line in fh:
                q, _, d, _, s, _ = line.split()
                rd.setdefault(q, {})[d] = float(s)
        res = evaluator.evaluate(rd)
        means[path.stem] = float(np.mean([v["ndcg_cut_10"] for v in res.values()]))
    return means


def evaudit_cli(queries: Path, qrels: Path, runs: list[Path]) -> dict:
    from click.testing import CliRunner

    from evaudit.cli import cli

    args = ["score", "nclue", "--queries", str(queries), "--qrels", str(qrels), "--json"]
    args += ["--bootstrap", "0"]
    for p in runs:
        args += ["--run", str(p)]
    res = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def evaudit_single_thread(queries: Path, qrels: Path, runs: list[Path]):
    from formats.qrels import read_qrels
    from formats.readers import read_queries, read_run
    from scorers.runs import bind_qrels, measure, rank_run

    qs = read_queries(queries)
    qr = read_qrels(qrels)
    bound = bind_qrels(
        [q.query_id for q in qs], [q.n for q in qs], qr["query_id"], qr["doc_id"], qr["grade"]
    )
    scored = {}
    for p in runs:
        df = read_run(p)
        scored[p.stem] = measure(bound, rank_run(bound, df["query_id"], df["doc_id"], df["score"]))
    return bound, scored


def _timed(fn, *args):  # type: ignore[no-untyped-def]
    """(wall seconds, CPU seconds of this process, result)."""
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.perf_counter() - w, time.process_time() - c, out


def main() -> None:
    from scorers.runs import compare_report, nclue_report

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("args", nargs="*", metavar="[fusion|composition|trec] [REPEATS]")
    argv = ap.parse_args().args
    if argv and argv[0] == "trec":
        from benchmarks import trec_scoring

        with tempfile.TemporaryDirectory(prefix="evaudit-bench-trec-") as tmp:
            trec_scoring.main(Path(tmp), int(argv[1]) if len(argv) > 1 else 3)
        return
    if argv and argv[0] in ("fusion", "composition"):
        from benchmarks import runs as run_ops  # fusion and composition live there

        reps = int(argv[1]) if len(argv) > 1 else 3
        if argv[0] == "fusion":
            with tempfile.TemporaryDirectory(prefix="evaudit-bench-runs-") as tmp:
                run_ops.fusion(Path(tmp), reps)
        else:
            run_ops.composition(reps)
        return
    repeats = int(argv[0]) if argv else 3
    with tempfile.TemporaryDirectory(prefix="evaudit-bench-") as tmp:
        t = time.perf_counter()
        queries, qrels, runs = generate(Path(tmp))
        print(f"generated {Q} queries, {Q * JUDGED} qrels, {RUNS} runs x {DEPTH} docs "
              f"in {time.perf_counter() - t:.1f} s; best of {repeats} interleaved repeats "
              "(the machine is shared: wall time is noisy, CPU time less so)")  # fmt: skip
        evaudit_single_thread(queries, qrels, runs[:1])  # imports, page cache
        times: dict[str, list[tuple[float, float]]] = {"base": [], "cli": [], "lib": []}
        for _ in range(repeats):
            w, c, base = _timed(pytrec_end_to_end, qrels, runs)
            times["base"].append((w, c))
            w, c, rep = _timed(evaudit_cli, queries, qrels, runs)
            times["cli"].append((w, c))
            w, c, (bound, scored) = _timed(evaudit_single_thread, queries, qrels, runs)
            times["lib"].append((w, c))
        worst = max(abs(rep["runs"][k]["ndcg"] - v) for k, v in base.items())
        print(f"max |NDCG@10 evaudit - pytrec_eval| over {RUNS} runs: {worst:.2e}")
        bw, bc = (min(x[i] for x in times["base"]) for i in (0, 1))
        print(f"{'':44s}{'wall s':>8s}{'CPU s':>8s}{'wall ratio':>12s}{'CPU ratio':>11s}")
        print(f"{'pytrec_eval end to end (baseline)':44s}{bw:8.2f}{bc:8.2f}")
        for key, label in (("cli", "evaudit score nclue end to end (CLI)"),
                           ("lib", "evaudit library, one reader thread")):  # fmt: skip
            w, c = (min(x[i] for x in times[key]) for i in (0, 1))
            print(f"{label:44s}{w:8.2f}{c:8.2f}{bw / w:11.2f}x{bc / c:10.2f}x")

        tags = list(scored)
        pairs = [(tags[2 * i], tags[2 * i + 1]) for i in range(8)]
        t_boot = min(
            _timed(lambda: nclue_report(bound, scored, bootstrap=1000, seed=11))[0]
            for _ in range(repeats)
        )
        t_tests = min(
            _timed(lambda: compare_report(bound, scored, pairs, draws=10_000, bootstrap=1000))[0]
            for _ in range(repeats)
        )
        print(f"1,000 family-bootstrap replicates x {RUNS} runs x 4 metrics: {t_boot:6.2f} s")
        print(f"8 paired tests x 10,000 draws (query + family) + paired CIs: {t_tests:6.2f} s")
        total = t_boot + t_tests
        print(f"bootstrap + tests together: {total:.2f} s (target <= 3 s: "
              f"{'met' if total <= 3 else 'NOT met'})")  # fmt: skip
        robustness(bound, scored, runs, qrels, repeats)


def _crossed_loop(d: np.ndarray, members: list[list[int]], n_docs: int, draws: int) -> list[float]:
    """Baseline: one crossed draw at a time, weights looped in Python."""
    rng = np.random.default_rng(5)
    q = len(members)
    gaps = []
    for _ in range(draws):
        w = np.bincount(rng.integers(0, q, q), minlength=q)
        u = np.bincount(rng.integers(0, n_docs, n_docs), minlength=n_docs)
        num = den = 0.0
        for i in range(q):
            m = members[i]
            wt = w[i] * (sum(u[j] for j in m) / len(m) if m else 1.0)
            num += wt * d[i]
            den += wt
        gaps.append(num / den)
    return gaps


def _bound_loop(pairs, tops, grades, n, k):  # type: ignore[no-untyped-def]
    """Baseline: per query, enumerate every promotion set of <= k judged subsets."""
    import itertools

    def first_gold(rank, g, nq):  # type: ignore[no-untyped-def]
        for doc in rank[:10]:
            if g.get(doc, 0) > 0:
                return int(g[doc] == nq)
        return 0

    out = []
    for b, v in pairs:
        lo = 0
        for q, nq in n.items():
            g = grades.get(q, {})
            rb, rv = tops[b].get(q, []), tops[v].get(q, [])
            cand = sorted(d for d in set(rb[:10]) | set(rv[:10]) if 0 < g.get(d, 0) < nq)
            best = None
            for size in range(min(k, len(cand)) + 1):
                for promo in itertools.combinations(cand, size):
                    gg = {**g, **dict.fromkeys(promo, nq)}
                    val = first_gold(rv, gg, nq) - first_gold(rb, gg, nq)
                    best = val if best is None else min(best, val)
            lo += best or 0
        out.append(lo / len(n))
    return out


def robustness(bound, scored, runs, qrels, repeats):  # type: ignore[no-untyped-def]
    from formats.qrels import read_qrels
    from formats.readers import read_run
    from scorers.runs.qrel_bound import bound_report
    from scorers.runs.sensitivity import memberships, sensitivity_report

    tags = list(scored)
    d = scored[tags[1]].values()[0] - scored[tags[0]].values()[0]
    t_sens = min(
        _timed(lambda: sensitivity_report(bound, d, base=tags[0], variant=tags[1], draws=10_000))[0]
        for _ in range(repeats)
    )
    m = memberships(bound, "gold").matrix.tocsr()
    members = [m.indices[m.indptr[i] : m.indptr[i + 1]].tolist() for i in range(m.shape[0])]
    base_draws = 500
    t_loop = _timed(_crossed_loop, d, members, m.shape[1], base_draws)[0] * 10_000 / base_draws
    print(f"sensitivity, 10,000 crossed + 10,000 one-query/doc draws: {t_sens:6.2f} s "
          f"(target <= 10 s: {'met' if t_sens <= 10 else 'NOT met'}); per-draw Python loop "
          f"(baseline, crossed only, {base_draws} draws scaled): {t_loop:6.1f} s = "
          f"{t_loop / t_sens:.0f}x")  # fmt: skip
    all_pairs = [(tags[0], t) for t in tags[1:]]
    t_bound = min(
        _timed(lambda: bound_report(bound, scored, all_pairs, (1, 2, 3)))[0] for _ in range(repeats)
    )
    qr = read_qrels(qrels)
    grades: dict[str, dict[str, int]] = {}
    for q, doc, g in zip(qr["query_id"], qr["doc_id"], qr["grade"], strict=True):
        grades.setdefault(q, {})[doc] = int(g)
    n = dict(zip(bound.query_ids.to_pylist(), bound.n.tolist(), strict=True))
    few = all_pairs[:8]
    tops = {}
    for t in {x for p in few for x in p}:
        df = read_run(next(r for r in runs if r.stem == t))
        tops[t] = {q: list(g["doc_id"][:10]) for q, g in df.sort_values("score", ascending=False,
                                                                          kind="stable").groupby("query_id")}  # fmt: skip
    t_base, _, loop_vals = _timed(_bound_loop, few, tops, grades, n, 3)
    rep = bound_report(bound, scored, few, (3,))
    worst = max(abs(r.minimum["3"] - x) for r, x in zip(rep.contrasts, loop_vals, strict=True))
    t_base_all = t_base * len(all_pairs) / len(few)
    print(f"bound k=1,2,3, {len(all_pairs)} contrasts: {t_bound:6.3f} s (target <= 10 s: "
          f"{'met' if t_bound <= 10 else 'NOT met'}); promotion-set enumeration loop (baseline, "
          f"k=3, {len(few)} contrasts scaled): {t_base_all:6.1f} s = {t_base_all / t_bound:.0f}x; "
          f"max |difference| {worst:.1e}")  # fmt: skip


if __name__ == "__main__":
    main()
