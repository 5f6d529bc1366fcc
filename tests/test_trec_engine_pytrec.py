"""The measure engine against pytrec_eval (which embeds trec_eval 9) on generated qrels and
runs: tied scores, unjudged documents, negative grades (in the pool, unjudged), grade-0
rows, queries missing from the run, run queries without qrels, -l 2 and -J; every measure
both offer, per query, to 1e-12.

pytrec_eval compares scores as float32 and rounds iprec_at_recall/11pt_avg cutoffs as
trec_eval 9 did, so the engine runs with precision="float32", cutoff_rounding="plus0.9".
"""

from __future__ import annotations

import math

import numpy as np
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorers.trec_catalog import requests, resolve
from scorers.trec_measures import Options, bind_qrels, score_arrays

PYTREC_MEASURES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "utility", "P.3,7", "ndcg_cut.2,4", "success.2,3",
    "Rprec_mult.0.5,1.5", "iprec_at_recall.0.25,0.75", "recall.4",
    "relative_P.3", "map_cut.3",
]  # fmt: skip
# Docnos of different lengths, so strcmp order differs from numeric order.
DOCS = [f"d{i}" for i in range(1, 13)] + ["d100", "e", "D7", "d1x"]
SCORES = [0.5, 1.0, 1.25, 2.0, 3.5]  # few values: ties everywhere


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict, dict]:
    nq = draw(st.integers(1, 5))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(nq):
        qid = f"q{q}"
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        qrels[qid] = {d: draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3])) for d in judged}
        if max(qrels[qid].values()) < 0:
            # trec_eval (and so pytrec_eval) writes past a zero-length buffer when every
            # grade of a query is negative: pytrec_eval crashes, so no such query here
            qrels[qid][judged[0]] = 0
        if draw(st.integers(0, 4)) == 0:
            continue  # a qrels query missing from the run
        ranked = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=14, unique=True))
        run[qid] = {d: draw(st.sampled_from(SCORES)) for d in ranked}
    if draw(st.booleans()):
        run["q_no_qrels"] = {"d1": 1.0, "d2": 0.5}
    if not any(q in qrels for q in run):
        run["q0"] = {"d1": 1.0}
    return qrels, run


def _ours(qrels: dict, run: dict, measures: list[str], level: int, judged: bool) -> dict:
    rows = [(q, d, g) for q, ds in qrels.items() for d, g in ds.items()]
    bound = bind_qrels([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    rr = [(q, d, s) for q, ds in run.items() for d, s in ds.items()]
    ms = resolve(requests(measures), trec_eval=False)
    opts = Options(level=level, judged_only=judged, precision="float32",
                   cutoff_rounding="plus0.9")  # fmt: skip
    got = score_arrays(bound, [r[0] for r in rr], [r[1] for r in rr], [r[2] for r in rr], ms, opts)
    return {q: {k: float(v[i]) for k, v in got.values.items()} for i, q in enumerate(got.qids)}


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([1, 2]), st.booleans())
def test_every_shared_measure_equals_pytrec_eval(
    data: tuple[dict, dict], level: int, judged: bool
) -> None:
    qrels, run = data
    ref = pytrec_eval.RelevanceEvaluator(
        qrels, set(PYTREC_MEASURES), relevance_level=level, judged_docs_only_flag=judged
    ).evaluate(run)
    got = _ours(qrels, run, PYTREC_MEASURES, level, judged)
    assert set(got) == set(ref)
    for qid, vals in ref.items():
        for name, want in vals.items():
            if name in ("runid", "relstring", "num_q"):
                continue
            assert name in got[qid], name
            assert _same(got[qid][name], want), (qid, name, got[qid][name], want)


def test_float32_precision_breaks_float32_ties_by_docno_as_pytrec_eval() -> None:
    # Scores equal in float32 but not in float64: trec_eval (doubles) ranks d1 first,
    # pytrec_eval (float32) sees a tie and ranks d2 first (docno descending).
    qrels = {"q": {"d1": 1, "d2": 0}}
    run = {"q": {"d1": 1.0 + 2.0**-30, "d2": 1.0}}
    assert np.float32(run["q"]["d1"]) == np.float32(run["q"]["d2"])
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q"]["recip_rank"]
    assert ref == 0.5
    assert _ours(qrels, run, ["recip_rank"], 1, False)["q"]["recip_rank"] == ref
    rows = [("q", "d1", 1), ("q", "d2", 0)]
    bound = bind_qrels(*zip(*rows, strict=True))
    ms = resolve(requests(["recip_rank"]), trec_eval=False)
    doubles = score_arrays(bound, ["q", "q"], ["d1", "d2"], [1.0 + 2.0**-30, 1.0], ms)
    assert doubles.values["recip_rank"][0] == 1.0  # trec_eval's doubles
