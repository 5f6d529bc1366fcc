"""`score impact` on a classic benchmark (BEIR qrels.tsv, TREC qrels, files): the
analysis of services/impact_classic.py through the real CLI. Means against pytrec_eval,
declared pairs tested (they used to be ignored), label influence against recomputing the
measure with pytrec_eval with one label changed at a time, Judged@k by hand, the plots
(format, size and the values drawn), and bad input refused with nothing written."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from scipy import stats

from tests.conftest import cli_json, run_cli

RUNS = ("alpha", "beta", "gamma", "delta")


def _write_qrels(path: Path, qrels: dict[str, dict[str, int]], beir: bool) -> Path:
    with path.open("w") as fh:
        if beir:
            fh.write("query-id\tcorpus-id\tscore\n")
        for q, ds in qrels.items():
            for d, g in ds.items():
                fh.write(f"{q}\t{d}\t{g}\n" if beir else f"{q} 0 {d} {g}\n")
    return path


def _bench(root: Path, beir: bool = True) -> dict[str, Any]:
    """12 queries, 8 judged docs each (grades 0-2), 4 runs of 10 distinct scores each."""
    rnd = random.Random(7)
    before: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {r: {} for r in RUNS}
    for qi in range(12):
        q = f"q{qi}"
        before[q] = {f"d{qi}_{j}": rnd.choice([0, 1, 1, 2]) for j in range(8)}
        for ri, r in enumerate(RUNS):
            docs = [f"d{qi}_{j}" for j in range(12)]  # 4 unjudged documents
            rnd.shuffle(docs)
            runs[r][q] = {d: float(100 - i + 0.1 * ri) for i, d in enumerate(docs[:10])}
    after = {q: dict(ds) for q, ds in before.items()}
    after["q0"]["d0_0"] = 0 if before["q0"]["d0_0"] else 2  # a grade changed
    unjudged = next(d for d in runs["alpha"]["q1"] if d not in before["q1"])
    after["q1"][unjudged] = 2  # an unjudged document in alpha's top 10 judged
    gone = next(d for d in sorted(before["q2"]) if d not in runs["alpha"]["q2"])
    del after["q2"][gone]  # a row removed (outside alpha's top 10: Judged@10 moves)
    after["q3"] = {d: 0 for d in after["q3"]}  # every label of q3 demoted
    after["q4"]["d4_2"] = 1 if before["q4"]["d4_2"] != 1 else 0
    files = []
    for r in RUNS:
        path = root / f"{r}.trec"
        path.write_text("".join(
            f"{q} Q0 {d} {i + 1} {s} {r}\n"
            for q, ds in runs[r].items()
            for i, (d, s) in enumerate(sorted(ds.items(), key=lambda kv: -kv[1]))
        ))  # fmt: skip
        files.append(path)
    ext = ".tsv" if beir else ".txt"
    return {
        "before": _write_qrels(root / f"before{ext}", before, beir),
        "after": _write_qrels(root / f"after{ext}", after, beir),
        "qrels_before": before, "qrels_after": after, "runs": runs, "files": files,
    }  # fmt: skip


def _args(b: dict[str, Any], *extra: Any) -> list[Any]:
    runs = [a for f in b["files"] for a in ("--run", f)]
    return ["score", "impact", "--qrels-before", b["before"], "--qrels-after", b["after"],
            *runs, "--draws", "2000", "--bootstrap", "200", *extra]  # fmt: skip


def _means(qrels: dict[str, dict[str, int]], runs: Any, measure: str) -> dict[str, float]:
    key = measure.replace("ndcg_cut_", "ndcg_cut.").replace("P_", "P.")
    out = {}
    for r, run in runs.items():
        ev = pytrec_eval.RelevanceEvaluator(qrels, {key}).evaluate(run)
        out[r] = sum(ev[q][measure] for q in sorted(ev)) / len(ev)
    return out


def _check_influence(changes: list[dict[str, Any]], before: dict[str, dict[str, int]],
                     runs: Any) -> None:  # fmt: skip
    """Each change's figures equal pytrec_eval on the before qrels with only it applied."""
    base = _means(before, runs, "ndcg_cut_10")
    for c in changes:
        one = {q: dict(ds) for q, ds in before.items()}
        if c["new_grade"] is None:
            del one[c["query_id"]][c["doc_id"]]
        else:
            one.setdefault(c["query_id"], {})[c["doc_id"]] = c["new_grade"]
        one = {q: ds for q, ds in one.items() if ds}  # a query without judgments leaves
        assert c["old_grade"] == before.get(c["query_id"], {}).get(c["doc_id"])
        got = _means(one, runs, "ndcg_cut_10")
        for r in RUNS:
            assert c["delta"][r] == pytest.approx(got[r] - base[r], abs=1e-12)
        assert c["max_abs_delta"] == pytest.approx(max(abs(got[r] - base[r]) for r in RUNS))
        want_tau = stats.kendalltau([base[r] for r in RUNS], [got[r] for r in RUNS]).statistic
        assert c["kendall"] == pytest.approx(want_tau)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    b = _bench(tmp_path_factory.mktemp("impact_classic"))
    b["rep"] = cli_json(*_args(b, "--measure", "ndcg_cut_10,map", "--pair", "alpha:delta",
                               "--pair", "beta:gamma"))  # fmt: skip
    return b


def test_means_equal_pytrec_eval_and_pairs_are_tested(bench: dict[str, Any]) -> None:
    rep = bench["rep"]
    assert rep["kind"] == "classic" and rep["measures"] == ["ndcg_cut_10", "map"]
    for m in rep["measures"]:
        want_b = _means(bench["qrels_before"], bench["runs"], m)
        want_a = _means(bench["qrels_after"], bench["runs"], m)
        for r in RUNS:
            got = rep["by_measure"][m]["runs"][r]
            assert got["before"] == pytest.approx(want_b[r], abs=1e-12)
            assert got["after"] == pytest.approx(want_a[r], abs=1e-12)
            assert got["delta"] == pytest.approx(want_a[r] - want_b[r], abs=1e-12)
            lo, hi = got["ci95"]
            assert lo <= hi
            assert rep["trec_measures"]["runs"][r][m]["before"] == got["before"]
        means_b = [want_b[r] for r in RUNS]
        means_a = [want_a[r] for r in RUNS]
        o = rep["by_measure"][m]["ordering"]
        assert o["kendall"] == pytest.approx(stats.kendalltau(means_b, means_a).statistic)
        assert o["spearman"] == pytest.approx(stats.spearmanr(means_b, means_a).statistic)
        pairs = rep["by_measure"][m]["pairs"]
        assert [(p["base"], p["variant"]) for p in pairs] == [("alpha", "delta"), ("beta", "gamma")]
        assert rep["by_measure"][m]["discriminative_power"]["pairs"] == 6
    # The declared pairs are tested on the queries' values (they used to be ignored).
    ndcg_pairs = rep["by_measure"]["ndcg_cut_10"]["pairs"]
    q = sorted(bench["qrels_before"])
    ev = {r: pytrec_eval.RelevanceEvaluator(bench["qrels_before"], {"ndcg_cut.10"}).evaluate(run)
          for r, run in bench["runs"].items()}  # fmt: skip
    d = [ev["delta"][x]["ndcg_cut_10"] - ev["alpha"][x]["ndcg_cut_10"] for x in q]
    assert ndcg_pairs[0]["before"]["diff"] == pytest.approx(np.mean(d), abs=1e-12)
    assert ndcg_pairs[0]["before"]["p_t"] == pytest.approx(stats.ttest_1samp(d, 0).pvalue)
    assert rep["queries"] == {"before": 12, "after": 12, "removed": [], "added": []}


def test_label_influence_equals_recomputing_with_one_label_changed(bench: dict[str, Any]) -> None:
    rep = bench["rep"]
    changes = rep["influence"]["changes"]
    before, after = bench["qrels_before"], bench["qrels_after"]
    expected = {
        (q, d) for q in before for d in set(before[q]) | set(after[q])
        if before[q].get(d) != after[q].get(d)
    }  # fmt: skip
    assert {(c["query_id"], c["doc_id"]) for c in changes} == expected
    assert rep["labels_changed"] == len(expected) == 11
    _check_influence(changes, before, bench["runs"])
    sizes = [c["max_abs_delta"] for c in changes]
    assert sizes == sorted(sizes, reverse=True)  # most influential first
    text = run_cli(*_args(bench, "--measure", "ndcg_cut_10", "--top", "3")).stdout
    assert "label influence on ndcg_cut_10 (each change alone; 3 of 11" in text
    first = changes[0]
    tail = text.split("most influential first):\n", 1)[1].splitlines()
    assert tail[2].split()[:2] == [first["query_id"], first["doc_id"]] and len(tail) == 5


def test_judged_at_k_beside_every_measure(bench: dict[str, Any]) -> None:
    rep = bench["rep"]
    for r in RUNS:
        run = bench["runs"][r]
        top = {q: sorted(ds, key=lambda d: -ds[d])[:10] for q, ds in run.items()}
        for side, qrels in (("before", bench["qrels_before"]), ("after", bench["qrels_after"])):
            want = np.mean([sum(d in qrels[q] for d in top[q]) / 10 for q in sorted(qrels)])
            for m in ("ndcg_cut_10", "map"):  # map has no cut: --k 10
                got = rep["by_measure"][m]["runs"][r]
                assert got["judged_depth"] == 10
                assert got[f"judged_{side}"] == pytest.approx(want)
            assert rep["judged"]["10"][r][side] == pytest.approx(want)


def test_all_pairs_and_holm(bench: dict[str, Any]) -> None:
    from statsmodels.stats.multitest import multipletests

    rep = cli_json(*_args(bench, "--measure", "P_5", "--all-pairs"))
    pairs = rep["by_measure"]["P_5"]["pairs"]
    assert len(pairs) == 6 and rep["all_pairs"] is True
    for side in ("before", "after"):
        for t in ("randomization", "t"):
            raw = [p[side][f"p_{t}"] for p in pairs]
            adj = [p[side][f"p_{t}_holm"] for p in pairs]
            assert adj == pytest.approx(multipletests(raw, method="holm")[1])
            dp = rep["by_measure"]["P_5"]["discriminative_power"][side][t]
            assert dp == sum(p < 0.05 for p in raw) / 6
    for p in pairs:
        for t in ("randomization", "t"):
            flip = p["before"][f"decision_{t}"] != p["after"][f"decision_{t}"]
            assert p["flips"][t] is flip
    assert rep["by_measure"]["P_5"]["flipped"] == [
        f"{p['base']}:{p['variant']}" for p in pairs if any(p["flips"].values())
    ]


def _png_svg(path: Path) -> bytes:
    data = path.read_bytes()
    assert len(data) > 5000
    return data


def test_plots_png_and_svg_with_the_values_drawn(bench: dict[str, Any], tmp_path: Path) -> None:
    from services.figures import impact_figure

    png, svg = tmp_path / "impact.png", tmp_path / "impact.svg"
    rep = cli_json(*_args(bench, "--measure", "ndcg_cut_10", "--plot", png))
    assert rep["plot"] == str(png)
    assert _png_svg(png)[:8] == b"\x89PNG\r\n\x1a\n"
    run_cli(*_args(bench, "--measure", "ndcg_cut_10", "--plot", svg))
    text = _png_svg(svg).decode()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    fig, data = impact_figure(rep)
    runs = rep["by_measure"]["ndcg_cut_10"]["runs"]
    assert {t: (b, a) for t, b, a in data["slope"]} == {
        t: (r["rank_before"], r["rank_after"]) for t, r in runs.items()
    }
    left, right = fig.axes
    lines = {ln.get_gid(): ln.get_ydata().tolist() for ln in left.get_lines()}
    assert lines == {f"slope:{t}": [r["rank_before"], r["rank_after"]] for t, r in runs.items()}
    (points,) = [ln for ln in right.get_lines() if ln.get_marker() == "o"]
    xs, ys = points.get_xdata().tolist(), points.get_ydata().tolist()
    order = sorted(runs, key=lambda t: runs[t]["rank_before"])
    assert xs == [runs[t]["before"] for t in order] and ys == [runs[t]["delta"] for t in order]
    assert [c[3:] for c in data["changes"]] == [tuple(runs[t]["ci95"]) for t in order]


def test_bad_input_is_refused_with_nothing_written(bench: dict[str, Any], tmp_path: Path) -> None:
    bad = tmp_path / "impact.pdf"
    err = run_cli(*_args(bench, "--measure", "map", "--plot", bad), expect=2).stderr
    assert "--plot takes a .png or .svg file" in err and not bad.exists()
    err = run_cli(*_args(bench, "--measure", "map", "--pair", "alpha:nope"), expect=2).stderr
    assert "nope" in err
    err = run_cli(*_args(bench, "--measure", "ndcg_cutt_10"), expect=2).stderr
    assert "unknown measure 'ndcg_cutt_10'" in err
    err = run_cli(*_args(bench, "--pair", "alpha:beta", "--all-pairs"), expect=2).stderr
    assert "give --pair or --all-pairs, not both" in err
    missing = tmp_path / "none" / "x.png"
    err = run_cli(*_args(bench, "--measure", "map", "--plot", missing), expect=2).stderr
    assert "--plot folder does not exist" in err


def test_trec_qrels_and_removed_queries(tmp_path: Path) -> None:
    b = _bench(tmp_path, beir=False)
    after = {q: ds for q, ds in b["qrels_after"].items() if q != "q5"}  # the revision drops q5
    _write_qrels(b["after"], after, beir=False)
    rep = cli_json(*_args(b, "--measure", "ndcg_cut_10"))
    assert rep["queries"]["removed"] == ["q5"] and rep["queries"]["after"] == 11
    want = _means(after, b["runs"], "ndcg_cut_10")
    for r in RUNS:
        assert rep["by_measure"]["ndcg_cut_10"]["runs"][r]["after"] == pytest.approx(want[r])
    removed = [c for c in rep["influence"]["changes"] if c["query_id"] == "q5"]
    assert len(removed) == 8 and all(c["new_grade"] is None for c in removed)
    json.dumps(rep)


def test_jsonl_qrels_with_negative_grades(bench: dict[str, Any], tmp_path: Path) -> None:
    """finalize writes a TREC project's -2 (spam) grades into qrels.jsonl too."""
    rows = [{"query_id": q, "doc_id": d, "grade": -2 if g == 0 else g}
            for q, ds in bench["qrels_after"].items() for d, g in ds.items()]  # fmt: skip
    after = tmp_path / "after.jsonl"
    after.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = [a if a != bench["after"] else after for a in _args(bench, "--measure", "P_5")]
    rep = cli_json(*args)
    trec = tmp_path / "after.txt"  # the same rows as TREC qrels (trec_eval reads -2 as is)
    trec.write_text("".join(f"{r['query_id']} 0 {r['doc_id']} {r['grade']}\n" for r in rows))
    same = cli_json(*[a if a != after else trec for a in args])
    assert rep["by_measure"] == same["by_measure"] and rep["influence"] == same["influence"]
    assert any(c["new_grade"] == -2 for c in rep["influence"]["changes"])
    after.write_text("".join(json.dumps(r) + "\n" for r in [*rows[:3], rows[1]]))
    err = run_cli(*args, expect=2).stderr
    assert "after.jsonl:4: duplicate qrel for query 'q0'" in err


def test_influence_of_a_change_that_adds_or_drops_a_query(tmp_path: Path) -> None:
    """A label of a query judged only after (the query joins) and the one label of a query
    (removing it drops the query): each alone changes the number of queries averaged."""
    b = _bench(tmp_path)
    before = {q: dict(ds) for q, ds in b["qrels_before"].items() if q != "q11"}
    before["q10"] = {"d10_0": 2}
    after = {q: dict(ds) for q, ds in b["qrels_before"].items()}
    after["q10"] = {}
    after = {q: ds for q, ds in after.items() if ds}
    _write_qrels(b["before"], before, beir=True)
    _write_qrels(b["after"], after, beir=True)
    rep = cli_json(*_args(b, "--measure", "ndcg_cut_10"))
    changes = rep["influence"]["changes"]
    assert {c["query_id"] for c in changes} == {"q10", "q11"}
    assert any(c["old_grade"] is None for c in changes)
    assert next(c for c in changes if c["query_id"] == "q10")["new_grade"] is None
    assert rep["queries"]["added"] == ["q11"] and rep["queries"]["removed"] == ["q10"]
    _check_influence(changes, before, b["runs"])
