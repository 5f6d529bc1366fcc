"""`seg_cumsum` adds within each query one row after another, as trec_eval's loops do:
checked bit for bit against a plain Python running sum on fixed-depth runs (its
reshape path), ragged runs (its grid and loop paths) and integer-valued inputs."""

from __future__ import annotations

import numpy as np
import pytest

from scorers.trec_engine import seg_cumsum


def _plain(x: np.ndarray, counts: list[int]) -> list[float]:
    out: list[float] = []
    at = 0
    for n in counts:
        total = 0.0
        for v in x[at : at + n].tolist():
            total += v
            out.append(total)
        at += n
    return out


@pytest.mark.parametrize(
    "counts",
    [[100] * 50, [1] * 7, [3, 1, 4, 1, 5, 9, 2, 6], [1, 2000, 1], [5, 5, 5, 6]],
    ids=["fixed-depth", "one-each", "ragged", "one-long-query", "almost-fixed"],
)
@pytest.mark.parametrize("kind", ["float", "integer"])
def test_running_sum_per_query_equals_plain_addition(counts: list[int], kind: str) -> None:
    rng = np.random.default_rng(len(counts) * 7 + sum(counts))
    n = sum(counts)
    x = rng.random(n) * 10 if kind == "float" else rng.integers(0, 4, n).astype(np.float64)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    q = np.repeat(np.arange(len(counts)), counts)
    got = seg_cumsum(x, starts, q)
    assert got.tolist() == _plain(x, counts)  # exact: the same additions in the same order
