"""`evaudit trec_eval` as a drop-in for trec_eval: the same lines as trec_eval 10.0 printed
for our own files (tests/data/trec_eval/README.md) apart from whitespace, for -q, -c,
-J, -M, -l, -N and measure parameters; one-line file:line errors with a non-zero exit;
`score trec` takes the same names and parameter syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import cli_json, run_cli

DATA = Path(__file__).parent / "data" / "trec_eval"
CASES = [
    ("c_q_all_trec.out", ["-c", "-q", "-m", "all_trec"], "qrels.txt", "run.txt"),
    ("c_J_q_all_trec.out", ["-c", "-J", "-q", "-m", "all_trec"], "qrels.txt", "run.txt"),
    ("c_M2_q_official.out", ["-c", "-M2", "-q", "-m", "official"], "qrels.txt", "run.txt"),
    ("c_l2_q_all_trec.out", ["-c", "-l2", "-q", "-m", "all_trec"], "qrels.txt", "run.txt"),
    ("c_N_params.out", ["-c", "-N", "100", "-q", "-m", "utility.1,-1,-1,1", "-m", "P.1,2",
                        "-m", "ndcg.1=3,2=9", "-m", "set_F.0.5", "-m", "rbp.p=0.5"],
     "qrels.txt", "run.txt"),
    ("q_all_trec.out", ["-q", "-m", "all_trec", "-mrelstring.3"], "qrels_in_run.txt", "run.txt"),
    ("official.out", [], "qrels_in_run.txt", "run_in_qrels.txt"),
]  # fmt: skip


def _words(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize(("expected", "flags", "qrels", "run"), CASES)
def test_output_equals_trec_eval(expected: str, flags: list[str], qrels: str, run: str) -> None:
    out = run_cli("trec_eval", *flags, DATA / qrels, DATA / run).stdout
    assert _words(out) == _words((DATA / expected).read_text())
    for line in out.splitlines():  # trec_eval's columns: name padded to 22, tab, id, tab
        name, qid, value = line.split("\t")
        assert len(name) >= 22 and name.rstrip() and qid and value


def test_all_line_sums_counts_and_averages_the_rest() -> None:
    ms = [a for m in ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map") for a in ("-m", m)]
    rep = cli_json("trec_eval", "-q", *ms, DATA / "qrels_in_run.txt", DATA / "run.txt")
    pq = rep["per_query"]
    assert rep["all"]["num_ret"] == sum(v["num_ret"] for v in pq.values()) == 9
    assert rep["all"]["num_rel"] == 5 and rep["all"]["num_rel_ret"] == 3
    assert rep["all"]["map"] == pytest.approx(sum(v["map"] for v in pq.values()) / 2, abs=0)
    assert rep["runid"] == "T" and rep["queries"] == 2


def test_judged_at_k_is_the_judged_share_of_the_top_k() -> None:
    rep = cli_json("trec_eval", "-q", "-m", "judged.1,2,10", DATA / "qrels.txt", DATA / "run.txt")
    # A: d1 d2 d9 d10 (1.5, docno descending: d9 d2 d10 d1) then d3 d#4 (0.25: d3 d#4)
    a, b = rep["per_query"]["A"], rep["per_query"]["B"]
    assert (a["judged_1"], a["judged_2"], a["judged_10"]) == (0.0, 0.5, 4 / 6)
    assert (b["judged_1"], b["judged_2"], b["judged_10"]) == (1.0, 1.0, 2 / 3)


def _bad(tmp_path: Path, qrels: str, run: str, *flags: str) -> str:
    (tmp_path / "q.txt").write_text(qrels)
    (tmp_path / "r.txt").write_text(run)
    res = run_cli("trec_eval", *flags, tmp_path / "q.txt", tmp_path / "r.txt", expect=None)
    assert res.exit_code != 0
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_bad_input_gives_one_line_with_file_and_line(tmp_path: Path) -> None:
    run = "A Q0 d1 1 1.0 T\n"
    assert "q.txt:3: expected 4 fields" in _bad(tmp_path, "# c\nA 0 d1 1\nA 0 d2\n", run)
    assert "r.txt:2: expected 6 fields" in _bad(tmp_path, "A 0 d1 1\n", run + "A Q0 d2 2 T\n")
    assert "r.txt:2: score 'x'" in _bad(tmp_path, "A 0 d1 1\n", run + "A Q0 d2 2 x T\n")
    assert "appears twice" in _bad(tmp_path, "A 0 d1 1\n", run + "A Q0 d1 2 0.5 T\n")
    assert "no queries with both" in _bad(tmp_path, "B 0 d1 1\n", run)
    assert "unknown measure 'nope'" in _bad(tmp_path, "A 0 d1 1\n", run, "-m", "nope")
    assert "duplicate cutoffs" in _bad(tmp_path, "A 0 d1 1\n", run, "-m", "P.5,5")


def test_help_names_what_is_not_offered() -> None:
    out = run_cli("trec_eval", "--help").stdout
    assert "qrels_jg" in out and "preference" in out and "float32" in out


def test_score_trec_takes_trec_eval_names_and_parameters(tmp_path: Path) -> None:
    rep = cli_json("score", "trec", "--qrels", DATA / "qrels_in_run.txt", "--run",
                   DATA / "run_in_qrels.txt", "--measure", "P.1,2,ndcg.1=3,2=9,utility.1,-1,-1,1",
                   "--measure", "iprec_at_recall_0.10,num_ret", "--per-query")  # fmt: skip
    mean = rep["runs"]["T"]["mean"]
    assert list(mean) == ["P_1", "P_2", "ndcg_1=3,2=9", "utility_1,-1,-1,1",
                          "iprec_at_recall_0.10", "num_ret"]  # fmt: skip
    te = {w[0]: float(w[2]) for w in _words((DATA / "c_N_params.out").read_text())
          if w[1] == "A"}  # fmt: skip
    assert rep["runs"]["T"]["per_query"]["A"]["ndcg_1=3,2=9"] == pytest.approx(
        te["ndcg_1=3,2=9"], abs=5e-5
    )
    assert mean["num_ret"] == 9  # a sum, as trec_eval's "all" line
    assert rep["score_precision"] == "float64"


def test_score_precision_float32_follows_pytrec_eval(tmp_path: Path) -> None:
    import pytrec_eval

    (tmp_path / "q.txt").write_text("q 0 d1 1\nq 0 d2 0\n")
    # 1 + 2**-30 and 1 are different doubles and the same float32
    (tmp_path / "r.txt").write_text("q Q0 d1 1 1.000000000931322574615478515625 T\nq Q0 d2 2 1 T\n")
    ref = pytrec_eval.RelevanceEvaluator({"q": {"d1": 1, "d2": 0}}, {"recip_rank"}).evaluate(
        {"q": {"d1": 1.0 + 2.0**-30, "d2": 1.0}}
    )["q"]["recip_rank"]
    base = ["--qrels", tmp_path / "q.txt", "--run", tmp_path / "r.txt", "--measure", "recip_rank"]
    f32 = cli_json("score", "trec", *base, "--score-precision", "float32")
    f64 = cli_json("score", "trec", *base)
    assert f32["runs"]["T"]["mean"]["recip_rank"] == ref == 0.5
    assert f64["runs"]["T"]["mean"]["recip_rank"] == 1.0  # trec_eval's doubles
    te = ["trec_eval", "-m", "recip_rank", tmp_path / "q.txt", tmp_path / "r.txt"]
    assert run_cli(*te).stdout.split()[-1] == "1.0000"
    assert run_cli(*te[:1], "--score-precision", "float32", *te[1:]).stdout.split()[-1] == "0.5000"
