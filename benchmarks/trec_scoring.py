"""Benchmark: `evaudit score trec` and `evaudit trec_eval -m all_trec` against
pytrec_eval, ir_measures and ranx, each end to end as its own process (start-up,
parsing and scoring included), on the files `_data.generate` writes: 1,000 queries,
50,000 graded qrels, 70 runs x 100 documents.

* `score trec --measure ndcg_cut_10,P_10,map,recall_100` of the 70 runs in one
  process, against one process of each peer doing the same four measures over the
  same 70 files: pytrec_eval (a plain line loop into dicts, RelevanceEvaluator),
  ir_measures (read_trec_qrels/read_trec_run, calc_aggregate) and ranx
  (Qrels/Run.from_file, evaluate; numba cache warmed by an untimed run);
* every all_trec measure of the 70 runs in one process (`score trec --measure
  all_trec`) against one pytrec_eval process evaluating every all_trec measure it has
  over the same 70 files;
* `trec_eval -m all_trec QRELS RUN`, one process per run as trec_eval is used,
  against one pytrec_eval process per run evaluating every all_trec measure it has
  (here start-up dominates: numpy and pyarrow alone import in about 0.25 CPU-s).

Both rounds check the peers' means against evaudit's. Figures: wall and CPU seconds
(children's user + system) of all the processes of a round, best of REPEATS rounds,
interleaved. Run: .venv/bin/python benchmarks/scoring.py trec [REPEATS=3]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

PY = sys.executable
EVAUDIT = str(Path(PY).with_name("evaudit"))
FOUR = ["ndcg_cut_10", "P_10", "map", "recall_100"]

_PYTREC = r"""
import json, sys, pytrec_eval
qrels, measures, runs = sys.argv[1], sys.argv[2].split(";"), sys.argv[3:]
qd = {}
with open(qrels) as fh:
    for line in fh:
        q, _, d, g = line.split()
        qd.setdefault(q, {})[d] = int(g)
ev = pytrec_eval.RelevanceEvaluator(qd, set(measures))
out = {}
for path in runs:
    rd = {}
    with open(path) as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()[:6]
            rd.setdefault(q, {})[d] = float(s)
    res = ev.evaluate(rd)
    names = sorted({k for v in res.values() for k in v})
    out[path] = {k: sum(res[q][k] for q in sorted(res)) / len(res) for k in names}
print(json.dumps(out))
"""
_IRM = r"""
import json, sys, ir_measures
from ir_measures import nDCG, P, AP, R
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
out = {}
for path in sys.argv[2:]:
    agg = ir_measures.calc_aggregate([nDCG@10, P@10, AP, R@100], qrels,
                                     ir_measures.read_trec_run(path))
    out[path] = {"ndcg_cut_10": agg[nDCG@10], "P_10": agg[P@10], "map": agg[AP],
                 "recall_100": agg[R@100]}
print(json.dumps(out))
"""
_RANX = r"""
import json, sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
out = {}
for path in sys.argv[2:]:
    r = evaluate(qrels, Run.from_file(path, kind="trec"),
                 ["ndcg@10", "precision@10", "map", "recall@100"])
    out[path] = {"ndcg_cut_10": r["ndcg@10"], "P_10": r["precision@10"], "map": r["map"],
                 "recall_100": r["recall@100"]}
print(json.dumps(out))
"""
# pytrec_eval's share of all_trec (it has no rbp, rbp_resid, unj)
PYTREC_ALL = ["map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
              "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
              "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
              "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
              "num_nonrel_judged_ret", "num_ret", "num_rel", "num_rel_ret"]  # fmt: skip


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(cmds: list[list[str]]) -> tuple[float, float, list[str]]:
    """Wall and CPU seconds of running the commands one after another, and their outputs."""
    w, c = time.perf_counter(), _children_cpu()
    outs = []
    for cmd in cmds:
        p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ})
        assert p.returncode == 0, (cmd[:3], p.stderr[-2000:])
        outs.append(p.stdout)
    return time.perf_counter() - w, _children_cpu() - c, outs


def _best(times: list[tuple[float, float]]) -> tuple[float, float]:
    return min(t[0] for t in times), min(t[1] for t in times)


def four_measures(qrels: Path, runs: list[Path], repeats: int) -> None:
    files = [str(p) for p in runs]
    cmds = {
        "evaudit score trec": [[EVAUDIT, "score", "trec", "--qrels", str(qrels), "--measure",
                                ",".join(FOUR), "--json", *(a for f in files for a in ("--run", f))]],
        "pytrec_eval": [[PY, "-c", _PYTREC, str(qrels), "ndcg_cut.10;P.10;map;recall.100", *files]],
        "ir_measures": [[PY, "-c", _IRM, str(qrels), *files]],
        "ranx (warm)": [[PY, "-c", _RANX, str(qrels), *files]],
    }  # fmt: skip
    _run([[PY, "-c", _RANX, str(qrels), files[0]]])  # numba compiles and caches here
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
    outs: dict[str, str] = {}
    for _ in range(repeats):
        for name, cmd in cmds.items():
            w, c, out = _run(cmd)
            times[name].append((w, c))
            outs[name] = out[0]
    ours = json.loads(outs["evaudit score trec"])["runs"]
    worst = {}
    for name in ("pytrec_eval", "ir_measures", "ranx (warm)"):
        peer = json.loads(outs[name])
        worst[name] = max(
            abs(ours[Path(f).stem]["mean"][m] - peer[f][m]) for f in files for m in FOUR
        )
    print(f"score trec ({','.join(FOUR)}), {len(runs)} runs, one process each tool:")
    print(
        f"{'':28s}{'wall s':>8s}{'CPU s':>8s}{'vs pytrec wall':>16s}{'CPU':>7s}{'max |diff|':>12s}"
    )
    bw, bc = _best(times["pytrec_eval"])
    for name in cmds:
        w, c = _best(times[name])
        diff = f"{worst[name]:.1e}" if name in worst else "-"
        print(f"{name:28s}{w:8.2f}{c:8.2f}{bw / w:15.2f}x{bc / c:6.2f}x{diff:>12s}")


def batch_all_trec(qrels: Path, runs: list[Path], repeats: int) -> None:
    files = [str(p) for p in runs]
    ours = [[EVAUDIT, "score", "trec", "--qrels", str(qrels), "--measure", "all_trec", "--json",
             *(a for f in files for a in ("--run", f))]]  # fmt: skip
    base = [[PY, "-c", _PYTREC, str(qrels), ";".join(PYTREC_ALL), *files]]
    times: dict[str, list[tuple[float, float]]] = {"ours": [], "base": []}
    for _ in range(repeats):
        w, c, base_out = _run(base)
        times["base"].append((w, c))
        w, c, ours_out = _run(ours)
        times["ours"].append((w, c))
    mine, peer = json.loads(ours_out[0])["runs"], json.loads(base_out[0])
    worst = max(
        abs(mine[Path(f).stem]["mean"][k] - v)
        for f in files
        for k, v in peer[f].items()
        if k in mine[Path(f).stem]["mean"] and not k.startswith(("num_", "gm_"))
    )
    bw, bc = _best(times["base"])
    ow, oc = _best(times["ours"])
    print(f"all_trec of {len(runs)} runs in one process:")
    print(
        f"  pytrec_eval (its {len(PYTREC_ALL)} all_trec measures): {bw:7.2f} s wall {bc:7.2f} CPU-s"
    )
    print(f"  evaudit score trec --measure all_trec:      {ow:7.2f} s wall {oc:7.2f} CPU-s"
          f" = {bw / ow:.2f}x wall, {bc / oc:.2f}x CPU; max |mean diff| {worst:.1e}")  # fmt: skip


def all_trec(qrels: Path, runs: list[Path], repeats: int) -> None:
    files = [str(p) for p in runs]
    ours_cmds = [[EVAUDIT, "trec_eval", "-m", "all_trec", "--json", str(qrels), f] for f in files]
    base_cmds = [[PY, "-c", _PYTREC, str(qrels), ";".join(PYTREC_ALL), f] for f in files]
    times: dict[str, list[tuple[float, float]]] = {"ours": [], "base": []}
    for _ in range(repeats):
        w, c, base_out = _run(base_cmds)
        times["base"].append((w, c))
        w, c, ours_out = _run(ours_cmds)
        times["ours"].append((w, c))
    worst = 0.0
    for f, o, b in zip(files, ours_out, base_out, strict=True):
        mine, peer = json.loads(o)["all"], json.loads(b)[f]
        for k, v in peer.items():
            if k in mine and not k.startswith(("num_", "gm_")):
                worst = max(worst, abs(mine[k] - v))
    bw, bc = _best(times["base"])
    ow, oc = _best(times["ours"])
    print(f"trec_eval -m all_trec, one process per run x {len(runs)} runs:")
    print(
        f"  pytrec_eval (its {len(PYTREC_ALL)} all_trec measures): {bw:7.2f} s wall {bc:7.2f} CPU-s"
    )
    print(f"  evaudit trec_eval -m all_trec:             {ow:7.2f} s wall {oc:7.2f} CPU-s"
          f" = {bw / ow:.2f}x wall, {bc / oc:.2f}x CPU; max |mean diff| {worst:.1e}")  # fmt: skip


def main(root: Path, repeats: int) -> None:
    from benchmarks._data import DEPTH, JUDGED, RUNS, Q, generate

    _, qrels, runs = generate(root)
    print(f"{Q} queries, {Q * JUDGED} qrels, {RUNS} runs x {DEPTH} docs; best of {repeats}")
    four_measures(qrels, runs, repeats)
    batch_all_trec(qrels, runs, repeats)
    all_trec(qrels, runs, max(1, repeats // 2))


if __name__ == "__main__":
    import argparse
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("repeats", nargs="?", type=int, default=3, metavar="REPEATS")
    with tempfile.TemporaryDirectory(prefix="evaudit-bench-trec-") as tmp:
        main(Path(tmp), ap.parse_args().repeats)
