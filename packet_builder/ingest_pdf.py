"""PDF extraction for `ingest --pdf-dir`: the files of a folder, their text by PyMuPDF in
a process pool (one task per file, largest first), OCR of pages without a text layer
(packet_builder.ocr), and why a file is skipped or was repaired.

Unchanged files (same SHA-256) are not read again; unreadable, encrypted, empty or (without
OCR) text-less PDFs are skipped with the reason, and a PDF that PyMuPDF could open only by
repairing it is kept with a warning.
"""

from __future__ import annotations

import hashlib
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from packet_builder.corpus_pages import DocPages
from packet_builder.ingest_report import IngestReport, OcrConfig, OcrSummary
from packet_builder.ocr import MODES, check_languages, ocr_pdf_page, tesseract_version
from vocabulary.errors import InputError
from vocabulary.progress import Progress

_DOC_ID = re.compile(r"^[^\s/\\]+$")
NO_TEXT_LAYER = (
    "no text layer (ingest with --ocr auto or always; or run OCR elsewhere and ingest with "
    "--ocr-dir)"
)


# path, sha, page texts, skip reason, repair warning, OCR record per page (None: text layer)
_Extracted = tuple[
    str, str, list[str] | None, str | None, str | None, list[dict[str, Any] | None] | None
]


def _first_warning(pymupdf: Any) -> str:
    """MuPDF's first warning since the last reset (why it repaired), on one line."""
    lines = [ln for ln in str(pymupdf.TOOLS.mupdf_warnings(reset=True)).splitlines() if ln]
    return lines[0] if lines else "damaged cross-reference table"


def _extract_pdf(task: tuple[str, str | None, OcrConfig | None]) -> _Extracted:
    """Worker: (path, known sha, OCR) -> (path, sha, page texts, skip reason, repair
    warning, OCR records). With OCR `auto`, pages without text are read by Tesseract;
    with `always`, every page is.

    Texts are None when the file is unchanged or skipped. A file MuPDF opened only by
    repairing it (a truncated file, a broken xref) keeps its texts and gets a warning; if
    the repair recovered no page or no text it "cannot be read", never "empty" or "no
    text layer" (OCR would not help a damaged file)."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    path_str, known, ocr = task
    # Read once: the same bytes are hashed and parsed.
    data = Path(path_str).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    if sha == known:
        return path_str, sha, None, None, None, None
    if not data:
        return path_str, sha, None, "empty file (0 bytes)", None, None
    pymupdf.TOOLS.mupdf_warnings(reset=True)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises several types for broken files
        return (
            path_str,
            sha,
            None,
            f"cannot be read: not a PDF or damaged beyond repair ({exc})",
            None,
            None,
        )
    try:
        if doc.needs_pass:
            return path_str, sha, None, "encrypted PDF (needs a password)", None, None
        repaired = bool(doc.is_repaired)
        why = _first_warning(pymupdf) if repaired else ""
        if doc.page_count == 0:
            if repaired:
                return (
                    path_str,
                    sha,
                    None,
                    f"cannot be read: repair found no pages ({why})",
                    None,
                    None,
                )
            return path_str, sha, None, "empty PDF (no pages)", None, None
        try:
            texts = [doc[i].get_text() for i in range(doc.page_count)]
        except Exception as exc:
            return path_str, sha, None, f"cannot be read: a page fails to parse ({exc})", None, None
        ocr_pages: list[dict[str, Any] | None] = [None] * len(texts)
        if ocr is not None and not repaired:
            for i, t in enumerate(texts):
                if ocr.mode == "always" or not t.strip():
                    got = ocr_pdf_page(doc[i], lang=ocr.lang, dpi=ocr.dpi, version=ocr.version)
                    texts[i] = got.text
                    ocr_pages[i] = got.to_json()
    finally:
        doc.close()
    blank = [i for i, t in enumerate(texts, start=1) if not t.strip()]
    if len(blank) == len(texts):
        if repaired:
            return (
                path_str,
                sha,
                None,
                f"cannot be read: repair recovered no text ({why})",
                None,
                None,
            )
        if ocr is None:
            return path_str, sha, None, NO_TEXT_LAYER, None, None
        # OCR read every page and found no word (a logo, a diagram): the document is kept
        # with empty pages, and its confidence of 0 lists each page in the report.
    warning = None
    if repaired:
        warning = f"repaired by PyMuPDF ({why}); {len(texts)} pages kept"
        if blank:
            warning += f", pages without text: {', '.join(map(str, blank))}"
    return path_str, sha, texts, None, warning, ocr_pages if any(ocr_pages) else None


def check_doc_id(doc_id: str, where: Path) -> None:
    if not _DOC_ID.match(doc_id):
        raise InputError(f"unusable document id {doc_id!r}", file=where, hint="rename the file")


def _pdfs_in(folder: Path, recursive: bool) -> list[Path]:
    """The .pdf files of a folder (and its subfolders, hidden ones excepted), sorted."""
    found = folder.rglob("*") if recursive else folder.iterdir()
    return sorted(
        p
        for p in found
        if p.suffix.lower() == ".pdf"
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def find_pdfs(pdf_dir: Path, recursive: bool = True) -> dict[str, Path]:
    """doc_id (the file stem) -> file of every PDF `ingest --pdf-dir` reads; subfolders
    are searched unless `recursive` is off. Two files with one stem are an error."""
    if not pdf_dir.is_dir():
        raise InputError("PDF folder not found", file=pdf_dir)
    files = _pdfs_in(pdf_dir, recursive)
    if not files:
        deeper = [] if recursive else _pdfs_in(pdf_dir, True)
        if deeper:
            raise InputError(
                f"no .pdf files in folder ({len(deeper)} in its subfolders)",
                file=pdf_dir,
                hint="drop --no-recursive to ingest them",
            )
        where = "folder or its subfolders" if recursive else "folder"
        raise InputError(f"no .pdf files in {where}", file=pdf_dir)
    seen: dict[str, Path] = {}
    for f in files:
        check_doc_id(f.stem, f)
        if f.stem in seen:
            raise InputError(
                f"two files share the document id {f.stem!r} (also {seen[f.stem]})",
                file=f,
                hint="rename one: the document id is the file name without .pdf",
            )
        seen[f.stem] = f
    return seen


def collect_pdfs(
    pdf_dir: Path,
    known: dict[str, str],
    workers: int,
    progress: Progress,
    report: IngestReport,
    recursive: bool = True,
    ocr: OcrConfig | None = None,
) -> list[DocPages]:
    """The readable PDFs of a folder and, with `recursive`, its subfolders; fills
    `report`'s skipped, repaired and unchanged."""
    files = sorted(find_pdfs(pdf_dir, recursive).values())
    # Largest first so the pool does not end waiting on one big file.
    order = sorted(files, key=lambda p: -p.stat().st_size)
    tasks = [(str(f), known.get(f.stem), ocr) for f in order]
    results: list[_Extracted] = []
    if workers <= 1:
        for t in progress(tasks, desc="extract"):
            results.append(_extract_pdf(t))
    else:
        import pymupdf  # noqa: F401  (imported before the fork so workers inherit it)

        with ProcessPoolExecutor(max_workers=workers) as pool:
            it = pool.map(_extract_pdf, tasks, chunksize=1)
            results.extend(progress(it, total=len(tasks), desc="extract"))
    docs: list[DocPages] = []
    for path_str, sha, texts, reason, warning, ocr_pages in sorted(results, key=lambda r: r[0]):
        path = Path(path_str)
        if reason is not None:
            report.skipped.append({"file": str(path), "reason": reason})
        elif texts is None:
            report.unchanged += 1
        else:
            docs.append(DocPages(path.stem, str(path.resolve()), "pdf", sha, texts, ocr=ocr_pages))
            if warning is not None:
                report.repaired.append({"file": str(path), "warning": warning})
            if ocr_pages is not None and report.ocr is not None:
                _count_ocr(report.ocr, path, ocr_pages)
    return docs


def _count_ocr(summary: OcrSummary, path: Path, pages: list[dict[str, Any] | None]) -> None:
    summary.documents += 1
    for number, rec in enumerate(pages, start=1):
        if rec is None:
            continue
        summary.pages += 1
        if rec["confidence"] < summary.min_confidence:
            summary.low_confidence.append(
                {"file": str(path), "page": number, "confidence": rec["confidence"]}
            )


def ocr_config(mode: str, lang: str, dpi: int) -> OcrConfig | None:
    """The OCR settings of a PDF ingest, or None for `never`. `always` needs Tesseract;
    `auto` without it keeps today's behaviour (text-less PDFs skipped, saying why)."""
    if mode not in MODES:
        raise InputError(f"unknown OCR mode {mode!r}", hint="use auto, always or never")
    if mode == "never":
        return None
    try:
        version = tesseract_version()
    except InputError:
        if mode == "always":
            raise
        return None
    check_languages(lang)
    return OcrConfig(mode, lang, dpi, version)
