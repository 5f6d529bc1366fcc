"""`ingest --ocr`: PDF pages without a text layer read by Tesseract, as a team with a
partly scanned corpus runs it. The scanned pages are made here: text drawn by PyMuPDF,
rendered to an image, and the image alone saved as the page (no text layer)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pymupdf
import pytest

from tests.conftest import cli_json, run_cli

LINES = ["Retrieval benchmarks need complete judgments.", "Scanned pages come back as words."]


def _text_page(doc: pymupdf.Document, lines: list[str]) -> None:
    page = doc.new_page()
    for i, line in enumerate(lines):
        page.insert_text((60, 100 + 40 * i), line, fontsize=20)


def _scanned_page(doc: pymupdf.Document, lines: list[str]) -> None:
    src = pymupdf.open()
    _text_page(src, lines)
    pix = src[0].get_pixmap(dpi=200)
    page = doc.new_page()
    page.insert_image(page.rect, pixmap=pix)


def _pdf(path: Path, kinds: list[str]) -> Path:
    doc = pymupdf.open()
    for k in kinds:
        (_scanned_page if k == "scan" else _text_page)(doc, LINES)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    return path


def _rows(project: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture
def pdfs(tmp_path: Path) -> Path:
    d = tmp_path / "pdfs"
    scan = _pdf(d / "scan.pdf", ["scan"])
    assert not pymupdf.open(scan)[0].get_text().strip()  # truly no text layer
    _pdf(d / "mixed.pdf", ["text", "scan"])
    return d


def _words(text: str) -> list[str]:
    return [w.strip(".").lower() for w in text.split()]


def test_auto_reads_scanned_pages_and_keeps_text_layers(project: Path, pdfs: Path) -> None:
    rep = cli_json("ingest", project, "--pdf-dir", pdfs, "--source", "scans", "--ocr-dpi", "200")
    assert rep["skipped"] == []
    assert rep["ocr"]["pages"] == 2 and rep["ocr"]["documents"] == 2
    assert rep["ocr"]["engine"] == "tesseract" and rep["ocr"]["lang"] == "eng"
    pages = dict(((d, p), t) for d, p, t in _rows(project, "SELECT doc_id, page, text FROM pages"))
    want = _words(" ".join(LINES))
    assert _words(pages[("scan", 1)]) == want
    assert _words(pages[("mixed", 2)]) == want
    # The text-layer page is exactly PyMuPDF's text, not OCR.
    assert pages[("mixed", 1)] == pymupdf.open(pdfs / "mixed.pdf")[0].get_text()
    ocr = _rows(project, "SELECT doc_id, page, engine, version, lang, confidence, words "
                "FROM page_ocr ORDER BY doc_id, page")  # fmt: skip
    assert [(d, p, e, lang) for d, p, e, _v, lang, _c, _w in ocr] == [
        ("mixed", 2, "tesseract", "eng"), ("scan", 1, "tesseract", "eng")]  # fmt: skip
    assert all(c > 80 and w == len(want) and v == rep["ocr"]["version"] for *_, v, _l, c, w in ocr)
    gate = cli_json("gate", project)
    assert gate["sources"][0]["ocr_pages"] == 2 and gate["sources"][0]["pages_extracted"] == 3
    text = run_cli("gate", project).stdout
    assert "of them OCR" in text


def test_an_image_without_words_is_kept_and_listed(project: Path, tmp_path: Path) -> None:
    """A logo or diagram (an image page OCR reads no word on) is a document with an empty
    page, listed with confidence 0, not a skipped PDF."""
    doc = pymupdf.open()
    src = pymupdf.open()
    page = src.new_page()
    page.draw_rect(pymupdf.Rect(100, 100, 300, 200), color=(0, 0, 0), fill=(0.2, 0.2, 0.2))
    out = doc.new_page()
    out.insert_image(out.rect, pixmap=page.get_pixmap(dpi=100))
    (tmp_path / "logo").mkdir()
    doc.save(tmp_path / "logo" / "logo.pdf")
    rep = cli_json("ingest", project, "--pdf-dir", tmp_path / "logo", "--ocr-dpi", "150")
    assert rep["skipped"] == [] and rep["documents"] == 1
    assert rep["ocr"]["low_confidence"] == [
        {"file": str(tmp_path / "logo" / "logo.pdf"), "page": 1, "confidence": 0.0}
    ]
    assert _rows(project, "SELECT text FROM pages WHERE doc_id = 'logo'") == [("",)]
    assert _rows(project, "SELECT words, confidence FROM page_ocr") == [(0, 0.0)]


def test_never_skips_and_names_the_fix(project: Path, pdfs: Path) -> None:
    rep = cli_json("ingest", project, "--pdf-dir", pdfs, "--ocr", "never")
    skipped = {Path(s["file"]).name: s["reason"] for s in rep["skipped"]}
    assert set(skipped) == {"scan.pdf"} and "--ocr auto" in skipped["scan.pdf"]
    assert "ocr" not in rep
    assert _rows(project, "SELECT text FROM pages WHERE doc_id = 'mixed' AND page = 2") == [("",)]


def test_low_confidence_is_listed_and_refused_with_strict(project: Path, pdfs: Path) -> None:
    res = run_cli("ingest", project, "--pdf-dir", pdfs, "--ocr-dpi", "200",
                  "--ocr-min-confidence", "99.99", "--strict", expect=2)  # fmt: skip
    assert "OCR confidence" in res.stderr and "below 99.99" in res.stderr
    assert _rows(project, "SELECT count(*) FROM pages") == [(0,)]  # nothing written
    rep = cli_json("ingest", project, "--pdf-dir", pdfs, "--ocr-dpi", "200",
                   "--ocr-min-confidence", "99.99")  # fmt: skip
    low = {(Path(x["file"]).name, x["page"]) for x in rep["ocr"]["low_confidence"]}
    assert low == {("scan.pdf", 1), ("mixed.pdf", 2)}
    # Unchanged files whose pages OCR already read are not read again.
    again = cli_json("ingest", project, "--pdf-dir", pdfs, "--ocr-dpi", "200")
    assert again["unchanged"] == 2 and "ocr" not in again
    # `always` reads the text-layer page too, so mixed.pdf is read again.
    text = run_cli("ingest", project, "--pdf-dir", pdfs, "--ocr", "always", "--ocr-dpi",
                   "200", "--ocr-min-confidence", "99.99").stdout  # fmt: skip
    assert "OCR (tesseract" in text and "low OCR confidence:" in text
    assert "1 unchanged" in text


def test_turning_ocr_on_reads_pages_left_blank(project: Path, pdfs: Path) -> None:
    cli_json("ingest", project, "--pdf-dir", pdfs, "--ocr", "never")
    rep = cli_json("ingest", project, "--pdf-dir", pdfs, "--ocr-dpi", "200")
    assert rep["unchanged"] == 0 and rep["ocr"]["pages"] == 2
    rows = _rows(project, "SELECT text FROM pages WHERE doc_id = 'mixed' AND page = 2")
    assert _words(rows[0][0]) == _words(" ".join(LINES))


def test_always_reads_every_page(project: Path, pdfs: Path) -> None:
    rep = cli_json("ingest", project, "--pdf-dir", pdfs, "--ocr", "always", "--ocr-dpi", "200")
    assert rep["ocr"]["pages"] == 3


def test_unknown_language_is_one_line(project: Path, pdfs: Path) -> None:
    res = run_cli("ingest", project, "--pdf-dir", pdfs, "--ocr-lang", "xxx", expect=2)
    assert "Tesseract has no language data for xxx" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_parse_tsv_keeps_lines_and_weights_confidence() -> None:
    from packet_builder.ocr import parse_tsv

    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tone", "5\t1\t1\t1\t1\t2\t0\t0\t1\t1\t30\tab",
        "4\t1\t1\t1\t2\t0\t0\t0\t1\t1\t-1\t", "5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t60\tthree",
        "5\t1\t2\t1\t1\t1\t0\t0\t1\t1\t-1\t ", "5\t1\t2\t1\t1\t2\t0\t0\t1\t1\t50\tfour",
    ]  # fmt: skip
    text, conf, words = parse_tsv("\n".join([head, *rows]))
    assert text == "one ab\nthree\n\nfour"
    assert words == 4
    assert conf == pytest.approx((90 * 3 + 30 * 2 + 60 * 5 + 50 * 4) / 14)
    assert json.dumps(parse_tsv(head)) == json.dumps(["", 0.0, 0])
