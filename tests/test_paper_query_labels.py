"""Table S6 of the n-Clue supplement: `evaudit queries show P QUERY` and the admin view list
one query's gold and subset documents with the evidence pages of each condition, by hand
from the sample files; untrusted condition names show literally (CLI and admin page)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import SAMPLE, run_cli

NASTY = "**calc** <b>pkg</b> $x^2$ [l](http://e.x) \x1b[31mred"


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("s6")
    lines = (SAMPLE / "queries.jsonl").read_text().splitlines()
    q = json.loads(lines[0])
    q["conditions"][0]["name"] = NASTY
    lines[0] = json.dumps(q)
    (d / "q.jsonl").write_text("\n".join(lines) + "\n")
    root = d / "proj"
    run_cli("init", root, "--admin-password", "pw-for-tests")
    run_cli("ingest", root, "--pdf-dir", SAMPLE / "pdfs", "--workers", "2")
    run_cli("load", root, "--queries", d / "q.jsonl", "--qrels", SAMPLE / "qrels.txt",
            "--evidence", SAMPLE / "evidence.jsonl")  # fmt: skip
    return root


def _by_hand(qid: str) -> tuple[list[str], dict[str, int], dict[tuple[str, str], list[int]]]:
    q = next(json.loads(x) for x in (SAMPLE / "queries.jsonl").read_text().splitlines()
             if json.loads(x)["query_id"] == qid)  # fmt: skip
    conds = [c["condition_id"] for c in q["conditions"]]
    grades = {}
    for line in (SAMPLE / "qrels.txt").read_text().splitlines():
        qq, _, d, g = line.split()
        if qq == qid and int(g) > 0:
            grades[d] = int(g)
    pages: dict[tuple[str, str], list[int]] = {}
    for line in (SAMPLE / "evidence.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e["query_id"] == qid:
            pages.setdefault((e["doc_id"], e["condition_id"]), []).extend(e["pages"])
    return conds, grades, pages


@pytest.mark.parametrize("qid", ["q001", "q002", "q017"])
def test_queries_show_json_by_hand(proj: Path, qid: str) -> None:
    js = json.loads(run_cli("queries", "show", proj, qid, "--json").stdout)
    conds, grades, pages = _by_hand(qid)
    n = len(conds)
    assert js["n"] == n and [c["condition_id"] for c in js["conditions"]] == conds
    docs = js["documents"]
    assert [d["doc_id"] for d in docs] == sorted(grades, key=lambda d: (-grades[d], d))
    for d in docs:
        g = grades[d["doc_id"]]
        assert d["grade"] == g and d["label"] == (f"Gold g={g}" if g == n else f"Subset g={g}")
        for c in conds:
            assert d["pages"][c] == sorted(set(pages.get((d["doc_id"], c), [])))


def test_queries_show_text_literal_and_errors(proj: Path, tmp_path: Path) -> None:
    out = run_cli("queries", "show", proj, "q001").stdout
    assert "\x1b" not in out  # a control character cannot reach the terminal
    assert "**calc** <b>pkg</b> $x^2$ [l](http://e.x) \\x1b[31mred" in out
    lines = out.splitlines()
    head = lines[1]
    assert head.split()[:2] == ["label", "target"] and "bug reports" in head
    empheq = next(ln for ln in lines if " empheq " in ln)
    assert empheq.startswith("Gold g=2") and "✓ p.23" in empheq and "✓ p.22" in empheq
    grf = next(ln for ln in lines if " grfguide " in ln)
    assert grf.split()[-1] == "-"  # no bug-reports page in the inventory
    bad = run_cli("queries", "show", proj, "nope", expect=2)
    assert "query 'nope' is not in the project" in bad.output
    # grades from another qrels copy
    (tmp_path / "rev.txt").write_text("q001 0 calc 2\nq001 0 empheq 1\n")
    js = json.loads(run_cli("queries", "show", proj, "q001", "--qrels", tmp_path / "rev.txt",
                            "--json").stdout)  # fmt: skip
    assert [(d["doc_id"], d["label"]) for d in js["documents"]] == [
        ("calc", "Gold g=2"), ("empheq", "Subset g=1")
    ]  # fmt: skip
    assert js["documents"][1]["note"] == "the inventory's pages give grade 2"


def _view() -> None:
    import os
    from pathlib import Path

    from audit_app.admin.query_view import query_labels_view

    query_labels_view(Path(os.environ["S6_PROJECT"]))


def test_admin_view_shows_the_same_rows_literally(
    proj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.query_labels import query_labels

    monkeypatch.setenv("S6_PROJECT", str(proj))
    at = AppTest.from_function(_view, default_timeout=60).run()
    assert not at.exception
    assert at.selectbox[0].value == "q001"
    frame = at.dataframe[0].value
    rep = query_labels(proj, "q001")
    assert frame.to_dict("records") == rep.rows()
    assert NASTY in frame.columns  # the name as a column label, never rendered
    assert NASTY in at.text[0].value
    assert all(NASTY not in m.value for m in at.markdown)  # never through Markdown
    at.selectbox[0].select("q002").run()
    assert at.dataframe[0].value.to_dict("records") == query_labels(proj, "q002").rows()
