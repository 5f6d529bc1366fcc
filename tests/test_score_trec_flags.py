"""`score trec --complete-queries/-c --relevance-level --judged-only --max-docs`: trec_eval's
-c, -l, -J and -M through the same engine options as `evaudit trec_eval`, so its "all"
and per-query values equal `evaudit trec_eval`'s on the same files, exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import cli_json

DATA = Path(__file__).parent / "data" / "trec_eval"
FLAGS = [
    (["-c"], ["-c"]),
    (["--relevance-level", "2"], ["-l", "2"]),
    (["--judged-only"], ["-J"]),
    (["--max-docs", "2"], ["-M", "2"]),
    (["-c", "--judged-only", "--relevance-level", "2", "--max-docs", "3"],
     ["-c", "-J", "-l", "2", "-M", "3"]),
]  # fmt: skip


@pytest.mark.parametrize(("ours", "theirs"), FLAGS, ids=[" ".join(f[1]) for f in FLAGS])
@pytest.mark.parametrize("qrels", ["qrels.txt", "qrels_in_run.txt"])
def test_score_trec_flags_equal_trec_eval(ours: list[str], theirs: list[str], qrels: str) -> None:
    te = cli_json("trec_eval", *theirs, "-q", "-m", "all_trec", DATA / qrels, DATA / "run.txt")
    st = cli_json(
        "score", "trec", "--qrels", DATA / qrels, "--run", DATA / "run.txt",
        "--measure", "all_trec", "--per-query", *ours,
    )  # fmt: skip
    run = st["runs"][te["runid"]]
    assert run["queries"] == te["queries"]
    for name, value in run["mean"].items():
        assert value == te["all"][name], name
    assert run["per_query"].keys() == te["per_query"].keys()
    for q, values in run["per_query"].items():
        for name, value in values.items():
            other = te["per_query"][q][name]
            assert value == other or (value != value and other != other), (q, name)  # NaN: both
    assert st["trec_eval_flags"]


def test_defaults_add_no_flags_key() -> None:
    st = cli_json("score", "trec", "--qrels", DATA / "qrels.txt", "--run", DATA / "run.txt")
    assert "trec_eval_flags" not in st


def test_complete_with_a_query_filter_adds_only_the_filters_queries(tmp_path: Path) -> None:
    # qrels.txt has queries the run lacks; -c adds them, unless --queries leaves them out
    te = cli_json("trec_eval", "-c", "-q", "-m", "num_q", DATA / "qrels.txt", DATA / "run.txt")
    in_run = sorted(q for q in te["per_query"])
    keep = in_run[:1]
    topics = tmp_path / "queries.jsonl"
    topics.write_text("".join(f'{{"_id": "{q}", "text": "t"}}\n' for q in keep))
    st = cli_json(
        "score", "trec", "--qrels", DATA / "qrels.txt", "--run", DATA / "run.txt", "-c",
        "--queries", topics, "--measure", "map", "--per-query",
    )  # fmt: skip
    assert sorted(next(iter(st["runs"].values()))["per_query"]) == keep
