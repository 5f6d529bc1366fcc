"""trec_eval's gain-based measures over a ranked run: G, ndcg, ndcg_rel, Rndcg, rbp
and rbp_resid (m_G.c, m_ndcg.c, m_ndcg_rel.c, m_Rndcg.c, m_rbp.c, m_rbp_resid.c).

Pure. A grade's gain is the grade unless a `level=gain` pair says otherwise
(trec_eval's setup_gains); the ideal ordering is every judged document's positive
gain, highest first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scorers.trec_catalog import Measure
from scorers.trec_context import Ctx, ratio
from scorers.trec_engine import apply_gains, log2_of, seg_cumsum, valid_int


def _row_gain(c: Ctx, pairs: tuple[tuple[str, float], ...]) -> np.ndarray:
    return apply_gains(c.rk.rel, pairs)


def _ideal_at_rows(c: Ctx, pairs: tuple[tuple[str, float], ...]) -> tuple[Any, np.ndarray]:
    ideal = c.qrels.ideal(pairs)
    qq = c.rk.eq[c.rk.q]
    inside = c.rk.pos < ideal.length[qq]
    g = np.zeros(len(qq))
    g[inside] = ideal.gain[ideal.starts[qq[inside]] + c.rk.pos[inside]]
    return ideal, g


def m_G(c: Ctx, m: Measure) -> np.ndarray:
    pairs = m.extra  # type: ignore[assignment]
    gain = _row_gain(c, pairs)  # type: ignore[arg-type]
    ideal, ig = _ideal_at_rows(c, pairs)  # type: ignore[arg-type]
    st, q = c.rk.starts, c.rk.q
    cost = seg_cumsum(np.maximum(ig, 1.0), st, q)
    got = seg_cumsum(gain, st, q)
    nz = np.flatnonzero(gain != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        arg = 2 + cost - got
        integral = np.all(arg == np.round(arg)) and (len(arg) == 0 or arg.min() >= 0)
        if integral:  # a table lookup: the same value for a row whichever rows are taken
            term = gain[nz] / log2_of(arg[nz].astype(np.int64))
        else:
            term = np.where(gain != 0, gain / np.log2(arg), 0.0)[nz]
    s = np.bincount(c.rk.q[nz], weights=term, minlength=c.E)
    total_ideal = np.bincount(ideal.q, weights=ideal.gain, minlength=c.qrels.n)[c.rk.eq]
    return ratio(s, total_ideal, total_ideal > 0)


def m_ndcg(c: Ctx, m: Measure) -> np.ndarray:
    pairs = m.extra  # type: ignore[assignment]
    ideal = c.qrels.ideal(pairs)  # type: ignore[arg-type]
    running = c.running_dcg(pairs)  # type: ignore[arg-type]
    idcg = ideal.dcg_at(c.rk.eq, ideal.length[c.rk.eq])
    if m.base == "ndcg":
        return ratio(c.top(running, c.ret), idcg, idcg > 0)
    gain = _row_gain(c, pairs)  # type: ignore[arg-type]
    q = c.rk.q
    L = ideal.length[c.rk.eq]
    if m.base == "ndcg_rel":
        rows = np.flatnonzero(gain > 0)
        qr = q[rows]
        irow = ideal.dcg_at(c.rk.eq[qr], c.rk.pos[rows] + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.bincount(qr, weights=running[rows] / irow, minlength=c.E)
            npos = np.bincount(qr, minlength=c.E)
            final = c.top(running, c.ret)
            s = s + ((L - npos).astype(np.float64) * final) / idcg
        out = np.zeros(c.E)
        ok = s > 0
        out[ok] = s[ok] / L[ok]
        return out
    return _rndcg(c, ideal, running, idcg, L)


def _rndcg(c: Ctx, ideal: Any, running: np.ndarray, idcg: np.ndarray, L: np.ndarray) -> np.ndarray:
    # Transitions: positions t (1..L) where the ideal gain changes (t = L always).
    g = ideal.gain
    nxt = np.empty(len(g))
    nxt[:-1] = g[1:]
    last = np.zeros(len(g), dtype=bool)
    ends = ideal.starts[1:][ideal.length > 0] - 1
    last[ends] = True
    change = last | (g != nxt)
    rows = np.flatnonzero(change)
    tq = ideal.q[rows]
    t = rows - ideal.starts[tq] + 1
    to_eval = np.full(c.qrels.n, -1, dtype=np.int64)
    to_eval[c.rk.eq] = np.arange(c.E)
    te = to_eval[tq]
    ok = te >= 0
    te, t, rows = te[ok], t[ok], rows[ok]
    take = np.minimum(t, c.ret[te])
    rd = np.zeros(len(te))
    has = take > 0
    rd[has] = running[c.rk.starts[:-1][te[has]] + take[has] - 1]
    s = np.bincount(te, weights=rd / ideal.running[rows], minlength=c.E)
    cnt = np.bincount(te, minlength=c.E).astype(np.float64)
    extra = c.ret > L + 1
    final = c.top(running, c.ret)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(extra & (idcg > 0), s + final / idcg, s)
        cnt = np.where(extra & (idcg > 0), cnt + 1, cnt)
        out = np.where(cnt > 0, s / np.where(cnt > 0, cnt, 1.0), np.nan)
    return np.where(c.R > 0, out, 0.0)  # type: ignore[no-any-return]


def _rbp_p(pairs: tuple[tuple[str, float], ...]) -> float:
    p = 0.9
    for name, value in pairs:
        if name == "p":
            p = float(value)
    return p


def _powers(p: float, n: int) -> np.ndarray:
    out = np.empty(n + 1)
    out[0] = 1.0
    if n:
        out[1:] = np.cumprod(np.full(n, p))  # repeated multiplication, as trec_eval
    return out


def m_rbp(c: Ctx, m: Measure) -> np.ndarray:
    pairs: tuple[tuple[str, float], ...] = m.extra  # type: ignore[assignment]
    p = _rbp_p(pairs)
    powers = _powers(p, int(c.rk.pos.max()) + 1 if len(c.rk.pos) else 0)
    rel = c.rk.rel
    if m.base == "rbp_resid":
        unj = rel < 0
        s = c.total(powers[c.rk.pos], unj)
        return np.where(c.count(unj) > 0, powers[c.ret] + (1 - p) * s, 0.0)  # type: ignore[no-any-return]
    gain = _row_gain(c, pairs)
    over = {int(n): float(v) for n, v in pairs if valid_int(n)}
    if not over:
        # Gains are the grades (> 0 only on judged rows; the rest add nothing), divided
        # by the query's max grade when that is above 1: the general case below, on
        # the rows it sums.
        rows = np.flatnonzero(gain != 0)
        qr, g = c.rk.q[rows], gain[rows]
        hi = np.maximum(c.qrels.max_grade()[c.rk.eq], 0).astype(np.float64)[qr]
        g = np.where(hi > 1, g / np.where(hi > 1, hi, 1.0), g)
        w = g * powers[c.rk.pos[rows]]
        return (1.0 - p) * np.bincount(qr, weights=w, minlength=c.E)  # type: ignore[no-any-return]
    listed = (rel >= 0) | np.isin(rel, list(over))
    # trec_eval rescales a query's gains to [0, 1] when any lies outside (its min and
    # max start at 0): the gains of levels 0..max grade, and of every level=gain pair
    top = c.qrels.max_grade()[c.rk.eq]
    if over:
        lo, hi = np.zeros(c.E), np.zeros(c.E)
        for i, t in enumerate(top.tolist()):
            gains = [over.get(lv, float(lv)) for lv in range(t + 1)] + list(over.values())
            lo[i], hi[i] = min([0.0, *gains]), max([0.0, *gains])
    else:
        lo, hi = np.zeros(c.E), np.maximum(top, 0).astype(np.float64)
    norm = (lo < 0) | (hi > 1)
    qn = c.rk.q
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (gain - lo[qn]) / (hi[qn] - lo[qn])
    gain = np.where(listed & norm[qn], scaled, np.where(listed, gain, 0.0))
    s = c.total(gain * powers[c.rk.pos], gain != 0)
    return (1.0 - p) * s  # type: ignore[no-any-return]
