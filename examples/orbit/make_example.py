"""Generate the orbit example table deterministically: `python examples/orbit/make_example.py`.

A synthetic long table (dataset, reader, claim_id, y, ranker, z1, z2, z3, correct, log_odds)
with two datasets and five readers. Each reader's semantic log odds for a claim is
  sign(y) * (skill + claim ease + ranker gain + interface effects) + noise,
with a small binding (z1) effect on the ranker gain for some readers, an option-order
interaction for one, and `correct` = the log-odds decision matches y. Same output every run.
"""

from __future__ import annotations

import csv
from itertools import product
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("orbit_example.csv")
CLAIMS = 400  # per dataset, half "+" and half "-"
READERS = {
    "FEVER": {"qwen": 0.8, "llama": 1.0, "gemma": 0.6},
    "RAGuard": {"llama": 0.2, "gemma": 0.1},
}
GAIN = {"qwen": 0.5, "llama": 0.3, "gemma": 0.1}  # variant (BGE) minus base (BM25)
BINDING_GAIN = {"qwen": 0.6, "llama": 0.0, "gemma": 0.05}  # gain moves with z1
ORDER_X_BINDING = {"gemma": 0.4}  # a z1*z3 interaction for one reader


def main() -> None:
    rng = np.random.default_rng(20240603)
    rows: list[list[object]] = []
    for dataset, readers in READERS.items():
        y = np.array([1] * (CLAIMS // 2) + [-1] * (CLAIMS // 2))
        ease = {r: rng.normal(0.0, 1.0, CLAIMS) for r in ("BM25", "BGE")}
        for reader, skill in readers.items():
            # A reader's view of a claim is mostly shared by the interfaces (claim-level
            # noise); the interface-specific part is small, as for a consistent reader.
            shared = {r: rng.normal(0.0, 1.0, CLAIMS) for r in ("BM25", "BGE")}
            for i, (ranker, z) in product(range(CLAIMS), product(("BM25", "BGE"), _zs())):
                z1, z2, z3 = z
                gain = 0.0
                if ranker == "BGE":
                    gain = GAIN[reader] + BINDING_GAIN[reader] * z1
                    gain += ORDER_X_BINDING.get(reader, 0.0) * z1 * z3
                # A verdict-dependent vocabulary bias: X/Y labels lean towards "+".
                bias = 0.1 * z2
                score = skill + ease[ranker][i] + gain
                log_odds = y[i] * score + bias + shared[ranker][i] + rng.normal(0.0, 0.3)
                correct = int((log_odds > 0) == (y[i] > 0))
                rows.append(
                    [
                        dataset,
                        reader,
                        f"{dataset[:2]}{i:04d}",
                        "+" if y[i] > 0 else "-",
                        ranker,
                        z1,
                        z2,
                        z3,
                        correct,
                        f"{log_odds:.4f}",
                    ]
                )
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(
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
            ]
        )
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


def _zs() -> list[tuple[int, ...]]:
    """(z1, z2, z3) in interface order "+++", "++-", "+-+", ..., "---"."""
    return list(product((1, -1), repeat=3))


if __name__ == "__main__":
    main()
