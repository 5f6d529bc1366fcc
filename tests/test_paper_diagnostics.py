"""The construct diagnostics of Table S5b of the n-Clue supplement: metric ranking against
scipy, the covariate regression against statsmodels, the matched AUC against scikit-learn
and a brute-force pairwise count, the construction controls and condition masking by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats
from sklearn.metrics import roc_auc_score

from scorers.runs import bind_qrels, measure, rank_run
from scorers.runs.controls import fact_oracle, single_page_floor
from scorers.runs.difficulty import (
    QueryCovariates,
    difficulty_report,
    matched_weights,
    quantile_bins,
)
from scorers.runs.drop_condition import mask_report
from scorers.runs.metric_ranking import metric_ranking
from tests.conftest import run_cli

SAMPLE = Path(__file__).resolve().parents[1] / "sample_packets"

# ---- metric ranking -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_metric_ranking_against_scipy_and_brute_force_ranks(seed: int) -> None:
    rng = np.random.default_rng(seed)
    systems = [f"s{i}" for i in range(9)]
    # coarse values so some systems tie
    means = {s: {m: float(rng.integers(0, 6)) / 10 for m in ("ndcg", "gold_ndcg", "nclue",
                                                            "gold_hit")} for s in systems}  # fmt: skip
    rep = metric_ranking(means, k=10)
    g = np.array([means[s]["ndcg"] for s in systems])
    for agr in rep.measures:
        v = np.array([means[s][agr.measure] for s in systems])
        rho, tau = stats.spearmanr(g, v).statistic, stats.kendalltau(g, v).statistic
        assert (agr.spearman is None) == bool(np.isnan(rho))
        if agr.spearman is not None:
            assert agr.spearman == pytest.approx(rho, abs=1e-12)
            assert agr.kendall == pytest.approx(tau, abs=1e-12)
        # brute-force ranks: 1 + the number of systems strictly better
        for i, s in enumerate(systems):
            assert agr.ranks[s] == 1 + sum(v[j] > v[i] for j in range(len(systems)))
            assert rep.graded_ranks[s] == 1 + sum(g[j] > g[i] for j in range(len(systems)))
        shifts = {s: rep.graded_ranks[s] - agr.ranks[s] for s in systems}
        assert agr.max_rank_shift == max(abs(x) for x in shifts.values())
        assert {x.system for x in agr.largest} == (
            {s for s, x in shifts.items() if abs(x) == agr.max_rank_shift}
            if agr.max_rank_shift
            else set()
        )


def test_metric_ranking_paper_shape_and_cli() -> None:
    # the supplement's sentence: a system twelfth under graded NDCG, fourth under gold-only
    means = {f"s{i}": {"ndcg": 1 - i / 20, "gold_ndcg": 1 - i / 20, "nclue": 0.5,
                       "gold_hit": 0.5} for i in range(13)}  # fmt: skip
    means["s11"]["gold_ndcg"] = 1 - 2.5 / 20
    rep = metric_ranking(means, k=10)
    gold = rep.measures[0]
    assert gold.measure == "gold_ndcg" and gold.max_rank_shift == 8
    assert [(x.system, x.rank_graded, x.rank_gold_only) for x in gold.largest] == [("s11", 12, 4)]
    res = run_cli("score", "metric-ranking", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                  SAMPLE / "qrels.txt", "--run", SAMPLE / "runs/bm25_and.trec", "--run",
                  SAMPLE / "runs/rrf.trec", "--run", SAMPLE / "runs/bm25_doc.trec", "--json")  # fmt: skip
    js = json.loads(res.stdout)
    assert [m["measure"] for m in js["measures"]] == ["gold_ndcg", "nclue", "gold_hit"]
    assert run_cli("score", "metric-ranking", "--queries", SAMPLE / "queries.jsonl", "--run",
                   SAMPLE / "runs/rrf.trec", "--qrels", SAMPLE / "qrels.txt", expect=2)  # fmt: skip


# ---- difficulty covariates ----------------------------------------------------------------


def _cov(seed: int, q: int = 80) -> tuple[QueryCovariates, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 4, size=q)
    cov = QueryCovariates(
        [f"q{i}" for i in range(q)], [int(x) for x in n],
        [float(x) for x in rng.normal(2, 0.7, size=q)],
        [int(x) for x in rng.integers(3, 200, size=q)],
        [int(x) for x in rng.integers(1, 90, size=q)],
    )  # fmt: skip
    lin = 0.4 * (n - 2.5) - 0.5 * (np.asarray(cov.rarity) - 2)
    succ = {f"S{r}": (rng.random(q) < 1 / (1 + np.exp(-lin + r * 0.3))).astype(float)
            for r in range(3)}  # fmt: skip
    return cov, succ


@pytest.mark.parametrize("seed", range(4))
def test_regression_equals_statsmodels_formula_logit(seed: int) -> None:
    cov, succ = _cov(seed)
    rep = difficulty_report(succ, cov, k=10, metric="nclue", bins=3)
    df = pd.DataFrame({"rarity": cov.rarity, "n": cov.n, "length": np.log(cov.lmin),
                       "pool": np.log(cov.pool)})  # fmt: skip
    z = (df - df.mean()) / df.std(ddof=0)
    for reg in rep.regressions:
        fit = smf.logit("y ~ rarity + n + length + pool", data=z.assign(y=succ[reg.system])).fit(
            disp=0
        )
        got = {c.name: c for c in reg.coefficients}
        for term, name in (("Intercept", "intercept"), ("rarity", "rarity"), ("n", "n"),
                           ("length", "length"), ("pool", "pool")):  # fmt: skip
            assert got[name].coef == pytest.approx(fit.params[term], abs=1e-6)
            assert got[name].se == pytest.approx(fit.bse[term], abs=1e-6)
            assert got[name].p == pytest.approx(fit.pvalues[term], abs=1e-6)


def test_regression_constant_covariate_and_separation() -> None:
    cov, succ = _cov(1, q=40)
    flat = QueryCovariates(cov.query_ids, [2] * 40, cov.rarity, cov.lmin, cov.pool)
    rep = difficulty_report(succ, flat, k=10, metric="nclue")
    reg = rep.regressions[0]
    assert [c.coef is None for c in reg.coefficients] == [False, False, True, False, False]
    assert rep.auc[0].unmatched is None  # one condition count: nothing to compare
    allzero = difficulty_report({"Z": np.zeros(40)}, cov, k=10, metric="nclue")
    assert allzero.regressions[0].note == "every query has the same outcome"
    split = (np.asarray(cov.rarity) > np.median(cov.rarity)).astype(float)
    sep = difficulty_report({"P": split}, cov, k=10, metric="nclue").regressions[0]
    assert sep.note == "perfect separation" and all(c.coef is None for c in sep.coefficients)
    assert "perfect separation" in difficulty_report({"P": split}, cov, k=10,
                                                     metric="nclue").to_text()  # fmt: skip


def _pairwise_auc(high: np.ndarray, s: np.ndarray, w: np.ndarray) -> float:
    """Weighted Mann-Whitney by brute force: P(s_high > s_low) + P(tie) / 2."""
    num = den = 0.0
    for i in np.flatnonzero(high & (w > 0)):
        for j in np.flatnonzero(~high & (w > 0)):
            ww = w[i] * w[j]
            den += ww
            num += ww * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
    return num / den


@pytest.mark.parametrize("seed", range(4))
def test_matched_auc_against_brute_force_and_sklearn(seed: int) -> None:
    cov, succ = _cov(seed, q=60)
    rep = difficulty_report(succ, cov, k=10, metric="nclue", bins=3)
    n = np.asarray(cov.n)
    high = n == 3
    dens = quantile_bins(np.asarray(cov.pool, dtype=float), 3)
    leng = quantile_bins(np.asarray(cov.lmin, dtype=float), 3)
    # the density bins by hand: terciles of |D+|
    edges = np.quantile(cov.pool, [1 / 3, 2 / 3])
    assert (dens == np.searchsorted(edges, cov.pool, side="right")).all()
    for row in rep.auc:
        s = succ[row.system]
        assert row.unmatched == pytest.approx(_pairwise_auc(high, s, np.ones(60)), abs=1e-12)
        assert row.unmatched == pytest.approx(roc_auc_score(high, s), abs=1e-12)
        w = matched_weights(high, dens)
        assert row.density_matched == pytest.approx(_pairwise_auc(high, s, w), abs=1e-12)
        wl = matched_weights(high, dens * 10 + leng)
        assert row.length_matched == pytest.approx(_pairwise_auc(high, s, wl), abs=1e-12)
        assert row.density_queries == int((w > 0).sum())
    # weights by hand: a cell with 2 high and 4 low queries weights each low one 1/2
    hw = matched_weights(np.array([True, True, False, False, False, False, True]),
                         np.array([0, 0, 0, 0, 0, 0, 1]))  # fmt: skip
    assert hw.tolist() == [1, 1, 0.5, 0.5, 0.5, 0.5, 0]


def _page_counts() -> dict[str, int]:
    """Made-up page counts: each document's highest evidence page."""
    docs: dict[str, int] = {}
    for line in (SAMPLE / "evidence.jsonl").read_text().splitlines():
        o = json.loads(line)
        docs[o["doc_id"]] = max(docs.get(o["doc_id"], 0), max(o["pages"]))
    return docs


def _pages(tmp_path: Path) -> Path:
    pages = tmp_path / "pages.jsonl"
    pages.write_text("".join(json.dumps({"doc_id": d, "page": p}) + "\n"
                             for d, m in _page_counts().items() for p in range(1, m + 1)))  # fmt: skip
    return pages


def test_difficulty_cli_covariates_by_hand(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    docs = _page_counts()
    res = run_cli("score", "difficulty", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                  SAMPLE / "qrels.txt", "--evidence", SAMPLE / "evidence.jsonl", "--pages", pages,
                  "--run", SAMPLE / "runs/bm25_and.trec", "--run", SAMPLE / "runs/rrf.trec",
                  "--json")  # fmt: skip
    js = json.loads(res.stdout)
    pq = js["per_query"]
    i = pq["query_ids"].index("q001")
    # by hand from the files
    qrels = [ln.split() for ln in (SAMPLE / "qrels.txt").read_text().splitlines()]
    q1 = [(d, int(g)) for q, _, d, g in qrels if q == "q001" and int(g) > 0]
    n1 = len(json.loads((SAMPLE / "queries.jsonl").read_text().splitlines()[0])["conditions"])
    assert pq["pool"][i] == len(q1) and pq["n"][i] == n1
    assert pq["lmin"][i] == min(docs[d] for d, g in q1 if g == n1)
    ev = [json.loads(ln) for ln in (SAMPLE / "evidence.jsonl").read_text().splitlines()]
    all_docs = {e["doc_id"] for e in ev}
    freq: dict[str, set[str]] = {}
    for e in ev:
        if e["query_id"] == "q001" and e["pages"]:
            freq.setdefault(e["condition_id"], set()).add(e["doc_id"])
    want = sum(math.log(len(all_docs) / len(v)) for v in freq.values()) / n1
    assert pq["rarity"][i] == pytest.approx(want, abs=1e-12)
    assert {r["system"] for r in js["regressions"]} == {"bm25_and", "rrf"}
    bad = run_cli("score", "difficulty", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                  SAMPLE / "qrels.txt", "--evidence", SAMPLE / "evidence.jsonl", "--pages",
                  tmp_path / "none.jsonl", "--run", SAMPLE / "runs/rrf.trec", expect=None)  # fmt: skip
    assert bad.exit_code != 0


# ---- construction controls ----------------------------------------------------------------


def test_controls_by_hand_and_cli(tmp_path: Path) -> None:
    conds = {"q1": ["a", "b"], "q2": ["x", "y", "z"]}
    ev = {
        ("q1", "d1"): {"a": [1], "b": [2]},  # gold: distinct pages
        ("q1", "d2"): {"a": [3], "b": [3]},  # both on one page only: grade 1, floor hit
        ("q1", "d3"): {"a": [4]},
        ("q2", "d4"): {"x": [1, 2], "y": [2], "z": [2, 5]},  # gold, and page 2 has all three
        ("q2", "d5"): {"x": [7], "y": [8]},
    }
    assert fact_oracle(conds, ev) == [
        ("q1", "d1", 1, 2.0), ("q1", "d2", 2, 1.0), ("q1", "d3", 3, 1.0),
        ("q2", "d4", 1, 3.0), ("q2", "d5", 2, 2.0),
    ]  # fmt: skip
    assert single_page_floor(conds, ev) == [("q1", "d2", 1, 1.0), ("q2", "d4", 1, 1.0)]
    out = tmp_path / "runs"
    out.mkdir()
    js = json.loads(run_cli("score", "controls", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                            SAMPLE / "qrels.txt", "--evidence", SAMPLE / "evidence.jsonl",
                            "--out-dir", out, "--json").stdout)  # fmt: skip
    rows = {c["control"]: c for c in js["controls"]}
    assert rows["single_page_floor"]["nclue"] == 0.0 and rows["single_page_floor"]["gold_hit"] == 0
    assert rows["fact_oracle"]["gold_hit"] == 1.0
    # the written run scores the same through `score nclue`
    again = json.loads(run_cli("score", "nclue", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                               SAMPLE / "qrels.txt", "--run", out / "fact_oracle.trec",
                               "--bootstrap", "0", "--json").stdout)  # fmt: skip
    assert again["runs"]["fact_oracle"]["nclue"] == pytest.approx(rows["fact_oracle"]["nclue"])
    assert again["runs"]["fact_oracle"]["gold_ndcg"] == pytest.approx(
        rows["fact_oracle"]["gold_ndcg"]
    )
    res = run_cli("score", "controls", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                  SAMPLE / "qrels.txt", "--evidence", SAMPLE / "evidence.jsonl", "--out-dir",
                  tmp_path / "missing", expect=None)  # fmt: skip
    assert res.exit_code != 0 and "--out-dir is not a folder" in res.output
    # the second run cannot be written (a folder has its name): neither file is left
    blocked = tmp_path / "blocked"
    (blocked / "single_page_floor.trec").mkdir(parents=True)
    res = run_cli("score", "controls", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                  SAMPLE / "qrels.txt", "--evidence", SAMPLE / "evidence.jsonl", "--out-dir",
                  blocked, expect=None)  # fmt: skip
    assert res.exit_code != 0 and "cannot write the run" in res.output and res.stdout == ""
    assert sorted(p.name for p in blocked.iterdir()) == ["single_page_floor.trec"]


# ---- condition masking --------------------------------------------------------------------


def test_masking_per_position_against_direct_computation() -> None:
    rng = np.random.default_rng(3)
    qids = [f"q{i}" for i in range(16)]
    n = [2 + i % 2 for i in range(16)]
    rows = [(q, f"d{d}", int(rng.integers(0, n[i] + 1))) for i, q in enumerate(qids)
            for d in range(6)]  # fmt: skip
    b = bind_qrels(qids, n, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], k=4)

    def run(seed: int):
        r = np.random.default_rng(seed)
        rr = [(q, f"d{d}", float(6 - j)) for q in qids for j, d in enumerate(r.permutation(6))]
        return measure(b, rank_run(b, [x[0] for x in rr], [x[1] for x in rr], [x[2] for x in rr]))

    full, m1, m3 = run(1), run(2), run(3)
    rep = mask_report(b, {"S": full}, [("S", 1, m1), ("S", 3, m3)], bootstrap=200, seed=5)
    r1, r3 = rep.rows
    assert r1.queries == 16 and r3.queries == 8
    at3 = np.asarray(n) == 3
    assert r3.diff_ndcg == pytest.approx((m3.ndcg[at3] - full.ndcg[at3]).mean(), abs=1e-12)
    assert r3.diff_gold_ndcg == pytest.approx(
        (m3.gold_ndcg[at3] - full.gold_ndcg[at3]).mean(), abs=1e-12
    )
    assert r1.diff_ndcg == pytest.approx((m1.ndcg - full.ndcg).mean(), abs=1e-12)
    assert r1.load_bearing == (r1.ci95_gold_ndcg is not None and r1.ci95_gold_ndcg[1] < 0)
    assert set(rep.positions()) == {1, 3}
    assert "Condition masking per position" in rep.to_text()


def test_mask_condition_cli_and_bad_spec() -> None:
    base = ["score", "mask-condition", "--queries", SAMPLE / "queries.jsonl", "--qrels",
            SAMPLE / "qrels.txt", "--run", f"S={SAMPLE / 'runs/bm25_doc.trec'}"]  # fmt: skip
    js = json.loads(run_cli(*base, "--mask", f"S:1={SAMPLE / 'runs/bm25_and.trec'}",
                            "--bootstrap", "50", "--json").stdout)  # fmt: skip
    nclue = json.loads(run_cli("score", "nclue", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                               SAMPLE / "qrels.txt", "--run", SAMPLE / "runs/bm25_doc.trec",
                               "--run", SAMPLE / "runs/bm25_and.trec", "--bootstrap", "0",
                               "--json").stdout)["runs"]  # fmt: skip
    (row,) = js["rows"]
    # position 1 keeps every query with two or more conditions: all of the sample's
    assert row["diff_ndcg"] == pytest.approx(nclue["bm25_and"]["ndcg"] - nclue["bm25_doc"]["ndcg"])
    assert row["diff_gold_ndcg"] == pytest.approx(
        nclue["bm25_and"]["gold_ndcg"] - nclue["bm25_doc"]["gold_ndcg"]
    )
    bad = run_cli(*base, "--mask", "T:1=x.trec", expect=None)
    assert bad.exit_code != 0 and "--mask 'T:1=x.trec' is not NAME:POSITION=FILE" in bad.output


def test_masking_verdicts_by_construction() -> None:
    qids = [f"q{i}" for i in range(10)]
    n = [3] * 10
    rows = [(q, f"g{q}", 3) for q in qids] + [(q, f"s{q}", 1) for q in qids]
    b = bind_qrels(qids, n, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], k=5)

    def run(gold_first: bool):
        rr = []
        for q in qids:
            docs = [f"g{q}", f"s{q}"] if gold_first else [f"s{q}", f"x{q}", f"g{q}"]
            rr += [(q, d, float(10 - j)) for j, d in enumerate(docs)]
        return measure(b, rank_run(b, [x[0] for x in rr], [x[1] for x in rr], [x[2] for x in rr]))

    good, bad = run(True), run(False)
    rep = mask_report(b, {"A": good, "B": good}, [("A", 1, bad), ("B", 1, good), ("A", 3, bad),
                                                  ("B", 3, bad)], bootstrap=100)  # fmt: skip
    a1, b1, a3, b3 = rep.rows
    assert a3.queries == b3.queries == 10 and a3.load_bearing and b3.load_bearing
    assert a1.diff_gold_ndcg == pytest.approx(1 / math.log2(4) - 1) and a1.load_bearing
    assert b1.diff_gold_ndcg == 0 and not b1.load_bearing
    assert a1.diff_nclue == -1.0 and a1.diff_gold_hit == 0.0
    assert rep.positions() == {1: "mixed", 3: "load-bearing"}
    assert rep.to_json()["positions"] == {"1": "mixed", "3": "load-bearing"}


def test_fact_oracle_is_perfect_on_qrels_derived_from_its_evidence(tmp_path: Path) -> None:
    from vocabulary.grades import derived_grade

    conds = {}
    for line in (SAMPLE / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        conds[q["query_id"]] = [c["condition_id"] for c in q["conditions"]]
    ev: dict[tuple[str, str], dict[str, list[int]]] = {}
    for line in (SAMPLE / "evidence.jsonl").read_text().splitlines():
        e = json.loads(line)
        ev.setdefault((e["query_id"], e["doc_id"]), {})[e["condition_id"]] = e["pages"]
    lines, with_gold = [], set()
    for (q, d), by in sorted(ev.items()):
        g = derived_grade(len(conds[q]), {c: by.get(c, []) for c in conds[q]})
        if g:
            lines.append(f"{q} 0 {d} {g}")
            with_gold |= {q} if g == len(conds[q]) else set()
    (tmp_path / "derived.txt").write_text("\n".join(lines) + "\n")
    js = json.loads(run_cli("score", "controls", "--queries", SAMPLE / "queries.jsonl",
                            "--qrels", tmp_path / "derived.txt", "--evidence",
                            SAMPLE / "evidence.jsonl", "--json").stdout)  # fmt: skip
    oracle = next(c for c in js["controls"] if c["control"] == "fact_oracle")
    share = len(with_gold) / len(conds)
    assert oracle["nclue"] == oracle["gold_hit"] == pytest.approx(share) and share > 0.5


def test_services_are_what_the_commands_print(tmp_path: Path) -> None:
    from evaudit.output import dumps
    from services.score_diagnostics import (
        score_controls,
        score_difficulty,
        score_mask_condition,
        score_metric_ranking,
    )
    from services.score_inputs import ScoreSource

    runs = (SAMPLE / "runs" / "rrf.trec", SAMPLE / "runs" / "bm25_doc.trec")
    src = ScoreSource(SAMPLE / "queries.jsonl", None, tuple((None, r) for r in runs), "file")
    files = ["--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt",
             *[a for r in runs for a in ("--run", r)]]  # fmt: skip
    pages = _pages(tmp_path)
    ev = SAMPLE / "evidence.jsonl"
    cases = [
        (["score", "metric-ranking", *files], score_metric_ranking(src, qrels=SAMPLE / "qrels.txt",
                                                                   k=10)),
        (["score", "controls", "--queries", SAMPLE / "queries.jsonl", "--qrels",
          SAMPLE / "qrels.txt", "--evidence", ev],
         score_controls(SAMPLE / "queries.jsonl", None, qrels=SAMPLE / "qrels.txt", evidence=ev,
                        k=10, out_dir=None)),
        (["score", "mask-condition", *files[:4], "--run", f"rrf={runs[0]}", "--mask",
          f"rrf:1={runs[1]}", "--bootstrap", "30"],
         score_mask_condition(ScoreSource(SAMPLE / "queries.jsonl", None, (("rrf", runs[0]),),
                                          "file"), qrels=SAMPLE / "qrels.txt",
                              masks=(f"rrf:1={runs[1]}",), k=10, bootstrap=30, seed=11)),
    ]  # fmt: skip
    diff = score_difficulty(src, qrels=SAMPLE / "qrels.txt", evidence=ev, pages=pages, k=10,
                            metric="nclue", bins=4)  # fmt: skip
    cases.append((["score", "difficulty", *files, "--evidence", ev, "--pages", pages], diff))
    for args, rep in cases:
        assert run_cli(*args, "--json").stdout == dumps(rep.to_json()) + "\n"
        assert run_cli(*args).stdout == rep.table() + "\n"
        assert rep.rows() and all(isinstance(r, dict) for r in rep.rows())
