"""Corpus ingest: real PDFs (incl. corrupt, encrypted, empty), OCR folders, pages.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pymupdf
import pytest

from tests.conftest import SAMPLE, cli_json, make_pdf, run_cli


def _pages(root: Path) -> list[tuple[str, int, str, int]]:
    con = duckdb.connect(str(root / "audit.duckdb"), read_only=True)
    try:
        return con.execute("SELECT doc_id, page, text, n_chars FROM pages ORDER BY 1, 2").fetchall()
    finally:
        con.close()


@pytest.fixture
def pdf_dir(tmp_path: Path) -> Path:
    d = tmp_path / "pdfs"
    make_pdf(d / "alpha.pdf", ["Alpha first page about tables.", "Alpha second page on figures."])
    make_pdf(d / "beta.pdf", ["Beta single page with a bibliography."])
    return d


def _add_bad_pdfs(d: Path) -> None:
    enc = pymupdf.open()
    enc.new_page().insert_text((72, 72), "locked text")
    enc.save(d / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    (d / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf body\n")
    (d / "zero.pdf").write_bytes(b"")


def test_ingest_pdfs_skips_bad_files_with_reasons(project: Path, pdf_dir: Path) -> None:
    _add_bad_pdfs(pdf_dir)
    out = cli_json("ingest", project, "--pdf-dir", pdf_dir, "--workers", "2")
    assert out["documents"] == 2
    assert out["pages"] == 3
    assert out["unchanged"] == 0
    reasons = {Path(s["file"]).name: s["reason"] for s in out["skipped"]}
    assert set(reasons) == {"locked.pdf", "broken.pdf", "zero.pdf"}
    assert reasons["locked.pdf"].startswith("encrypted")
    assert reasons["broken.pdf"].startswith("corrupt")
    assert reasons["zero.pdf"] == "empty file"
    rows = _pages(project)
    assert [(r[0], r[1]) for r in rows] == [("alpha", 1), ("alpha", 2), ("beta", 1)]
    assert "second page on figures" in rows[1][2]
    assert all(r[3] == len(r[2]) for r in rows)
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    sha = con.execute("SELECT sha256 FROM documents WHERE doc_id = 'alpha'").fetchone()[0]
    con.close()
    import hashlib

    assert sha == hashlib.sha256((pdf_dir / "alpha.pdf").read_bytes()).hexdigest()


def test_reingest_is_noop_and_changed_file_replaces_pages(project: Path, pdf_dir: Path) -> None:
    cli_json("ingest", project, "--pdf-dir", pdf_dir, "--workers", "1")
    before = _pages(project)
    again = cli_json("ingest", project, "--pdf-dir", pdf_dir)
    assert again == {"documents": 0, "pages": 0, "skipped": [], "unchanged": 2}
    assert _pages(project) == before
    make_pdf(pdf_dir / "alpha.pdf", ["Alpha rewritten as one page only."])
    changed = cli_json("ingest", project, "--pdf-dir", pdf_dir)
    assert (changed["documents"], changed["pages"], changed["unchanged"]) == (1, 1, 1)
    rows = _pages(project)
    assert [(r[0], r[1]) for r in rows] == [("alpha", 1), ("beta", 1)]
    assert "rewritten" in rows[0][2]


def test_ingest_ocr_folder_and_pages_jsonl(project: Path, tmp_path: Path) -> None:
    ocr = tmp_path / "ocr" / "scan1"
    ocr.mkdir(parents=True)
    (ocr / "page_2.json").write_text(json.dumps({"page_idx": 1, "text": "second OCR page"}))
    (ocr / "page_1.json").write_text(
        json.dumps({"page_idx": 0, "blocks": [{"text": "first"}, {"text": "OCR page"}]})
    )
    out = cli_json("ingest", project, "--ocr-dir", tmp_path / "ocr")
    assert (out["documents"], out["pages"]) == (1, 2)
    pages = tmp_path / "pages.jsonl"
    pages.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {"doc_id": "plain", "page": 2, "text": "b"},
                {"doc_id": "plain", "page": 1, "text": "a"},
            ]
        )
        + "\n"
    )
    out = cli_json("ingest", project, "--pages", pages)
    assert (out["documents"], out["pages"]) == (1, 2)
    rows = _pages(project)
    assert rows[0][:3] == ("plain", 1, "a")
    assert rows[2][:3] == ("scan1", 1, "first\nOCR page")
    assert cli_json("ingest", project, "--pages", pages)["unchanged"] == 1


def test_bad_pages_jsonl_names_line_and_writes_nothing(project: Path, tmp_path: Path) -> None:
    pages = tmp_path / "pages.jsonl"
    pages.write_text(
        '{"doc_id": "d", "page": 1, "text": "ok"}\n{"doc_id": "d", "page": 0, "text": "x"}\n'
    )
    res = run_cli("ingest", project, "--pages", pages, expect=2)
    assert f"{pages}:2:" in res.stderr and "1-based" in res.stderr
    assert _pages(project) == []


def test_ingest_needs_exactly_one_source(project: Path) -> None:
    res = run_cli("ingest", project, expect=2)
    assert "exactly one of" in res.stderr


def test_not_a_project(tmp_path: Path) -> None:
    res = run_cli("status", tmp_path, expect=2)
    assert "not an evaudit project" in res.stderr and "evaudit init" in res.stderr


def test_newer_schema_is_refused(project: Path) -> None:
    meta = json.loads((project / "project.json").read_text())
    meta["schema_version"] = 99
    (project / "project.json").write_text(json.dumps(meta))
    res = run_cli("status", project, expect=2)
    assert "newer than this evaudit supports" in res.stderr


def test_newer_store_schema_is_refused(project: Path) -> None:
    con = duckdb.connect(str(project / "audit.duckdb"))
    con.execute("UPDATE meta SET value = '42' WHERE key = 'schema_version'")
    con.close()
    res = run_cli("status", project, expect=2)
    assert "store schema 42 is newer" in res.stderr


def test_init_refuses_existing_project(project: Path) -> None:
    res = run_cli("init", project, expect=2)
    assert "already exists" in res.stderr


@pytest.mark.skipif(not (SAMPLE / "pdfs").is_dir(), reason="sample PDFs not built yet")
def test_ingest_sample_pdfs(project: Path) -> None:
    out = cli_json("ingest", project, "--pdf-dir", SAMPLE / "pdfs")
    n_pdfs = len(list((SAMPLE / "pdfs").glob("*.pdf")))
    assert out["documents"] == n_pdfs and out["skipped"] == []
    assert out["pages"] > n_pdfs
