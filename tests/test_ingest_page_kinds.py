"""`ingest --pdf-dir` searches subfolders (`--no-recursive` stops it), answers JSON under
--json even when it fails, and ingest, gate and status name the same page kinds."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tests.conftest import cli_json, make_pdf, run_cli


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    run_cli("init", root, "--admin-password", "pw-for-tests")
    return root


def _pdfs(root: Path) -> Path:
    make_pdf(root / "a" / "x.pdf", ["one", "", "three"])  # one page without text
    make_pdf(root / "b" / "deeper" / "scan.pdf", ["", ""])  # no text layer: skipped (--ocr never)
    make_pdf(root / "top.pdf", ["top page"])
    make_pdf(root / ".cache" / "hidden.pdf", ["never read"])  # hidden folders are skipped
    return root


def _stored(project: Path) -> list[tuple[str, int]]:
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        return con.execute("SELECT doc_id, count(*) FROM pages GROUP BY 1 ORDER BY 1").fetchall()
    finally:
        con.close()


KINDS = {
    "documents": 2,
    "documents_skipped": 1,
    "pages_expected": 3 + 2 + 1,  # the three PDFs' page counts
    "pages_stored": 3 + 1,
    "pages_extracted": 2 + 1,
    "pages_empty": 1,
    "pages_skipped": 2,
    "pages_missing": 0,
    "rate": 3 / 6,
}


def test_subfolders_and_one_page_story(project: Path, tmp_path: Path) -> None:
    pdfs = _pdfs(tmp_path / "pdfs")
    rep = cli_json("ingest", project, "--pdf-dir", pdfs, "--source", "wb", "--workers", "1",
                   "--ocr", "never")  # fmt: skip
    assert rep["documents"] == 2 and rep["pages"] == 4
    assert [Path(s["file"]).name for s in rep["skipped"]] == ["scan.pdf"]
    assert rep["extraction"] == {"wb": KINDS}
    assert _stored(project) == [("top", 1), ("x", 3)]
    gate = cli_json("gate", project)
    assert gate["sources"] == [{"source": "wb", **KINDS, "ocr_pages": 0, "passed": False}]
    assert gate["overall"] == KINDS
    status = cli_json("status", project)
    assert status["pages"] == KINDS["pages_stored"]
    assert {k: status[k] for k in ("pages_expected", "pages_extracted")} == {
        "pages_expected": 6,
        "pages_extracted": 3,
    }
    assert (status["pages_empty"], status["pages_skipped"]) == (1, 2)
    text = run_cli("ingest", project, "--pdf-dir", pdfs, "--source", "wb", "--ocr", "never").stdout
    assert "0 documents (0 pages stored); 2 unchanged; 1 skipped" in text
    table = run_cli("gate", project).stdout
    assert "pages in files" in table and "in skipped files" in table


def test_no_recursive_and_json_errors(project: Path, tmp_path: Path) -> None:
    pdfs = _pdfs(tmp_path / "pdfs")
    top = cli_json("ingest", project, "--pdf-dir", pdfs, "--no-recursive")
    assert top["documents"] == 1 and _stored(project) == [("top", 1)]
    only_sub = tmp_path / "only-sub"
    make_pdf(only_sub / "inner" / "y.pdf", ["y"])
    res = run_cli("ingest", project, "--pdf-dir", only_sub, "--no-recursive", "--json", expect=2)
    answer = json.loads(res.stdout)  # one JSON object under --json, also on failure
    assert "no .pdf files in folder (1 in its subfolders)" in answer["error"]
    assert answer["problems"][0]["hint"] == "drop --no-recursive to ingest them"
    assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error: ")
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run_cli("ingest", project, "--pdf-dir", empty, "--json", expect=2)
    assert json.loads(res.stdout)["problems"][0]["message"] == (
        "no .pdf files in folder or its subfolders"
    )
    make_pdf(tmp_path / "dup" / "a" / "same.pdf", ["one"])
    make_pdf(tmp_path / "dup" / "b" / "same.pdf", ["two"])
    res = run_cli("ingest", project, "--pdf-dir", tmp_path / "dup", expect=2)
    assert "two files share the document id 'same'" in res.stderr
    assert _stored(project) == [("top", 1)]  # nothing written by any failure


def test_missing_source_is_named_none(project: Path, tmp_path: Path) -> None:
    make_pdf(tmp_path / "pdfs" / "d.pdf", ["text"])
    cli_json("ingest", project, "--pdf-dir", tmp_path / "pdfs")
    assert cli_json("gate", project)["sources"][0]["source"] == ""
    rows = run_cli("gate", project).stdout.splitlines()
    assert rows[2].split()[0] == "(none)"
    text = run_cli("ingest", project, "--pdf-dir", tmp_path / "pdfs").stdout
    assert '""' not in text
