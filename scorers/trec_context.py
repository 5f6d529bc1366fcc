"""The per-run arrays every trec_eval measure reads (`scorers.trec_compute`,
`scorers.trec_gains`): relevance flags, running relevant counts, R, and a memo for
values several measures share.

Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from scorers.trec_engine import Options, Ranking, TrecQrels, apply_gains, log2_of, seg_cumsum


class Ctx:
    """Shared per-run arrays, computed once and reused by every measure."""

    def __init__(self, qrels: TrecQrels, rk: Ranking, opts: Options) -> None:
        self.qrels, self.rk, self.opts = qrels, rk, opts
        self.E = len(rk.eq)
        lvl = opts.level
        self.R = qrels.num_rel(lvl)[rk.eq].astype(np.int64)
        self.isrel = rk.rel >= lvl
        self.cum = seg_cumsum(self.isrel.astype(np.float64), rk.starts, rk.q)
        self.nrr = np.bincount(rk.q[self.isrel], minlength=self.E)
        self.ret = rk.n
        self.memo: dict[Any, Any] = {}

    def once(self, key: Any, make: Callable[[], Any]) -> Any:
        """A value several measures share (bpref and gm_bpref, the running DCG, ...)."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def running_dcg(self, pairs: tuple[tuple[str, float], ...]) -> np.ndarray:
        """DCG over each query's first i+1 documents, per row, added in rank order."""

        def make() -> np.ndarray:
            gain = apply_gains(self.rk.rel, pairs)
            w = np.where(gain != 0, gain / log2_of(self.rk.pos + 2), 0.0)
            return seg_cumsum(w, self.rk.starts, self.rk.q)

        return self.once(("dcg", pairs), make)  # type: ignore[no-any-return]

    def count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.rk.q[mask], minlength=self.E)

    def total(self, w: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        q = self.rk.q
        if mask is not None:
            q, w = q[mask], w[mask]
        return np.bincount(q, weights=w, minlength=self.E)

    def top(self, running: np.ndarray, k: np.ndarray | int) -> np.ndarray:
        """A running per-row value at each query's row min(k, n) (0 for no rows)."""
        take = np.minimum(k, self.ret)
        out = np.zeros(self.E)
        ok = take > 0
        idx = self.rk.starts[:-1] + take - 1
        out[ok] = running[idx[ok]]
        return out

    def rel_in_top(self, k: np.ndarray | int) -> np.ndarray:
        return self.top(self.cum, k)


def ratio(a: np.ndarray, b: np.ndarray, where: np.ndarray) -> np.ndarray:
    """a / b where `where` holds, 0 elsewhere (trec_eval leaves those values at 0)."""
    out = np.zeros(len(a))
    out[where] = a[where] / b[where]
    return out
