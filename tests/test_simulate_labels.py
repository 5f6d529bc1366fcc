"""`evaudit responses simulate --answers labels` on small BEIR and TREC projects: people
answer from the labels under test, departing with the stated --noise rate, and every yes
quotes a whole sentence of a displayed page (it passes the gates).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest

from services.sentences import sentences
from tests.classic_fixture import make_beir, make_trec, write_guideline
from tests.conftest import cli_json, run_cli

PEOPLE = ("A", "B", "C", "D", "E")


@pytest.fixture(scope="module", params=["beir", "trec"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(request.param)
    d = root / "proj"
    run_cli("init", d, "--admin-password", "pw-for-tests")
    if request.param == "beir":
        beir = make_beir(root / "scifact")
        cli_json("ingest", d, "--beir", beir)
        cli_json(
            "load", d, "--beir", beir, "--split", "test", "--relevant-from", 1,
            "--guideline", write_guideline(root / "guideline.json"),
        )  # fmt: skip
    else:
        trec = make_trec(root / "trec")
        cli_json("ingest", d, "--trec-docs", trec["docs"])
        cli_json(
            "load", d, "--trec-topics", trec["topics"], "--trec-qrels", trec["qrels"],
            "--relevant-from", 1,
        )  # fmt: skip
    cli_json("packet", "build", d, "--name", "initial", "--seed", 7, "--total", 18)
    return d


def lines(d: Path, name: str) -> list[dict[str, Any]]:
    path = d / "journals" / "initial" / f"{name}.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()]


def claimed(d: Path) -> dict[str, int]:
    """item -> the grade the label under test claims (the admin key's derived scale)."""
    key = json.loads((d / "keys" / "initial.key.json").read_text())
    return {item: int(v["grade"]) for item, v in key["items"].items()}


def pages(d: Path) -> dict[str, str]:
    packet = json.loads((d / "packets" / "initial.json").read_text())
    return {
        p["page_key"]: p["text"]
        for item in packet["items"]
        for cond in item["conditions"]
        for p in cond["pages"]
    }


def whole_sentences(page: str) -> set[str]:
    """Each sentence of the page and each two neighbouring ones, spaces collapsed."""
    spans = sentences(page)
    one = [" ".join(page[a:b].split()) for a, b in spans]
    two = [" ".join(page[a[0] : b[1]].split()) for a, b in itertools.pairwise(spans)]
    return set(one + two)


def test_without_noise_every_answer_is_the_label(project: Path) -> None:
    d = project
    cli_json("responses", "simulate", d, "initial", "--annotators", "Q,R", "--answers",
             "labels", "--noise", 0)  # fmt: skip
    grades = claimed(d)
    assert grades and set(grades.values()) == {1}  # every sampled pair is judged relevant
    text = pages(d)
    for name in ("Q", "R"):
        got = lines(d, name)
        assert {ln["item_id"] for ln in got} == set(grades)
        for ln in got:
            yes = [c for c in ln["conditions"].values() if c["answer"] == "yes"]
            assert len(yes) == grades[ln["item_id"]]
            for cond in yes:
                (page, quote), = cond["quotes"].items()  # fmt: skip
                assert page in cond["pages"]
                # Whole sentences of the shown page, as the page splits into sentences.
                assert quote in whole_sentences(text[page]), (quote, text[page])
    # The same chain the CLI reports: the two agree on every pair, and nothing demotes.
    audit = cli_json("agreement", "audit", d, "initial", "--raters", "Q,R")
    assert audit["exact_grade_agreement"]["rate"] == 1.0
    integrity = cli_json("integrity", d, "initial")
    for name in ("Q", "R"):
        exact = integrity["streams"][name]["quotes_exact"]
        assert exact["count"] == exact["total"] == len(grades)  # every quote is exact


def test_answers_depart_from_the_labels_at_the_stated_noise(project: Path) -> None:
    d = project
    noise = 0.25
    cli_json("responses", "simulate", d, "initial", "--annotators", ",".join(PEOPLE),
             "--answers", "labels", "--noise", noise, "--seed", 5)  # fmt: skip
    grades = claimed(d)
    departed = total = 0
    for name in PEOPLE:
        for ln in lines(d, name):
            for cond in ln["conditions"].values():
                total += 1
                departed += cond["answer"] != "yes"  # every label claims yes here
    assert total == len(PEOPLE) * len(grades)
    # Within the stated rate: a two-sided binomial test at 1% does not reject it.
    assert binomtest(departed, total, noise).pvalue > 0.01, (departed, total)
    assert 0 < departed < total


def test_bad_answers_mode_is_refused(project: Path) -> None:
    res = run_cli("responses", "simulate", project, "initial", "--annotators", "Z",
                  "--answers", "guess", expect=2)  # fmt: skip
    assert "'guess' is not one of 'pages', 'labels'" in res.output + res.stderr
    assert not (project / "journals" / "initial" / "Z.jsonl").exists()


def test_the_demo_fill_quotes_sentences_that_support_their_condition(tmp_path: Path) -> None:
    from services.sentences import is_prose
    from services.simulate import simulate
    from tests.app_fixture import build

    fx = build(tmp_path / "p", items=4, conditions=2, pages=3)
    simulate(fx.project, "initial", ("alice", "bob"))
    text = pages(fx.project.root)
    quotes = [
        (page, quote)
        for name in ("alice", "bob")
        for ln in lines(fx.project.root, name)
        for cond in ln["conditions"].values()
        for page, quote in cond.get("quotes", {}).items()
    ]
    assert quotes
    for page, quote in quotes:
        # Whole sentences of the page (one, or two neighbours), holding the page's one
        # sentence about its programme meeting the target.
        assert quote in whole_sentences(text[page]), (quote, text[page])
        assert fx.quotes[page] in quote and is_prose(quote)


def test_errors_read_plainly(project: Path, tmp_path: Path) -> None:
    """No Python dict in the undecided-votes error; a JSON error is not cut off."""
    d = project
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "evaudit-responses", "items": {"J001": {"comment": "a\x01b"}}}')
    res = run_cli("responses", "import", d, bad, expect=2)
    assert "bad.json:1: not valid JSON (Invalid control character at column 65)" in res.stderr
    cli_json("responses", "simulate", d, "initial", "--annotators", "S,T", "--answers",
             "labels", "--noise", 0.1, "--seed", 3)  # fmt: skip
    queue = tmp_path / "queue.json"
    cli_json("raters", d, "initial", "S,T")  # an earlier test stored Q,R for this packet
    cli_json("repair", "plan", d, "initial", "--queue-out", queue)
    cli_json("packet", "build", d, "--name", "adjm", "--kind", "adjudication", "--queue", queue,
             "--seed", 7)  # fmt: skip
    cli_json("responses", "simulate", d, "adjm", "--annotators", "U,V,W,X", "--answers",
             "labels", "--noise", 0.5, "--seed", 2)  # fmt: skip
    res = run_cli("finalize", d, "--out", tmp_path / "rev", "--initial", "initial",
                  expect=None)  # fmt: skip
    assert res.exit_code == 2  # these seeds leave a condition undecided (a tie)
    assert "undecided (tie: " in res.stderr and "U=" in res.stderr, res.stderr
    assert "{" not in res.stderr and "True" not in res.stderr and "False" not in res.stderr
