"""Generate the orbit input-checks example: `python examples/orbit/make_checks_example.py`.

A small long table like orbit_example.csv with the two optional check columns of
"Which Reranking Conclusions Survive the Answer Interface?":

* ``generated``: the label greedy generation produced (diagnostic only); one reader
  ("mistral") often generates no valid label, as in the paper's Mistral rows;
* ``evidence_covered``: 1 when the claim's BM25 candidate pool holds its complete gold
  evidence (the coverage pre-check; the same on every row of a claim).

    evaudit orbit diagnostics examples/orbit/orbit_checks_example.csv
    evaudit orbit coverage examples/orbit/orbit_checks_example.csv --required 0.9
    evaudit orbit analyze examples/orbit/orbit_checks_example.csv --base BM25 --variant BGE

Same output every run.
"""

from __future__ import annotations

import csv
from itertools import product
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("orbit_checks_example.csv")
CLAIMS = 60  # per dataset, half "+" and half "-"
READERS = {"FEVER": ("qwen", "mistral"), "RAGuard": ("llama", "mistral")}
INVALID = {"qwen": 0.0, "llama": 0.02, "mistral": 0.6}  # share of invalid generations
COVERED = {"FEVER": (0.93, 0.90), "RAGuard": (0.97, 0.95)}  # per state +, -


def main() -> None:
    rng = np.random.default_rng(19)
    rows: list[list[object]] = []
    for dataset, readers in READERS.items():
        y = ["+"] * (CLAIMS // 2) + ["-"] * (CLAIMS // 2)
        covered = [int(rng.random() < COVERED[dataset][0 if s == "+" else 1]) for s in y]
        for reader in readers:
            for i, ranker in product(range(CLAIMS), ("BM25", "BGE")):
                p_correct = 0.72 + (0.05 if ranker == "BGE" else 0.0)
                for z in product((1, -1), repeat=3):
                    log_odds = float(rng.normal(1.0 if y[i] == "+" else -1.0, 1.5))
                    correct = (
                        int((log_odds > 0) == (y[i] == "+"))
                        if rng.random() < 0.9
                        else int(rng.random() < p_correct)
                    )
                    decided = y[i] if correct else ("-" if y[i] == "+" else "+")
                    if rng.random() < INVALID[reader]:
                        generated = ""
                    elif rng.random() < 0.05:
                        generated = "-" if decided == "+" else "+"
                    else:
                        generated = decided
                    rows.append(
                        [
                            dataset,
                            reader,
                            f"{dataset[:2]}{i:03d}",
                            y[i],
                            ranker,
                            *z,
                            correct,
                            f"{log_odds:.4f}",
                            generated,
                            covered[i],
                        ]
                    )
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(
            [
                "dataset",
                "reader",
                "claim_id",
                "y",
                "ranker",
                "z1",
                "z2",
                "z3",
                "correct",
                "log_odds",
                "generated",
                "evidence_covered",
            ]
        )
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
