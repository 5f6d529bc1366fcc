"""Every trec_eval measure of `all_trec` (and Judged@k) over a ranked run, vectorised:
one numpy array per printed value, one entry per evaluated query.

Pure. Each function follows the matching m_*.c definition of trec_eval 10 (summing
in rank order as its loops do, so values agree to the last bit or nearly); the
one-line definitions are in docs/scoring.md. Per-row sums use np.bincount, which adds
in row order; running sums within a query use `trec_engine.seg_cumsum`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from scorers.trec_catalog import Measure
from scorers.trec_context import Ctx, ratio
from scorers.trec_engine import NONPOOL, UNJUDGED, Options, Ranking, TrecQrels, log2_of, seg_cumsum
from scorers.trec_gains import m_G, m_ndcg, m_rbp

MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


def _shared(c: Ctx, key: str, make: Callable[[], Any]) -> Any:
    """A value several of these measures share (AP and gm_map, bpref and gm_bpref), kept
    in the run's memo. Made here rather than through `Ctx.once` so that the context never
    calls back into this module."""
    if key not in c.memo:
        c.memo[key] = make()
    return c.memo[key]


def m_num(c: Ctx, m: Measure) -> np.ndarray:
    if m.base == "num_ret":
        return c.ret.astype(np.float64)
    if m.base == "num_rel":
        return c.R.astype(np.float64)
    if m.base == "num_rel_ret":
        return c.nrr.astype(np.float64)
    if m.base == "num_q":
        return np.ones(c.E)
    # num_nonrel_judged_ret
    pool = c.count(c.rk.rel == NONPOOL) + c.count(c.rk.rel == UNJUDGED)
    return (c.ret - pool - c.nrr).astype(np.float64)


def _rel_rows(c: Ctx) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of relevant documents: their index, query and precision there. Per-query
    sums of terms that are 0 elsewhere add only these (adding 0.0 changes no sum)."""

    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = np.flatnonzero(c.isrel)
        return rows, c.rk.q[rows], c.cum[rows] / (c.rk.pos[rows] + 1)

    return _shared(c, "rel_rows", make)  # type: ignore[no-any-return]


def _ap(c: Ctx) -> np.ndarray:
    _, q, prec = _rel_rows(c)
    s = np.bincount(q, weights=prec, minlength=c.E)
    return ratio(s, c.R.astype(np.float64), (c.nrr > 0) & (c.R > 0))


def m_map(c: Ctx, m: Measure) -> np.ndarray:
    ap = _shared(c, "ap", lambda: _ap(c))
    return np.log(np.maximum(ap, MIN_GEO_MEAN)) if m.base == "gm_map" else ap


def m_Rprec(c: Ctx, m: Measure) -> np.ndarray:
    k = np.minimum(c.ret, c.R)
    return ratio(c.rel_in_top(c.R), c.R.astype(np.float64), k > 0)


def _per_relevant(c: Ctx, s: np.ndarray) -> np.ndarray:
    """Each query's sum over its relevant documents, divided by their number (R); a query
    with none keeps its sum (trec_eval's bpref and infAP)."""
    out = s.copy()
    ok = c.R > 0
    out[ok] = s[ok] / c.R[ok]
    return out


def _judged_rows(c: Ctx) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of judged relevant documents (grade >= level): index, query, and the judged
    non-relevant documents ranked above each (bpref and infAP sum over these rows)."""

    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rel = c.rk.rel
        jn = (rel >= 0) & (rel < c.opts.level)
        rows = np.flatnonzero((rel >= 0) & ~jn)
        nr = seg_cumsum(jn.astype(np.float64), c.rk.starts, c.rk.q)[rows]
        return rows, c.rk.q[rows], nr

    return _shared(c, "judged_rows", make)  # type: ignore[no-any-return]


def _bpref(c: Ctx) -> np.ndarray:
    _, q, nr = _judged_rows(c)
    R = c.R[q].astype(np.float64)
    NN = c.qrels.num_nonrel(c.opts.level)[c.rk.eq][q].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nr > 0, 1.0 - np.minimum(nr, R) / np.minimum(NN, R), 1.0)
    return _per_relevant(c, np.bincount(q, weights=term, minlength=c.E))


def m_bpref(c: Ctx, m: Measure) -> np.ndarray:
    b = _shared(c, "bpref", lambda: _bpref(c))
    return np.log(np.maximum(b, MIN_GEO_MEAN)) if m.base == "gm_bpref" else b


def m_recip_rank(c: Ctx, m: Measure) -> np.ndarray:
    rows, q, _ = _rel_rows(c)
    first = c.cum[rows] == 1
    return np.bincount(q[first], weights=1.0 / (c.rk.pos[rows[first]] + 1.0), minlength=c.E)


def _cut_counts(c: Ctx, fracs: Sequence[float]) -> list[np.ndarray]:
    R = c.R.astype(np.float64)
    out = []
    for p in fracs:
        x = p * R
        if c.opts.cutoff_rounding == "round":  # lround
            fl = np.floor(x)
            out.append((fl + (x - fl >= 0.5)).astype(np.int64))
        else:
            out.append(np.floor(x + 0.9).astype(np.int64))
    return out


def _iprec(c: Ctx, fracs: Sequence[float]) -> list[np.ndarray]:
    """Interpolated precision at each recall fraction (trec_eval's iprec_at_recall)."""
    rows = np.flatnonzero(c.isrel)
    prec = c.cum[rows] / (c.rk.pos[rows] + 1.0)
    qr = c.rk.q[rows]
    rstart = np.concatenate([[0], np.cumsum(np.bincount(qr, minlength=c.E))])
    best = _suffix_max(prec, rstart, qr)
    with np.errstate(divide="ignore", invalid="ignore"):
        empty = np.where(c.ret > 0, 0.0, np.nan)  # 0/0 when nothing is retrieved
    out = []
    for cut in _cut_counts(c, fracs):
        v = empty.copy()
        hit = (cut >= 1) & (cut <= c.nrr)
        v[hit] = best[rstart[:-1][hit] + cut[hit] - 1]
        zero = (cut == 0) & (c.nrr > 0)
        v[zero] = best[rstart[:-1][zero]]
        v[(cut > c.nrr) & (c.nrr >= 0) & ~hit & ~zero] = 0.0
        out.append(v)
    return out


def _suffix_max(x: np.ndarray, starts: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Within each query's rows, the largest value at or after each row."""
    if not len(x):
        return x
    n = np.diff(starts)
    width = int(n.max())
    pos = np.arange(len(x)) - starts[q]
    if len(n) * width <= 4 * len(x) + 1_000_000:
        grid = np.full((len(n), width), -np.inf)
        grid[q, width - 1 - pos] = x  # reversed, so a running max runs backwards
        return np.maximum.accumulate(grid, axis=1)[q, width - 1 - pos]  # type: ignore[no-any-return]
    out = np.empty(len(x))
    for a, b in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
        out[a:b] = np.maximum.accumulate(x[a:b][::-1])[::-1]
    return out


def g_iprec(c: Ctx, ms: Sequence[Measure]) -> list[np.ndarray]:
    return _iprec(c, [float(m.param) for m in ms])  # type: ignore[arg-type]


def m_11pt(c: Ctx, m: Measure) -> np.ndarray:
    vals = _iprec(c, list(m.extra))  # type: ignore[arg-type]
    total = np.zeros(c.E)
    for v in reversed(vals):  # trec_eval adds from the highest cutoff down
        total = total + np.where(np.isnan(v), 0.0, v) if c.E else total
    out = total / len(vals)
    out[np.isnan(vals[0])] = np.nan
    return out  # type: ignore[no-any-return]


def g_long_cut(c: Ctx, ms: Sequence[Measure]) -> list[np.ndarray]:
    base = ms[0].base
    out: list[np.ndarray] = []
    if base == "map_cut":
        rows, q, prec = _rel_rows(c)
        pos = c.rk.pos[rows]
        for m in ms:
            inside = pos < m.cut  # type: ignore[operator]
            s = np.bincount(q[inside], weights=prec[inside], minlength=c.E)
            out.append(ratio(s, c.R.astype(np.float64), c.R > 0))
        return out
    if base == "ndcg_cut":
        # gain = grade when > 0: the running DCG of the default gains
        running = c.running_dcg(())
        ideal = c.qrels.ideal()
        for m in ms:
            dcg = c.top(running, int(m.cut))  # type: ignore[arg-type]
            idcg = ideal.dcg_at(c.rk.eq, np.full(c.E, m.cut))
            out.append(np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), dcg))
        return out
    if base in ("unj", "judged"):
        # unj: not judged (not in the qrels, or a negative grade); judged: in the qrels
        flag = c.rk.rel < 0 if base == "unj" else c.rk.rel != NONPOOL
        running = seg_cumsum(flag.astype(np.float64), c.rk.starts, c.rk.q)
        for m in ms:
            k = int(m.cut)  # type: ignore[arg-type]
            got = c.top(running, k)
            if base == "unj":
                out.append(got / k)
            else:  # ir_measures' Judged@k: share of the top min(k, n) the qrels list
                out.append(ratio(got, np.minimum(k, c.ret).astype(np.float64), c.ret > 0))
        return out
    for m in ms:
        k = int(m.cut)  # type: ignore[arg-type]
        got = c.rel_in_top(k)
        if base == "P":
            out.append(got / k)
        elif base == "recall":
            out.append(ratio(got, c.R.astype(np.float64), c.R > 0))
        elif base == "relative_P":
            out.append(ratio(got, np.minimum(k, c.R).astype(np.float64), c.R > 0))
        else:  # success
            out.append((got > 0).astype(np.float64))
    return out


def g_Rprec_mult(c: Ctx, ms: Sequence[Measure]) -> list[np.ndarray]:
    out = []
    for m in ms:
        cut = np.floor(float(m.param) * c.R + 0.9).astype(np.int64)  # type: ignore[arg-type]
        out.append(ratio(c.rel_in_top(cut), cut.astype(np.float64), cut > 0))
    return out


def m_infAP(c: Ctx, m: Measure) -> np.ndarray:
    rel, st = c.rk.rel, c.rk.starts
    rows, q, nr = _judged_rows(c)
    # judged relevant ones above and at each row: a running count over those rows alone
    rs = np.arange(1, len(rows) + 1, dtype=np.float64)
    rs -= np.concatenate([[0.0], np.cumsum(np.bincount(q, minlength=c.E))])[q]
    pu = seg_cumsum((rel == UNJUDGED).astype(np.float64), st, c.rk.q)[rows]
    pos = c.rk.pos[rows]
    fj = pos.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = 1.0 / (fj + 1.0)
        b = fj / (fj + 1.0)
        x = (rs - 1 + nr + pu) / fj
        y = (rs - 1 + INFAP_EPSILON) / ((rs - 1 + nr) + 2 * INFAP_EPSILON)
        term = np.where(pos == 0, 1.0, a + b * x * y)
    return _per_relevant(c, np.bincount(q, weights=term, minlength=c.E))


def m_utility(c: Ctx, m: Measure) -> np.ndarray:
    p = [float(v) for v in m.extra]  # type: ignore[arg-type]
    nrr, ret, R = c.nrr.astype(np.float64), c.ret.astype(np.float64), c.R.astype(np.float64)
    rest = (c.opts.num_docs + c.nrr - c.ret - c.R).astype(np.float64)
    return p[0] * nrr + p[1] * (ret - nrr) + p[2] * (R - nrr) + p[3] * rest  # type: ignore[no-any-return]


def m_binG(c: Ctx, m: Measure) -> np.ndarray:
    rows, q, _ = _rel_rows(c)
    w = 1.0 / log2_of(3 + c.rk.pos[rows] - c.cum[rows].astype(np.int64))
    s = np.bincount(q, weights=w, minlength=c.E)
    return ratio(s, c.R.astype(np.float64), (c.nrr > 0) & (c.R > 0))


def m_set(c: Ctx, m: Measure) -> np.ndarray:
    nrr, ret, R = c.nrr.astype(np.float64), c.ret.astype(np.float64), c.R.astype(np.float64)
    if m.base == "set_P":
        return ratio(nrr, ret, c.ret > 0)
    if m.base == "set_relative_P":
        return ratio(nrr, np.minimum(ret, R), (c.ret > 0) & (c.R > 0))
    if m.base == "set_recall":
        return ratio(nrr, R, c.R > 0)
    if m.base == "set_map":
        return ratio(nrr * nrr, ret * R, (c.ret > 0) & (c.R > 0))
    x = float(m.extra[0]) if m.extra else 1.0  # type: ignore[arg-type]
    out = np.zeros(c.E)
    ok = c.nrr > 0
    P, Rc = nrr[ok] / ret[ok], nrr[ok] / R[ok]
    out[ok] = (x + 1.0) * P * Rc / (x * P + Rc)
    return out


def relstrings(c: Ctx, m: Measure) -> list[str]:
    """relstring: the first N relevance values as characters (0-9, '>' above 9, '-' not
    in the qrels, '.' in the pool but unjudged)."""
    n = int(float(m.extra[0])) if m.extra else 10  # type: ignore[arg-type]
    chars = np.array(list("0123456789"))
    out = []
    for e in range(c.E):
        a, b = c.rk.starts[e], c.rk.starts[e] + max(0, min(n, int(c.ret[e])))
        rel = c.rk.rel[a:b]
        s = np.where(rel > 9, ">", np.where(rel >= 0, chars[np.clip(rel, 0, 9)], "<"))
        s = np.where(rel == NONPOOL, "-", np.where(rel == UNJUDGED, ".", s))
        out.append("".join(s.tolist()) if not c.rk.placeholder[e] else "")
    return out


Single = Callable[[Ctx, Measure], np.ndarray]
Group = Callable[[Ctx, Sequence[Measure]], list[np.ndarray]]
SINGLE: dict[str, Single] = {
    "num_q": m_num, "num_ret": m_num, "num_rel": m_num, "num_rel_ret": m_num,
    "num_nonrel_judged_ret": m_num, "map": m_map, "gm_map": m_map, "Rprec": m_Rprec,
    "bpref": m_bpref, "gm_bpref": m_bpref, "recip_rank": m_recip_rank, "infAP": m_infAP,
    "utility": m_utility, "11pt_avg": m_11pt, "binG": m_binG, "G": m_G, "ndcg": m_ndcg,
    "ndcg_rel": m_ndcg, "Rndcg": m_ndcg, "set_P": m_set, "set_relative_P": m_set,
    "set_recall": m_set, "set_map": m_set, "set_F": m_set, "rbp": m_rbp, "rbp_resid": m_rbp,
}  # fmt: skip
GROUP: dict[str, Group] = {
    "iprec_at_recall": g_iprec, "Rprec_mult": g_Rprec_mult, "P": g_long_cut,
    "recall": g_long_cut, "ndcg_cut": g_long_cut, "map_cut": g_long_cut,
    "relative_P": g_long_cut, "success": g_long_cut, "unj": g_long_cut, "judged": g_long_cut,
}  # fmt: skip
# Values trec_eval resets on -c's placeholder ranking, by printed name (so a utility
# with parameters, printed "utility_1,-1,0,0", keeps its placeholder value as there).
PLACEHOLDER_ZERO = frozenset({"num_ret", "utility", "rbp_resid"})


def evaluate(
    qrels: TrecQrels, rk: Ranking, measures: Sequence[Measure], opts: Options
) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """Per evaluated query (rk.eq order): numbers by printed name, and relstring texts."""
    c = Ctx(qrels, rk, opts)
    values: dict[str, np.ndarray] = {}
    texts: dict[str, list[str]] = {}
    groups: dict[str, list[Measure]] = {}
    for m in measures:
        if m.base == "runid":
            continue
        if m.base == "relstring":
            texts[m.name] = relstrings(c, m)
        elif m.base in GROUP:
            groups.setdefault(m.base, []).append(m)
        else:
            values[m.name] = SINGLE[m.base](c, m)
    for base, ms in groups.items():
        for m, v in zip(ms, GROUP[base](c, ms), strict=True):
            values[m.name] = v
    if rk.placeholder.any():
        for m in measures:
            reset = m.name in PLACEHOLDER_ZERO or m.name.startswith("unj")
            if reset and m.name in values:
                values[m.name] = np.where(rk.placeholder, 0.0, values[m.name])
    return values, texts
