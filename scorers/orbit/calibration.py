"""The BM25 calibration grid of the orbit paper (pure).

"Which Reranking Conclusions Survive the Answer Interface? A Prospective Finite-Orbit
Audit" calibrates BM25 before any downstream evaluation: over a prespecified grid of
depth K and parameters k1, b, it selects the shallowest configuration that satisfies a
fixed complete-evidence coverage requirement (its Section "Setup": K = 200, k1 = 0.8,
b = 0.2). A query is covered at depth K when every one of its evidence documents is
among its top K; coverage is the share of covered queries among those with evidence.

The project's reading of what the paper leaves open: among the settings that meet the
target at the shallowest K, the highest coverage wins, then the earliest (k1, b) in the
order the grid lists them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Cell:
    depth: int
    k1: float
    b: float
    covered: int
    queries: int

    @property
    def coverage(self) -> float:
        return self.covered / self.queries if self.queries else 0.0


def deepest_ranks(ranked: dict[str, Sequence[str]], evidence: dict[str, set[str]]) -> np.ndarray:
    """Per query with evidence: the rank (1-based) of its deepest evidence document in
    its list, or infinity where one is missing from the list."""
    out = []
    for qid in sorted(evidence):
        need = evidence[qid]
        pos = {d: i + 1 for i, d in enumerate(ranked.get(qid, ()))}
        out.append(max((pos.get(d, np.inf) for d in need), default=np.inf))
    return np.asarray(out, dtype=np.float64)


def grid_cells(deepest: dict[tuple[float, float], np.ndarray], depths: Sequence[int]) -> list[Cell]:
    """Every (K, k1, b) cell, from each (k1, b)'s deepest-evidence ranks."""
    cells = []
    for k in sorted(depths):
        for (k1, b), ranks in deepest.items():
            cells.append(Cell(k, k1, b, int((ranks <= k).sum()), len(ranks)))
    return cells


def select(cells: Sequence[Cell], target: float) -> Cell | None:
    """The shallowest cell meeting `target`; then the highest coverage; then grid order."""
    meeting = [c for c in cells if c.coverage >= target]
    if not meeting:
        return None
    shallowest = min(c.depth for c in meeting)
    at = [c for c in meeting if c.depth == shallowest]
    best = max(c.coverage for c in at)
    return next(c for c in at if c.coverage == best)
