"""`score compare --form RUN=FORM`: the systems x forms matrix and per-form contrasts."""

from __future__ import annotations

import pytest

from scorers.form_matrix import form_matrix, system_of
from tests.conftest import SAMPLE, cli_json, run_cli
from vocabulary.errors import InputError

R = SAMPLE / "runs"
COMMON = ["--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt",
          "--draws", "500", "--bootstrap", "0"]  # fmt: skip
RUNS = {
    "bm25@raw": R / "bm25_doc.trec",
    "bm25@natural": R / "bm25_and.trec",
    "fusion@raw": R / "rrf.trec",
    "fusion@natural": R / "bm25_page.trec",
}


def _run_args() -> list[str]:
    args: list[str] = []
    for name, path in RUNS.items():
        args += ["--run", f"{name}={path}", "--form", f"{name}={name.split('@')[1]}"]
    return args


def test_system_names() -> None:
    assert system_of("bm25@raw", "raw") == "bm25"
    assert system_of("bm25_clean_v2", "clean_v2") == "bm25"
    assert system_of("bm25.natural", "natural") == "bm25"
    assert system_of("raw", "raw") == "raw" and system_of("bm25", "raw") == "bm25"


def test_matrix_and_contrasts_equal_the_plain_commands() -> None:
    rep = cli_json("score", "compare", *COMMON, *_run_args(), "--pair", "bm25:fusion")
    forms = rep["forms"]
    assert forms["forms"] == ["raw", "natural"]
    plain = cli_json("score", "nclue", "--queries", SAMPLE / "queries.jsonl", "--qrels",
                     SAMPLE / "qrels.txt", "--bootstrap", "0",
                     *[f"--run={n}={p}" for n, p in RUNS.items()])  # fmt: skip
    for name in RUNS:
        system, form = name.split("@")
        cell = forms["matrix"][system][form]
        assert cell["run"] == name
        assert cell["nclue"] == plain["runs"][name]["nclue"]
        assert cell["gold_ndcg"] == plain["runs"][name]["gold_ndcg"]
    assert [(c["form"], c["base_run"], c["variant_run"]) for c in forms["contrasts"]] == [
        ("raw", "bm25@raw", "fusion@raw"), ("natural", "bm25@natural", "fusion@natural"),
    ]  # fmt: skip
    direct = cli_json("score", "compare", *COMMON,
                      *[f"--run={n}={p}" for n, p in RUNS.items()],
                      "--pair", "bm25@raw:fusion@raw", "--pair", "bm25@natural:fusion@natural")  # fmt: skip
    assert [p["diff"] for p in direct["pairs"]] == [c["diff"] for c in forms["contrasts"]]
    assert [p["p"] for p in direct["pairs"]] == [c["p"] for c in forms["contrasts"]]
    assert [p["p_holm"] for p in direct["pairs"]] == [p["p_holm"] for p in rep["pairs"]]


def test_text_output_and_matrix_without_pairs() -> None:
    text = run_cli("score", "compare", *COMMON, *_run_args(), "--pair", "bm25:fusion").stdout
    assert "n-Clue Score by query form" in text and "fusion - bm25" in text
    rep = cli_json("score", "compare", *COMMON, *_run_args())
    assert rep["pairs"] == [] and set(rep["forms"]["matrix"]) == {"bm25", "fusion"}


def test_form_errors() -> None:
    res = run_cli("score", "compare", *COMMON, "--run", f"a@raw={R / 'rrf.trec'}",
                  "--run", f"a_raw={R / 'bm25_doc.trec'}", "--form", "a@raw=raw",
                  "--form", "a_raw=raw", expect=2)  # fmt: skip
    assert "both system 'a' with form 'raw'" in res.stderr and not res.stdout
    res = run_cli("score", "compare", *COMMON, "--run", f"a@raw={R / 'rrf.trec'}",
                  "--form", "b=raw", expect=2)  # fmt: skip
    assert "not given" in res.stderr
    with pytest.raises(InputError, match="share no query form"):
        form_matrix({"a@raw": "raw", "b@natural": "natural"}, ["a@raw", "b@natural"], ["a:b"])
