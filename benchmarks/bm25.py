"""Benchmark: `evaudit runs bm25` against rank_bm25, both as whole processes.

Generates a BEIR folder of 20,000 passages (Zipf-distributed words from a 30,000-word
vocabulary, 60-200 words each) and 1,000 queries of 3-8 words, ingests and loads it into
a project once (untimed), then times, each as its own process, end to end (start-up,
reading the 20,000 units from the store or the corpus file, indexing, ranking every
query, writing a TREC run of depth 1,000):

* evaudit: `python -m evaudit runs bm25 P --level page --method robertson --k1 1.5
  --b 0.75 --depth 1000 --out F`;
* rank_bm25 (baseline): a plain script that reads the same corpus, tokenizes it with
  the same tokenizer, builds `BM25Okapi(k1=1.5, b=0.75)`, calls `get_scores` per query,
  takes the top 1,000 by score then unit order, and writes the same run.

The two runs are compared (same units per query in the same order where no term is
in half the passages or more; scores equal up to the constant factor k1 + 1). Peak
memory (max RSS) of each process is printed beside its time.

Run: .venv/bin/python benchmarks/bm25.py [--repeats 3] [--pages 20000] [--queries 1000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

BASELINE = r"""
import json, sys
import numpy as np
from rank_bm25 import BM25Okapi
sys.path.insert(0, sys.argv[1])
from packet_builder.routes.base import tokenize
corpus, queries, out = sys.argv[2], sys.argv[3], sys.argv[4]
ids, docs = [], []
with open(corpus, encoding="utf-8") as fh:
    for line in fh:
        o = json.loads(line)
        ids.append(o["_id"] + "#1")
        docs.append(tokenize(o["text"]))
# The store holds units by doc id: the same order, so ties break alike.
order = sorted(range(len(ids)), key=lambda i: ids[i])
ids, docs = [ids[i] for i in order], [docs[i] for i in order]
bm = BM25Okapi(docs, k1=1.5, b=0.75)
names = np.asarray(ids, dtype=object)
with open(queries, encoding="utf-8") as fh, open(out, "w") as w:
    for line in fh:
        q = json.loads(line)
        s = bm.get_scores(tokenize(q["text"]))
        idx = np.flatnonzero(s)
        idx = idx[np.lexsort((idx, -s[idx]))][:1000]
        for r, i in enumerate(idx, 1):
            w.write(f"{q['_id']} Q0 {names[i]} {r} {float(s[i])!r} rank_bm25\n")
"""


def _generate(root: Path, pages: int, queries: int) -> Path:
    rng = np.random.default_rng(11)
    vocab = np.asarray([f"w{i}" for i in range(30_000)], dtype=object)
    weights = 1.0 / np.arange(1, len(vocab) + 1) ** 1.07
    weights /= weights.sum()
    beir = root / "beir"
    (beir / "qrels").mkdir(parents=True)
    with (beir / "corpus.jsonl").open("w") as fh:
        for i in range(pages):
            words = rng.choice(vocab, size=int(rng.integers(60, 200)), p=weights)
            fh.write(json.dumps({"_id": f"p{i}", "title": "", "text": " ".join(words)}) + "\n")
    # Queries of mid-frequency words, so each matches hundreds to thousands of passages.
    with (beir / "queries.jsonl").open("w") as fh:
        for q in range(queries):
            words = rng.choice(vocab[50:5000], size=int(rng.integers(3, 9)))
            fh.write(json.dumps({"_id": f"q{q}", "text": " ".join(words)}) + "\n")
    with (beir / "qrels" / "test.tsv").open("w") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for q in range(queries):
            fh.write(f"q{q}\tp{int(rng.integers(pages))}\t1\n")
    return beir


def _guideline(root: Path) -> Path:
    path = root / "guideline.json"
    path.write_text(json.dumps({"default": {"requirement": "The passage answers the query."}}))
    return path


def _proc(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process (CPU: user + system, from the
    children's usage before and after; the processes run one at a time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def _peak(args: list[str]) -> float:
    """Peak RSS (MiB) of one process, measured on its own with /usr/bin/time's counter."""
    code = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
        "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout  # fmt: skip
    return int(out.split()[-1]) / 1024


def _read(path: Path) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        out.setdefault(q, []).append((d, float(s)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=1_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        beir = _generate(root, args.pages, args.queries)
        proj = root / "proj"
        ev = [sys.executable, "-m", "evaudit"]
        for step in (["init", str(proj), "--admin-password", "bench-Pw-7d1f3c9a"],
                     ["ingest", str(proj), "--beir", str(beir)],
                     ["load", str(proj), "--beir", str(beir), "--split", "test",
                      "--relevant-from", "1", "--guideline", str(_guideline(root))]):  # fmt: skip
            done = subprocess.run([*ev, *step], capture_output=True, text=True, cwd=ROOT)
            if done.returncode:
                sys.exit(f"evaudit {step[0]} failed: {done.stderr.strip()}")
        ours, theirs = root / "evaudit.trec", root / "rank_bm25.trec"
        cmd_ev = [*ev, "runs", "bm25", str(proj), "--level", "page", "--method", "robertson",
                  "--k1", "1.5", "--b", "0.75", "--depth", "1000", "--out", str(ours)]  # fmt: skip
        cmd_rb = [sys.executable, "-c", BASELINE, str(ROOT), str(beir / "corpus.jsonl"),
                  str(beir / "queries.jsonl"), str(theirs)]  # fmt: skip
        t_ev, t_rb = [], []
        for _ in range(args.repeats):
            t_rb.append(_proc(cmd_rb))
            t_ev.append(_proc(cmd_ev))
        m_ev, m_rb = _peak(cmd_ev), _peak(cmd_rb)
        a, b = _read(ours), _read(theirs)
        same = sum(a.get(q, []) and [d for d, _ in a[q]] == [d for d, _ in b[q]] for q in b)
        worst = max((abs(sa * 2.5 - sb) / max(abs(sb), 1e-300)
                     for q in b if [d for d, _ in a.get(q, [])] == [d for d, _ in b[q]]
                     for (_, sa), (_, sb) in zip(a[q], b[q], strict=True)), default=0.0)  # fmt: skip
    print(
        f"bm25: {args.pages} pages x {args.queries} queries, depth 1000; "
        f"identical lists {same}/{len(b)} (the rest differ where rank_bm25's epsilon idf "
        f"applies), max relative score gap {worst:.1e}"
    )
    (w_ev, c_ev), (w_rb, c_rb) = min(t_ev), min(t_rb)
    print(
        f"  evaudit runs bm25 (process): best {w_ev:.2f} s wall ({c_ev:.2f} s CPU) of "
        f"{args.repeats}, peak RSS {m_ev:.0f} MiB"
    )
    print(
        f"  rank_bm25 loop (process):    best {w_rb:.2f} s wall ({c_rb:.2f} s CPU) of "
        f"{args.repeats}, peak RSS {m_rb:.0f} MiB"
    )
    print(
        f"  ratio (rank_bm25 / evaudit): {w_rb / w_ev:.1f}x wall, {c_rb / c_ev:.1f}x CPU "
        "(target >= 20x)"
    )


if __name__ == "__main__":
    main()
