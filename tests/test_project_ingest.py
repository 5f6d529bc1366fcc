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
    assert reasons["broken.pdf"].startswith("cannot be read: not a PDF or damaged")
    assert reasons["zero.pdf"] == "empty file (0 bytes)"
    assert out["repaired"] == []
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
    assert again == {
        "documents": 0, "pages": 0, "skipped": [], "repaired": [], "unchanged": 2,
        "extraction": {},
    }  # fmt: skip
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


def _damaged_pdfs(d: Path) -> tuple[Path, Path, Path]:
    """Three real damaged PDFs: truncated before its xref (PyMuPDF repairs it, all text
    kept), cut inside page 2 (repaired, pages 2-3 lose their text), and cut after 300
    bytes (no page object left: PyMuPDF cannot open it)."""
    pages = [f"Page {i} of the damaged report on rural districts." for i in (1, 2, 3)]
    whole = make_pdf(d / "whole.pdf", pages).read_bytes()
    whole_path = d / "whole.pdf"
    whole_path.unlink()
    no_xref = d / "noxref.pdf"
    no_xref.write_bytes(whole[: whole.rfind(b"xref")])
    half = d / "half.pdf"
    half.write_bytes(whole[:900])  # page 1's content stream ends before byte 900
    stub = d / "stub.pdf"
    stub.write_bytes(whole[:300])
    return no_xref, half, stub


def test_repaired_pdf_is_kept_with_a_warning_unreadable_one_is_named(
    project: Path, tmp_path: Path
) -> None:
    d = tmp_path / "damaged"
    make_pdf(d / "good.pdf", ["A good page about household income growth."])
    no_xref, half, stub = _damaged_pdfs(d)
    assert half.stat().st_size == 900
    for path in (no_xref, stub):  # the premise: PyMuPDF repairs one, cannot open the other
        try:
            doc = pymupdf.open(path)
        except pymupdf.FileDataError:
            assert path == stub
        else:
            assert path == no_xref and doc.is_repaired
    out = cli_json("ingest", project, "--pdf-dir", d, "--workers", "1")
    repaired = {Path(r["file"]).name: r["warning"] for r in out["repaired"]}
    skipped = {Path(s["file"]).name: s["reason"] for s in out["skipped"]}
    assert set(skipped) == {"stub.pdf"}
    assert skipped["stub.pdf"].startswith("cannot be read")
    assert "empty" not in skipped["stub.pdf"]
    assert repaired["noxref.pdf"].startswith("repaired by PyMuPDF (")
    assert repaired["noxref.pdf"].endswith("; 3 pages kept")
    assert repaired["half.pdf"].endswith("3 pages kept, pages without text: 2, 3")
    docs = {r[0] for r in _pages(project)}
    assert {"good", "noxref"} <= docs and "stub" not in docs
    text = " ".join(r[2] for r in _pages(project) if r[0] == "noxref")
    assert "Page 3 of the damaged report" in text
    # The text summary names every skipped and repaired file.
    again = tmp_path / "proj2"
    run_cli("init", again, "--admin-password", "pw-for-tests")
    res = run_cli("ingest", again, "--pdf-dir", d, "--workers", "1")
    assert f"skipped {stub}: cannot be read" in res.stdout
    assert f"warning: {no_xref}: repaired by PyMuPDF" in res.stdout
    assert f"warning: {half}: repaired by PyMuPDF" in res.stdout
    assert f"{len(repaired)} repaired" in res.stdout.splitlines()[0]


def test_strict_refuses_skipped_or_repaired_files_and_writes_nothing(
    project: Path, tmp_path: Path
) -> None:
    d = tmp_path / "damaged"
    make_pdf(d / "good.pdf", ["A good page about household income growth."])
    no_xref, _half, stub = _damaged_pdfs(d)
    res = run_cli("ingest", project, "--pdf-dir", d, "--strict", "--json", expect=2)
    # under --json the failure is one JSON object too, each problem listed
    answer = json.loads(res.stdout)
    assert len(answer["problems"]) == 3 and answer["error"].startswith(f"{stub}: skipped")
    errors = res.stderr.splitlines()
    assert any(e.startswith(f"error: {stub}: skipped: cannot be read") for e in errors)
    assert any(e.startswith(f"error: {no_xref}: repaired by PyMuPDF") for e in errors)
    assert all("without --strict" in e for e in errors)
    assert _pages(project) == []  # not even the good file
    # Only good files: --strict passes and writes them.
    stub.unlink()
    _half.unlink()
    no_xref.unlink()
    out = cli_json("ingest", project, "--pdf-dir", d, "--strict")
    assert (out["documents"], out["skipped"], out["repaired"]) == (1, [], [])


def test_init_refuses_a_short_chosen_password(tmp_path: Path, monkeypatch) -> None:
    res = run_cli("init", tmp_path / "p1", "--admin-password", "elevenchars", expect=2)
    assert "11 characters, fewer than 12" in res.stderr
    assert "--admin-password" in res.stderr and not (tmp_path / "p1").exists()
    monkeypatch.setenv("EVAUDIT_ADMIN_PASSWORD", "short")
    res = run_cli("init", tmp_path / "p2", expect=2)
    assert "5 characters" in res.stderr and not (tmp_path / "p2").exists()
    monkeypatch.delenv("EVAUDIT_ADMIN_PASSWORD")
    out = cli_json("init", tmp_path / "p3")  # generated: accepted, and long enough
    assert len(out["admin_password"]) >= 12
    assert (
        cli_json("init", tmp_path / "p4", "--admin-password", "twelve-chars")["admin_password"]
        is None
    )


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
