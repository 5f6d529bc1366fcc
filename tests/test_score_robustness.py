"""Headline-contrast robustness (n-Clue supplement Tables S1e, S1g-S1j): each statistic against an
independent computation (brute force, a plain loop over the same draws, statsmodels, networkx)."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
import statsmodels.api as sm

from scorers.runs import bind_qrels, measure, rank_run
from scorers.runs.bootstrap import draw_family_counts, family_sums
from scorers.runs.qrel_bound import bound_report
from scorers.runs.selection import max_t_pvalue, selection_report, sign_matrices, studentized
from scorers.runs.sensitivity import (
    components,
    leave_one_document_out,
    memberships,
    remove_top_documents,
    sensitivity_report,
)
from scorers.runs.slices import cell_labels, parse_slice, query_factors, slice_report


def _bench(seed: int, nq: int = 12, nd: int = 9, runs: int = 3):
    """Random small benchmark: per query n in {1,2,3}, grades 0..n over a shared doc pool."""
    rng = np.random.default_rng(seed)
    qids = [f"q{i}" for i in range(nq)]
    n = rng.integers(1, 4, size=nq)
    rows = []
    for qi, q in enumerate(qids):
        for d in rng.choice(nd, size=rng.integers(0, 6), replace=False):
            rows.append((q, f"d{d}", int(rng.integers(0, n[qi] + 1))))
    run_rows = {}
    for r in range(runs):
        rr = []
        for q in qids:
            if rng.random() < 0.1:
                continue  # the run skips this query
            docs = rng.choice(nd + 4, size=rng.integers(1, 8), replace=False)
            rr += [(q, f"d{d}", float(len(docs) - i)) for i, d in enumerate(docs)]
        run_rows[f"R{r}"] = rr
    return qids, n, rows, run_rows


def _score(qids, n, rows, run_rows, k=5):
    b = bind_qrels(qids, n, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], k=k)
    scored = {}
    for tag, rr in run_rows.items():
        top = rank_run(b, [r[0] for r in rr], [r[1] for r in rr], [r[2] for r in rr])
        scored[tag] = measure(b, top)
    return b, scored


def _gold_first(ranking, grades, n, k):
    """Plain definition: the first judged document in the top k is gold."""
    for d in ranking[:k]:
        g = grades.get(d, 0)
        if g > 0:
            return int(g == n)
    return 0


# ---- adversarial qrel bound (Table S1h) ---------------------------------------------------


@pytest.mark.parametrize("seed", range(25))
def test_bound_equals_enumeration_of_every_promotion_set(seed: int) -> None:
    qids, n, rows, run_rows = _bench(seed)
    k = 5
    b, scored = _score(qids, n, rows, run_rows, k)
    rep = bound_report(b, scored, [("R0", "R1"), ("R2", "R0")], budgets=[0, 1, 2, 3])
    grades = {(q, d): g for q, d, g in rows if g > 0}
    for row, (base, var) in zip(rep.contrasts, [("R0", "R1"), ("R2", "R0")], strict=True):
        for budget in (0, 1, 2, 3):
            lo = hi = obs = 0
            for qi, q in enumerate(qids):
                rank = {t: [d for qq, d, _ in run_rows[t] if qq == q] for t in (base, var)}
                g = {d: gr for (qq, d), gr in grades.items() if qq == q}
                union = set(rank[base][:k]) | set(rank[var][:k])
                cand = sorted(d for d in union if 0 < g.get(d, 0) < n[qi])
                vals = []
                for size in range(min(budget, len(cand)) + 1):
                    for promo in itertools.combinations(cand, size):
                        gg = {**g, **{d: int(n[qi]) for d in promo}}
                        vals.append(
                            _gold_first(rank[var], gg, n[qi], k)
                            - _gold_first(rank[base], gg, n[qi], k)
                        )
                obs += vals[0]
                lo += min(vals)
                hi += max(vals)
            assert row.observed == pytest.approx(obs / len(qids), abs=1e-12)
            assert row.minimum[str(budget)] == pytest.approx(lo / len(qids), abs=1e-12)
            assert row.maximum[str(budget)] == pytest.approx(hi / len(qids), abs=1e-12)


# ---- selection-adjusted inference (Table S1e) ---------------------------------------------


def _t_plain(d: np.ndarray, family: np.ndarray) -> float:
    """Cluster-robust t of the mean, written out directly."""
    fams = np.unique(family)
    q, f = d.size, fams.size
    m = d.mean()
    s = np.array([d[family == x].sum() for x in fams])
    nf = np.array([(family == x).sum() for x in fams])
    se = np.sqrt(f / (f - 1) * ((s - nf * m) ** 2).sum()) / q
    return 0.0 if d.sum() == 0 else float(m / se)


def test_studentized_t_matches_statsmodels_cluster_and_scipy() -> None:
    from scipy import stats

    rng = np.random.default_rng(3)
    d = rng.normal(0.1, 1.0, size=40)
    family = rng.integers(0, 12, size=40)
    _, family = np.unique(family, return_inverse=True)
    nf = int(family.max()) + 1
    fit = sm.OLS(d, np.ones((40, 1))).fit(cov_type="cluster", cov_kwds={"groups": family})
    t = studentized(d[None, :], family, nf)[0]
    assert t == pytest.approx(float(fit.tvalues[0]), rel=1e-9)
    # Singleton families: the paired t statistic.
    t1 = studentized(d[None, :], np.arange(40), 40)[0]
    assert t1 == pytest.approx(float(stats.ttest_1samp(d, 0.0).statistic), rel=1e-9)


def test_max_t_pvalue_equals_a_plain_loop_over_the_same_draws() -> None:
    rng = np.random.default_rng(5)
    q = 30
    d = rng.normal(0.05, 0.5, size=(3, q)).round(1)
    family = np.repeat(np.arange(15), 2)
    draws = 500
    obs, p = max_t_pvalue(d, family, 15, draws=draws, seed=[11, 1])
    signs = np.concatenate(list(sign_matrices(15, draws, [11, 1])))
    t_obs = max(abs(_t_plain(row, family)) for row in d)
    exceed = 0
    for eps in signs:
        flipped = d * eps[family]
        exceed += max(abs(_t_plain(row, family)) for row in flipped) >= t_obs - 1e-10
    assert obs == pytest.approx(t_obs, rel=1e-12)
    assert p == (1 + exceed) / (1 + draws)


def test_selection_report_holm_across_blocks_and_selected_endpoint() -> None:
    from statsmodels.stats.multitest import multipletests

    qids, n, rows, run_rows = _bench(7, nq=30, runs=4)
    b, scored = _score(qids, n, rows, run_rows)
    blocks = [("A", "R0", ["R1", "R2"]), ("B", "R3", ["R1"]), ("C", "R1", ["R2", "R0", "R3"])]
    rep = selection_report(b, scored, blocks, draws=400, bootstrap=100, seed=4)
    raw = [blk.p_selection for blk in rep.blocks]
    expect = multipletests(raw, method="holm")[1]
    assert [blk.p_selection_holm for blk in rep.blocks] == pytest.approx(list(expect), abs=1e-12)
    for blk, (_, base, variants) in zip(rep.blocks, blocks, strict=True):
        d = np.stack([scored[v].values()[0] - scored[base].values()[0] for v in variants])
        _, p = max_t_pvalue(d, b.family, b.n_families, draws=400, seed=[4, 1])
        assert blk.p_selection == p
        best = max(variants, key=lambda v: scored[v].values()[0].mean())
        assert blk.selected == best
    js: dict = rep.to_json()
    assert "p_selection_holm" in js["blocks"][0] and "Sel.+Holm p" in rep.to_text()


# ---- shared-document sensitivity (Tables S1g, S1i) ----------------------------------------


def _graph(qids, rows, n, which):
    nmap = dict(zip(qids, n, strict=True))
    mem = [(q, d) for q, d, g in rows if g > 0 and (which == "judged" or g == nmap[q])]
    return mem


@pytest.mark.parametrize("which", ["gold", "judged"])
@pytest.mark.parametrize("seed", range(6))
def test_sensitivity_schemes_against_direct_computation(seed: int, which: str) -> None:
    qids, n, rows, run_rows = _bench(seed, nq=20, nd=12)
    b, scored = _score(qids, n, rows, run_rows)
    d = scored["R1"].values()[0] - scored["R0"].values()[0]
    dq = dict(zip(qids, d, strict=True))
    mem = _graph(qids, rows, n, which)
    docs = sorted({x for _, x in mem})
    members = {x: [q for q, y in mem if y == x] for x in docs}
    of_query = {q: [x for qq, x in mem if qq == q] for q in qids}
    # Components with networkx: queries, linked through shared documents.
    g = nx.Graph()
    g.add_nodes_from(("q", q) for q in qids)
    g.add_edges_from((("q", q), ("d", x)) for q, x in mem)
    comps = [sum(1 for node in c if node[0] == "q") for c in nx.connected_components(g)]
    m = memberships(b, which)
    assert components(m) == (len(comps), max(comps))
    # Leave-one-document-out: drop the document's queries, average the rest.
    loo = leave_one_document_out(d, m)
    for j, x in enumerate(docs):
        left = [dq[q] for q in qids if q not in members[x]]
        assert loo[j] == pytest.approx(np.mean(left) if left else np.nan, nan_ok=True)
    # Remove the 3 highest-degree documents (ties by id).
    top = sorted(docs, key=lambda x: (-len(members[x]), x))[:3]
    left = [q for q in qids if not set(of_query[q]) & set(top)]
    gap, nleft = remove_top_documents(d, m, 3)
    assert nleft == len(left)
    assert gap == (pytest.approx(np.mean([dq[q] for q in left])) if left else None)
    rep = sensitivity_report(b, d, base="R0", variant="R1", membership=which, draws=300, seed=9)
    macro = np.mean([np.mean([dq[q] for q in members[x]]) for x in docs]) if docs else None
    assert rep.document_macro == (pytest.approx(macro) if docs else None)
    # Crossed bootstrap: replay the same multiplicities, weight each query by hand.
    rng = np.random.default_rng([9, 2])
    w = draw_family_counts(len(qids), 300, rng)
    u = draw_family_counts(len(docs), 300, rng)
    gaps = []
    for r in range(300):
        wt = {
            q: w[r, i] * (np.mean([u[r, docs.index(x)] for x in of_query[q]]) if of_query[q] else 1)
            for i, q in enumerate(qids)
        }
        tot = sum(wt.values())
        gaps.append(sum(wt[q] * dq[q] for q in qids) / tot)
    lo, hi = np.percentile(gaps, [2.5, 97.5])
    assert rep.crossed_ci95 == pytest.approx([lo, hi], abs=1e-12)
    # One query per document: replay the uniform picks.
    if docs:
        rng = np.random.default_rng([9, 3])
        deg = np.array([len(members[x]) for x in docs])
        picks = np.floor(rng.random((300, len(docs))) * deg).astype(int)
        # scipy's CSC keeps each document's member queries in query-index order.
        order = {x: sorted(members[x], key=qids.index) for x in docs}
        vals = [
            np.mean([dq[order[x][picks[r, j]]] for j, x in enumerate(docs)]) for r in range(300)
        ]
        lo, hi = np.percentile(vals, [2.5, 97.5])
        assert rep.one_query_per_doc_ci95 == pytest.approx([lo, hi], abs=1e-12)


# ---- task-factor slices (Table S1j) -------------------------------------------------------


def test_slices_cells_against_direct_counts_and_interval() -> None:
    qids, n, rows, run_rows = _bench(11, nq=40, nd=10)
    b, scored = _score(qids, n, rows, run_rows)
    pages = {f"d{i}": 10 * i + 10 for i in range(10)}  # 30 and 60 fall on the cuts
    f = query_factors(b, release=["r1" if i % 3 else "r2" for i in range(40)], page_counts=pages)
    specs = [parse_slice("n"), parse_slice("lmin:30,60"), parse_slice("dplus:2,3"),
             parse_slice("release")]  # fmt: skip
    rep = slice_report(b, scored, specs, f, [("R0", "R1")], bootstrap=200, seed=3)
    nmap = dict(zip(qids, n, strict=True))
    gold = {q: [d for qq, d, g in rows if qq == q and g == nmap[q] and g > 0] for q in qids}
    for q in qids:
        lm = min((pages[x] for x in gold[q]), default=None)
        i = qids.index(q)
        assert (np.isnan(f["lmin"][i]) and lm is None) or f["lmin"][i] == lm
        assert f["dplus"][i] == sum(1 for qq, _, g in rows if qq == q and g > 0)
    lab = cell_labels(specs[1], f["lmin"])
    for x, got in zip(f["lmin"], lab, strict=True):
        want = "none" if np.isnan(x) else "<=30" if x <= 30 else "(30,60]" if x <= 60 else ">60"
        assert got == want
    for cell in rep.slices[1].cells:
        mask = lab == cell.label
        assert cell.queries == mask.sum()
        for t, pq in scored.items():
            assert cell.runs[t]["nclue"] == pytest.approx(pq.values()[0][mask].mean())
        dd = scored["R1"].values()[0] - scored["R0"].values()[0]
        assert cell.contrasts[0]["diff_nclue"] == pytest.approx(dd[mask].mean())
        # Interval: the same family draws, each family counted with its queries in the cell.
        counts = draw_family_counts(b.n_families, 200, np.random.default_rng(3))
        reps = []
        for c in counts:
            num = sum(c[b.family[i]] * dd[i] for i in range(40) if mask[i])
            den = sum(c[b.family[i]] for i in range(40) if mask[i])
            if den > 0:
                reps.append(num / den)
        assert cell.contrasts[0]["ci95"] == pytest.approx(list(np.percentile(reps, [2.5, 97.5])))
    assert [c.label for c in rep.slices[1].cells][:1] == ["<=30"]
    assert "by lmin:30,60" in rep.to_text()


def test_parse_slice_rejects_bad_specs() -> None:
    for bad in ("size", "lmin", "lmin:30,10", "dplus:a", "n:3"):
        with pytest.raises(ValueError):
            parse_slice(bad)
    assert parse_slice("lmin:30,100").cuts == (30.0, 100.0)
    _ = family_sums  # the slice interval reuses the family machinery


# ---- impact additions ---------------------------------------------------------------------


def test_impact_extras_changed_labels_in_top_k_and_correlations() -> None:
    from scipy import stats

    from scorers.runs.impact_extra import impact_extras

    qids, n, rows, run_rows = _bench(13, nq=25, nd=10, runs=4)
    rng = np.random.default_rng(1)
    after_rows = []
    for q, d, g in rows:  # regrade some labels, drop some, add a few
        r = rng.random()
        nq = int(n[qids.index(q)])
        after_rows.append((q, d, int(rng.integers(0, nq + 1)) if r < 0.3 else g))
    after_rows += [(q, "d11", 1) for q in qids[:5]]
    k = 5
    b, sb = _score(qids, n, rows, run_rows, k)
    a, sa = _score(qids, n, after_rows, run_rows, k)
    ex = impact_extras(b, a, sb, sa)
    gb = {(q, d): g for q, d, g in rows if g > 0}
    ga = {(q, d): g for q, d, g in after_rows if g > 0}
    changed = {p for p in gb.keys() | ga.keys() if gb.get(p, 0) != ga.get(p, 0)}
    assert ex.labels_changed == len(changed)
    union = set()
    for t, rr in run_rows.items():
        top = set()
        for q in qids:
            ranked = [d for qq, d, _ in sorted((x for x in rr if x[0] == q), key=lambda x: -x[2])]
            top |= {(q, d) for d in ranked[:k]}
        assert ex.changed_in_top[t] == len(top & changed)
        union |= top & changed
    assert ex.changed_in_top_union == len(union)
    for side, sc in (("before", sb), ("after", sa)):
        nd = [sc[t].ndcg.mean() for t in run_rows]
        gd = [sc[t].gold_ndcg.mean() for t in run_rows]
        assert ex.ndcg_vs_gold_ndcg[side]["kendall"] == pytest.approx(
            stats.kendalltau(nd, gd).statistic
        )
        assert ex.ndcg_vs_gold_ndcg[side]["spearman"] == pytest.approx(
            stats.spearmanr(nd, gd).statistic
        )
