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
  with 10,000 sign-flip draws each (with their paired family-bootstrap CIs).

Run: .venv/bin/python benchmarks/scoring.py [REPEATS=3]  (best of REPEATS, interleaved)
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

Q, JUDGED, RUNS, DEPTH = 1000, 50, 70, 100


def _write_space_separated(path: Path, columns: dict[str, pa.Array]) -> None:
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(pa.table(columns), path, write_options=opts)


def generate(root: Path, seed: int = 11) -> tuple[Path, Path, list[Path]]:
    rng = np.random.default_rng(seed)
    qids = np.array([f"q{i:04d}" for i in range(Q)])
    n = rng.integers(2, 5, Q)
    with (root / "queries.jsonl").open("w") as fh:
        for q, nq in zip(qids, n, strict=True):
            conds = [
                {"condition_id": f"c{j}", "name": f"cond {j}", "requirement": "r"}
                for j in range(nq)
            ]
            fh.write(json.dumps({"query_id": q, "text": f"query {q}", "conditions": conds}) + "\n")
    # 50 judged documents per query; the first 1-3 are gold; 30% of queries copy
    # another query's gold set, forming exact gold families.
    docs = np.array([[f"d{q:04d}{j:03d}" for j in range(JUDGED)] for q in range(Q)], dtype=object)
    n_gold = rng.integers(1, 4, Q)
    for q in np.flatnonzero(rng.random(Q) < 0.3):
        src = int(rng.integers(0, Q))
        g = min(n_gold[src], n_gold[q])
        n_gold[q] = g
        docs[q, :g] = docs[src, :g]
    subset = 1 + (rng.random((Q, JUDGED)) * (n - 1)[:, None]).astype(int)  # 1..n-1
    is_gold = np.arange(JUDGED)[None, :] < n_gold[:, None]
    grades = np.where(is_gold, n[:, None], subset)
    qrels = root / "qrels.txt"
    _write_space_separated(
        qrels,
        {
            "q": pa.array(np.repeat(qids, JUDGED)),
            "z": pa.array(["0"] * (Q * JUDGED)),
            "d": pa.array(docs.ravel()),
            "g": pa.array(grades.ravel()),
        },
    )
    runs = []
    for r in range(RUNS):
        judged = np.argsort(rng.random((Q, JUDGED)), axis=1)[:, :30]
        picked = np.take_along_axis(docs, judged, axis=1)
        unjudged = np.argsort(rng.random((Q, 400)), axis=1)[:, : DEPTH - 30]
        udocs = np.char.add("u", unjudged.astype(str)).astype(object)
        udocs = np.char.add(np.char.add(udocs.astype(str), "-"), qids[:, None]).astype(object)
        alldocs = np.concatenate([picked, udocs], axis=1)
        scores = rng.random((Q, DEPTH))
        order = np.argsort(-scores, axis=1)
        path = root / f"run{r:02d}.trec"
        _write_space_separated(
            path,
            {
                "q": pa.array(np.repeat(qids, DEPTH)),
                "z": pa.array(["Q0"] * (Q * DEPTH)),
                "d": pa.array(np.take_along_axis(alldocs, order, axis=1).ravel()),
                "r": pa.array(np.tile(np.arange(1, DEPTH + 1), Q)),
                "s": pa.array(np.take_along_axis(scores, order, axis=1).ravel()),
                "t": pa.array([f"run{r:02d}"] * (Q * DEPTH)),
            },
        )
        runs.append(path)
    return root / "queries.jsonl", qrels, runs


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
    from packet_builder.readers import read_qrels, read_queries, read_run
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

    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
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


if __name__ == "__main__":
    main()
