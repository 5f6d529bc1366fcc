"""Benchmark: `score impact` on a classic benchmark against a plain per-pair loop.

Generates, in a temporary folder, a classic benchmark of 1,000 queries with 50 graded
judgments each (grades 0-2, TREC qrels), a revision of it that changes 500 labels (grades
changed, demoted to 0, unjudged documents judged), and 70 TREC run files of 100 documents
per query (30 judged, 70 unjudged, distinct scores). Then times, in this one process:

* evaudit: `services.impact_classic.classic_impact` end to end (what `evaudit score
  impact --qrels-before B --qrels-after A --run ... --measure ndcg_cut_10 --all-pairs`
  runs): reading the qrels and 70 runs, ndcg_cut_10 per query under both copies through
  the measure adapter, 1,000 paired bootstrap replicates of every run's change,
  Judged@10, the rankings, randomization (10,000 sign-flip draws) and t-tests of all
  2,415 pairs before and after with Holm and discriminative power, and the influence of
  each of the 500 changed labels applied alone;
* baseline: the same randomization and t-tests as a plain per-pair loop over the same
  per-query values (`scorers.runs.paired.sign_flip_pvalues` and `scipy.stats.ttest_rel`
  on each pair's differences, the n-Clue commands' per-pair test), on BASELINE_PAIRS pairs
  per side and scaled to 2,415 (a full loop takes about 20 minutes); its p-values are
  checked equal to evaudit's for those pairs.

Run: .venv/bin/python benchmarks/impact.py [--baseline-pairs N] (target: evaudit <= 60 s)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

Q, JUDGED, RUNS, DEPTH, CHANGES = 1000, 50, 70, 100, 500


def generate(root: Path, seed: int = 11) -> tuple[Path, Path, list[Path]]:
    rng = np.random.default_rng(seed)
    grades = rng.choice([0, 0, 1, 2], size=(Q, JUDGED))
    before = {(f"q{q:04d}", f"d{q:04d}_{j:03d}"): int(grades[q, j])
              for q in range(Q) for j in range(JUDGED)}  # fmt: skip
    runs: list[Path] = []
    unjudged_seen: list[tuple[str, str]] = []
    skill = np.linspace(0.0, 1.5, RUNS)
    for r in range(RUNS):
        lines = []
        for q in range(Q):
            qid = f"q{q:04d}"
            judged = rng.choice(JUDGED, 30, replace=False)
            docs = [f"d{q:04d}_{j:03d}" for j in judged] + [f"u{q:04d}_{j:03d}" for j in
                                                            rng.choice(400, DEPTH - 30, replace=False)]  # fmt: skip
            gain = np.concatenate([grades[q, judged], np.zeros(DEPTH - 30)])
            scores = rng.random(DEPTH) + skill[r] * gain / 2
            order = np.argsort(-scores)
            lines += [f"{qid} Q0 {docs[i]} {rank + 1} {scores[i]:.9f} run{r:02d}\n"
                      for rank, i in enumerate(order)]  # fmt: skip
            if r == 0:
                unjudged_seen += [(qid, d) for d in docs[30:32]]
        path = root / f"run{r:02d}.trec"
        path.write_text("".join(lines))
        runs.append(path)
    after = dict(before)
    keys = list(before)
    picks = rng.choice(len(keys), CHANGES - 100, replace=False)
    for i in picks:  # 400 judged labels changed (many demoted to 0)
        k = keys[int(i)]
        after[k] = int(rng.choice([g for g in (0, 1, 2) if g != before[k]]))
    for k in unjudged_seen[:100]:  # 100 unjudged documents judged relevant
        after[k] = 2
    paths = []
    for name, qrels in (("before.txt", before), ("after.txt", after)):
        path = root / name
        path.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in qrels.items()))
        paths.append(path)
    return paths[0], paths[1], runs


def per_query(before: Path, after: Path, runs: list[Path]) -> dict[str, np.ndarray]:
    """ndcg_cut_10 per query under both copies, through the same adapter."""
    from formats.qrels import graded_qrels_rows
    from services.impact_inputs import measure_values, run_files

    rows = run_files([(None, p) for p in runs])
    out = {}
    for side, path in (("before", before), ("after", after)):
        _n, vals = measure_values(["ndcg_cut_10"], graded_qrels_rows(path), rows, "trec_eval")
        qids = sorted(next(iter(vals.values())))
        out[side] = np.array([[vals[t][q]["ndcg_cut_10"] for q in qids] for t in rows])
    return out


def baseline_loop(
    x: np.ndarray, pairs: list[tuple[int, int]], draws: int
) -> tuple[np.ndarray, np.ndarray]:
    from scipy import stats

    from scorers.runs.paired import sign_flip_pvalues

    pr, pt = [], []
    for b, v in pairs:
        pr.append(sign_flip_pvalues(x[v] - x[b], draws=draws, seed=11)[0])
        pt.append(stats.ttest_rel(x[v], x[b]).pvalue)
    return np.array(pr), np.array(pt)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline-pairs", type=int, default=30, help="pairs per side the loop runs")
    ap.add_argument("--draws", type=int, default=10_000)
    args = ap.parse_args()
    from scorers.impact.paired import all_pairs
    from services.impact_classic import ClassicOptions, classic_impact

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        before, after, runs = generate(root)
        print(f"generated {RUNS} runs x {Q} queries in {time.perf_counter() - t0:.1f} s")
        opts = ClassicOptions(measures=("ndcg_cut_10",), all_pairs=True, draws=args.draws)
        t0, c0 = time.perf_counter(), time.process_time()
        rep = classic_impact(qrels_before=before, qrels_after=after,
                             runs=[(None, p) for p in runs], options=opts)  # fmt: skip
        t_evaudit, c_evaudit = time.perf_counter() - t0, time.process_time() - c0
        body = rep.to_json()
        m = body["by_measure"]["ndcg_cut_10"]
        assert len(m["pairs"]) == 2415 and body["labels_changed"] == CHANGES, body["labels_changed"]
        t0 = time.perf_counter()
        x = per_query(before, after, runs)
        t_scoring = time.perf_counter() - t0
        every = all_pairs(RUNS)
        step = max(1, len(every) // args.baseline_pairs)
        sample = every[::step][: args.baseline_pairs]
        t0, c0 = time.perf_counter(), time.process_time()
        for side in ("before", "after"):
            pr, pt = baseline_loop(x[side], sample, args.draws)
            idx = [every.index(p) for p in sample]
            got_r = [m["pairs"][i][side]["p_randomization"] for i in idx]
            got_t = [m["pairs"][i][side]["p_t"] for i in idx]
            assert np.array_equal(pr, got_r), "randomization p differs from the loop"
            assert np.allclose(pt, got_t, rtol=1e-10), "t-test p differs from scipy"
        t_loop = (time.perf_counter() - t0) * len(every) / len(sample)
        c_loop = (time.process_time() - c0) * len(every) / len(sample)
        print(
            f"evaudit classic impact end to end: {t_evaudit:.1f} s wall, {c_evaudit:.1f} CPU-s "
            f"(target <= 60 s; of which scoring both copies ~{t_scoring:.1f} s wall)"
        )
        print(
            f"baseline per-pair loop, tests only: {t_loop:.0f} s wall, {c_loop:.0f} CPU-s "
            f"(measured on {len(sample)} pairs per side, scaled to {len(every)})"
        )
        print(
            f"ratio (loop tests only / evaudit end to end): {t_loop / t_evaudit:.1f}x wall, "
            f"{c_loop / c_evaudit:.1f}x CPU; to evaudit without scoring: "
            f"{t_loop / max(t_evaudit - t_scoring, 1e-9):.1f}x wall; load {os.getloadavg()[0]:.1f}"
        )
        dp = m["discriminative_power"]
        print(
            f"discriminative power (randomization) {dp['before']['randomization']:.3f} -> "
            f"{dp['after']['randomization']:.3f}; Kendall tau {m['ordering']['kendall']:.3f}"
        )


if __name__ == "__main__":
    main()
