"""The benchmark data both benchmarks/scoring.py and benchmarks/runs.py time (one module
they import, so neither imports the other's script): 1,000 queries, 50,000 graded qrels
and 70 TREC runs of 100 documents per query, written with distinct scores."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

Q, JUDGED, RUNS, DEPTH = 1000, 50, 70, 100


def write_space_separated(path: Path, columns: dict[str, pa.Array]) -> None:
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
    write_space_separated(
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
        write_space_separated(
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
