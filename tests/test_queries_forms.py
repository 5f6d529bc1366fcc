"""Query forms (raw, clean_v2, natural) and the verbatim-containment check, library and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from formats.readers import read_queries
from formats.records import Condition, Query
from packet_builder.query_forms import check_forms, missing_conditions, render
from tests.conftest import run_cli


def _q(qid: str, *names: str, text: str = "raw text") -> Query:
    conds = tuple(Condition(f"{qid}_c{i}", n, "req") for i, n in enumerate(names, start=1))
    return Query(qid, text, conds)


EXPECTED = {
    1: ('"Alpha"', 'Find the document that discusses "Alpha".'),
    2: ('"Alpha"; "Beta"', 'Find the document that discusses "Alpha" and "Beta".'),
    3: (
        '"Alpha"; "Beta"; "Gamma"',
        'Find the document that discusses "Alpha", "Beta", and "Gamma".',
    ),
    4: (
        '"Alpha"; "Beta"; "Gamma"; "Delta"',
        'Find the document that discusses "Alpha", "Beta", "Gamma", and "Delta".',
    ),
}


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_renderings_for_one_to_four_conditions(n: int) -> None:
    q = _q("q", *["Alpha", "Beta", "Gamma", "Delta"][:n], text="original words")
    assert render(q, "raw") == "original words"
    assert render(q, "clean_v2") == EXPECTED[n][0]
    assert render(q, "natural") == EXPECTED[n][1]


def test_names_with_and_quotes_and_semicolons_stay_verbatim() -> None:
    q = _q("q", "Grievance  and Redress\n", 'the "safe harbour" rule', "costs; benefits")
    assert render(q, "clean_v2") == (
        '"Grievance and Redress"; "the "safe harbour" rule"; "costs; benefits"'
    )
    assert render(q, "natural") == (
        'Find the document that discusses "Grievance and Redress", '
        '"the "safe harbour" rule", and "costs; benefits".'
    )
    assert missing_conditions(render(q, "clean_v2"), q) == []
    assert missing_conditions(render(q, "natural"), q) == []


def test_containment_uses_the_project_normalisation() -> None:
    q = _q("q", "Safe-Harbour Rule", "COVID-19")
    # Case, a typographic dash and curly quotes do not break containment; a missing word does.
    assert missing_conditions("the safe\u2013harbour rule and covid\u201019", q) == []
    assert missing_conditions("the safe harbour rule, COVID-19", q) == ["q_c1"]


def test_check_counts_and_lists_failures() -> None:
    qs = [_q("a", "x y", text="about x y"), _q("b", "x y", "z", text="only z")]
    rep = check_forms(qs, ["raw", "clean_v2"])
    raw, clean = rep.checks
    assert (raw.queries, raw.contained) == (2, 1)
    assert [f.to_json() for f in raw.failures] == [{"query_id": "b", "missing": ["b_c1"]}]
    assert clean.ok and clean.contained == 2
    assert rep.to_json()["ok"] is False


def _write_queries(path: Path, queries: list[dict]) -> Path:
    path.write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    return path


def _qjson(qid: str, text: str, *names: str) -> dict:
    return {
        "query_id": qid,
        "text": text,
        "source": "s1",
        "custom": 7,
        "conditions": [
            {"condition_id": f"{qid}_c{i}", "name": n, "requirement": "r"}
            for i, n in enumerate(names, start=1)
        ],
    }


def test_render_cli_keeps_ids_conditions_and_fields(tmp_path: Path) -> None:
    src = _write_queries(
        tmp_path / "q.jsonl",
        [_qjson("q1", "a and b", "a", "b"), _qjson("q2", "c; d; e", "c", "d", "e")],
    )
    out = tmp_path / "natural.jsonl"
    rep = json.loads(
        run_cli(
            "queries", "render", "--queries", src, "--form", "natural", "--out", out, "--json"
        ).stdout
    )
    assert rep == {"form": "natural", "queries": 2, "out": str(out), "contained": 2, "failures": []}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["text"] for r in rows] == [
        'Find the document that discusses "a" and "b".',
        'Find the document that discusses "c", "d", and "e".',
    ]
    assert all(r["form"] == "natural" and r["custom"] == 7 for r in rows)
    before, after = read_queries(src), read_queries(out)
    assert [q.conditions for q in before] == [q.conditions for q in after]


def test_check_cli_exit_codes_and_files(tmp_path: Path) -> None:
    src = _write_queries(tmp_path / "q.jsonl", [_qjson("q1", "about a only", "a", "b")])
    res = run_cli("queries", "check", "--queries", src, "--json", expect=1)
    rep = json.loads(res.stdout)
    assert [(f["form"], f["contained"]) for f in rep["forms"]] == [
        ("raw", 0), ("clean_v2", 1), ("natural", 1),
    ]  # fmt: skip
    assert rep["forms"][0]["failures"] == [{"query_id": "q1", "missing": ["q1_c2"]}]
    res = run_cli("queries", "check", "--queries", src, "--form", "natural")
    assert "natural" in res.stdout and "raw" not in res.stdout
    para = _write_queries(tmp_path / "p.jsonl", [_qjson("q1", "a and b here", "a", "b")])
    rep = json.loads(
        run_cli("queries", "check", "--queries", src, "--file", f"para={para}", "--json").stdout
    )
    assert [f["form"] for f in rep["forms"]] == ["para"] and rep["ok"]
    wrong = _write_queries(tmp_path / "w.jsonl", [_qjson("q1", "a", "a")])
    res = run_cli("queries", "check", "--queries", src, "--file", f"w={wrong}", expect=2)
    assert "q1" in res.stderr and "conditions" in res.stderr and not res.stdout


def test_a_name_inside_a_longer_word_is_not_contained() -> None:
    q = _q("q", "b", "cat", "C++")
    assert missing_conditions("about concatenate", q) == ["q_c1", "q_c2", "q_c3"]
    assert missing_conditions("b, cat and c++ code", q) == []
