"""A malformed JSON input names its column: the decoder's own message alone can end
mid-sentence ("Invalid control character at"), which is what every reader printed."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli

RAW_TAB = '{"doc_id": "a", "page": 1, "text": "a\tb"}\n'


def test_pages_jsonl_error_names_the_column(project: Path, tmp_path: Path) -> None:
    pages = tmp_path / "pages.jsonl"
    pages.write_text(RAW_TAB)
    err = run_cli("ingest", project, "--pages", pages, expect=2).stderr
    assert "Invalid control character at column 38)" in err, err


def test_queries_error_names_the_column(project: Path, tmp_path: Path) -> None:
    q = tmp_path / "queries.jsonl"
    q.write_text('{"query_id": "q1", "text": "x\ty"}\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    pages = tmp_path / "pages.jsonl"
    pages.write_text('{"doc_id": "d1", "page": 1, "text": "some words here"}\n')
    run_cli("ingest", project, "--pages", pages)
    err = run_cli("load", project, "--queries", q, "--qrels", qrels, expect=2).stderr
    assert "Invalid control character at column" in err and not err.rstrip().endswith("at)"), err


def test_manifest_error_names_the_column(project: Path, tmp_path: Path) -> None:
    m = tmp_path / "m.jsonl"
    m.write_text(json.dumps({"doc_id": "a"})[:-1] + ', "url": "x\ty"}\n')
    err = run_cli("fetch", project, "--manifest", m, expect=2).stderr
    assert "Invalid control character at column" in err, err
