"""Corpus ingest: PDFs (PyMuPDF), MinerU output, OCR folders, pages.jsonl, BEIR or TREC
corpora into the store, with each document's extraction record (pages extracted vs
expected, by source) for the extraction gate.

PDF text extraction runs in a process pool (one task per file, largest first);
unchanged files (same SHA-256) are skipped; a changed file replaces its pages;
unreadable, encrypted, empty or text-less PDFs are skipped with the reason, and
a PDF that PyMuPDF could open only by repairing it is kept with a warning. All
store writes happen in one transaction at the end (none with `strict` and a
skipped or repaired file).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaign import store, store_corpus
from campaign.project import Project, now_iso
from campaign.store_corpus import SKIPPED_SUFFIX
from packet_builder.corpus_manifest import ManifestReport, check_manifest
from packet_builder.corpus_pages import DocPages
from packet_builder.ingest_formats import (
    collect_beir,
    collect_mineru,
    collect_trec,
    page_count,
    summary,
)
from packet_builder.ocr import ENGINE, MODES, check_languages, ocr_pdf_page, tesseract_version
from packet_builder.source_gate import ExtractionRow, record
from vocabulary.errors import InputError, InputErrors
from vocabulary.jsonread import json_loads
from vocabulary.progress import Progress, no_progress

_DOC_ID = re.compile(r"^[^\s/\\]+$")
NO_TEXT_LAYER = "no text layer (ingest with --ocr auto or always; or run OCR elsewhere and ingest with --ocr-dir)"


@dataclass
class IngestReport:
    documents: int = 0
    pages: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)  # {"file", "reason"}
    unchanged: int = 0
    repaired: list[dict[str, str]] = field(default_factory=list)  # {"file", "warning"}, kept
    # source -> documents, pages expected/extracted and rate of what this ingest wrote
    extraction: dict[str, dict[str, Any]] = field(default_factory=dict)
    manifest: ManifestReport | None = None  # with --manifest: files that differ or are missing
    ocr: OcrSummary | None = None  # PDFs with --ocr auto|always: what Tesseract read

    def to_json(self) -> dict[str, Any]:
        extra = {"manifest": self.manifest.to_json()} if self.manifest is not None else {}
        if self.ocr is not None and self.ocr.pages:  # the key says OCR made some text
            extra["ocr"] = self.ocr.to_json()
        return extra | {
            "documents": self.documents,
            "pages": self.pages,
            "skipped": self.skipped,
            "repaired": self.repaired,
            "unchanged": self.unchanged,
            "extraction": self.extraction,
        }

    def problems(self) -> list[tuple[str, str]]:
        """(file, what) per skipped or repaired file: what `--strict` refuses."""
        low = self.ocr.low_confidence if self.ocr is not None else []
        return (
            [(s["file"], f"skipped: {s['reason']}") for s in self.skipped]
            + [(r["file"], r["warning"]) for r in self.repaired]
            + [(x["file"], f"page {x['page']}: OCR confidence {x['confidence']:.1f} is below "
                f"{self.ocr.min_confidence:g}") for x in low if self.ocr is not None]
        )  # fmt: skip


@dataclass
class OcrSummary:
    """What OCR read in this ingest; pages under `min_confidence` are kept and listed."""

    mode: str
    lang: str
    min_confidence: float
    engine: str = ENGINE
    version: str = ""
    documents: int = 0
    pages: int = 0
    low_confidence: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "engine": self.engine, "version": self.version,
                "lang": self.lang, "documents": self.documents, "pages": self.pages,
                "min_confidence": self.min_confidence,
                "low_confidence": self.low_confidence}  # fmt: skip


@dataclass(frozen=True)
class OcrConfig:
    mode: str  # auto: pages without a text layer; always: every page
    lang: str
    dpi: int
    version: str


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
        if ocr is not None:
            return path_str, sha, None, "no text layer, and OCR read no word", None, None
        return path_str, sha, None, NO_TEXT_LAYER, None, None
    warning = None
    if repaired:
        warning = f"repaired by PyMuPDF ({why}); {len(texts)} pages kept"
        if blank:
            warning += f", pages without text: {', '.join(map(str, blank))}"
    return path_str, sha, texts, None, warning, ocr_pages if any(ocr_pages) else None


def _known_hashes(project: Project) -> dict[str, str]:
    with store.connect(project.store_path, read_only=True) as con:
        return store_corpus.document_hashes(con)


def _without_ocr(project: Project, *, every_page: bool) -> set[str]:
    with store.connect(project.store_path, read_only=True) as con:
        return store_corpus.docs_without_ocr(con, every_page=every_page)


def _check_doc_id(doc_id: str, where: Path) -> None:
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
        _check_doc_id(f.stem, f)
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


def _ocr_page_text(obj: Any) -> str:
    """Text of one MinerU-style page JSON: {"text"}, {"blocks"/"content": [...]}, or a list."""
    if isinstance(obj, dict):
        if isinstance(obj.get("text"), str):
            return str(obj["text"])
        for key in ("blocks", "content", "para_blocks", "items"):
            if isinstance(obj.get(key), list):
                return _ocr_page_text(obj[key])
        return ""
    if isinstance(obj, list):
        parts = [_ocr_page_text(x) for x in obj]
        return "\n".join(p for p in parts if p)
    return obj if isinstance(obj, str) else ""


def _page_number(path: Path, obj: Any, fallback: int) -> int:
    if isinstance(obj, dict):
        if isinstance(obj.get("page"), int):
            return int(obj["page"])
        if isinstance(obj.get("page_idx"), int):
            return int(obj["page_idx"]) + 1
    digits = re.findall(r"\d+", path.stem)
    return int(digits[-1]) if digits else fallback


def collect_ocr(ocr_dir: Path, known: dict[str, str]) -> tuple[list[DocPages], int]:
    if not ocr_dir.is_dir():
        raise InputError("OCR folder not found", file=ocr_dir)
    docs: list[DocPages] = []
    unchanged = 0
    doc_dirs = sorted(p for p in ocr_dir.iterdir() if p.is_dir())
    if not doc_dirs:
        raise InputError("no document folders (expected O/<doc_id>/<page>.json)", file=ocr_dir)
    for ddir in doc_dirs:
        _check_doc_id(ddir.name, ddir)
        files = sorted(ddir.glob("*.json"), key=lambda p: (len(p.stem), p.stem))
        if not files:
            raise InputError("no page JSON files", file=ddir)
        h = hashlib.sha256()
        pages: dict[int, str] = {}
        for i, f in enumerate(files, start=1):
            raw = f.read_bytes()
            h.update(f.name.encode() + b"\0" + raw)
            try:
                obj = json_loads(raw)
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON ({exc.msg})", file=f, line=exc.lineno) from exc
            num = _page_number(f, obj, i)
            if num < 1 or num in pages:
                raise InputError(f"page number {num} is not 1-based or repeats", file=f)
            pages[num] = _ocr_page_text(obj)
        sha = h.hexdigest()
        if known.get(ddir.name) == sha:
            unchanged += 1
            continue
        n = max(pages)
        docs.append(
            DocPages(
                ddir.name,
                str(ddir.resolve()),
                "ocr",
                sha,
                [pages.get(p, "") for p in range(1, n + 1)],
            )
        )
    return docs, unchanged


def collect_pages_jsonl(path: Path, known: dict[str, str]) -> tuple[list[DocPages], int]:
    from packet_builder.readers import json_lines

    by_doc: dict[str, dict[int, str]] = {}
    for lineno, obj in json_lines(path):
        doc_id, page, text = obj.get("doc_id"), obj.get("page"), obj.get("text")
        if not isinstance(doc_id, str) or not doc_id:
            raise InputError("missing string 'doc_id'", file=path, line=lineno)
        _check_doc_id(doc_id, path)
        if not isinstance(page, int) or isinstance(page, bool) or page < 1:
            raise InputError("'page' must be a 1-based integer", file=path, line=lineno)
        if not isinstance(text, str):
            raise InputError("missing string 'text'", file=path, line=lineno)
        pages = by_doc.setdefault(doc_id, {})
        if page in pages:
            raise InputError(f"duplicate page {page} of {doc_id!r}", file=path, line=lineno)
        pages[page] = text
    if not by_doc:
        raise InputError("no pages in file", file=path)
    docs: list[DocPages] = []
    unchanged = 0
    for doc_id in sorted(by_doc):
        pages = by_doc[doc_id]
        n = max(pages)
        texts = [pages.get(p, "") for p in range(1, n + 1)]
        sha = hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode()).hexdigest()
        if known.get(doc_id) == sha:
            unchanged += 1
            continue
        docs.append(DocPages(doc_id, str(path.resolve()), "pages", sha, texts))
    return docs, unchanged


_BATCH = 50_000  # documents per insert: bounds memory on a million-passage corpus


def _insert_batch(con: Any, docs: list[DocPages], stamp: str, source: str) -> int:
    import pandas as pd

    doc_df = pd.DataFrame(
        [(d.doc_id, d.source_path, d.kind, d.sha256, len(d.pages), stamp) for d in docs],
        columns=["doc_id", "source_path", "kind", "sha256", "n_pages", "ingested_at"],
    )
    page_df = pd.DataFrame(
        [(d.doc_id, i, t, len(t)) for d in docs for i, t in enumerate(d.pages, start=1)],
        columns=["doc_id", "page", "text", "n_chars"],
    )
    store_corpus.replace_documents(con, doc_df, page_df)
    ocr_df = pd.DataFrame(
        [(d.doc_id, i, r["engine"], r["version"], r["lang"], r["confidence"], r["words"])
         for d in docs if d.ocr for i, r in enumerate(d.ocr, start=1) if r is not None],
        columns=["doc_id", "page", "engine", "version", "lang", "confidence", "words"],
    )  # fmt: skip
    store_corpus.replace_page_ocr(con, [d.doc_id for d in docs], ocr_df)
    record(con, [d.extraction(source) for d in docs])
    return len(page_df)


def write_documents(
    project: Project,
    docs: Iterable[DocPages],
    extraction: Iterable[ExtractionRow] = (),
    source: str = "",
    stored: dict[str, int] | None = None,
) -> tuple[int, int, list[ExtractionRow]]:
    """Replace each document's row, pages and extraction record (under `source`) in one
    transaction, `_BATCH` documents at a time, so `docs` may be a stream: a reader error
    in the middle rolls everything back. `extraction` adds records of files that gave
    no document. Returns (documents, pages, every extraction row written); `stored`
    receives each written document's stored page count."""
    it = iter(docs)
    batch = list(itertools.islice(it, _BATCH))
    extra = list(extraction)
    if not batch and not extra:
        return 0, 0, []
    rows: list[ExtractionRow] = list(extra)
    n_docs = n_pages = 0
    stamp = now_iso()
    with store.transaction(project.store_path) as con:
        record(con, extra)
        while batch:
            n_pages += _insert_batch(con, batch, stamp, source)
            n_docs += len(batch)
            rows += [d.extraction(source) for d in batch]
            if stored is not None:
                stored.update((d.doc_id, len(d.pages)) for d in batch)
            batch = list(itertools.islice(it, _BATCH))
    return n_docs, n_pages, rows


def ingest(
    project: Project,
    *,
    pdf_dir: Path | None = None,
    ocr_dir: Path | None = None,
    pages_file: Path | None = None,
    beir_dir: Path | None = None,
    trec_docs: Path | None = None,
    mineru_dir: Path | None = None,
    source: str = "",
    workers: int | None = None,
    progress: Progress = no_progress,
    strict: bool = False,
    manifest: Path | None = None,
    ocr: str = "auto",
    ocr_lang: str = "eng",
    ocr_dpi: int = 300,
    ocr_min_confidence: float = 60.0,
    recursive: bool = True,
) -> IngestReport:
    """Ingest one source. `strict`: any skipped or repaired file is an error, and then
    nothing is written (the check runs before the one store transaction). `source` names
    the documents' source for the extraction gate (packet_builder.source_gate).
    `manifest`: check the local files against (doc_id, url, sha256) rows first
    (packet_builder.corpus_manifest); with `strict` a finding is an error. `ocr`: how
    PDF pages without a text layer are read (packet_builder.ocr); pages whose OCR
    confidence is under `ocr_min_confidence` are listed (an error with `strict`).
    `recursive`: `pdf_dir`'s subfolders are searched too."""
    given = (pdf_dir, ocr_dir, pages_file, beir_dir, trec_docs, mineru_dir)
    if sum(s is not None for s in given) != 1:
        raise InputError(
            "give exactly one of --pdf-dir, --ocr-dir, --pages, --beir, --trec-docs, --mineru"
        )
    report = IngestReport()
    if manifest is not None:
        # Checked before anything is read or written, so --strict leaves the store as it was.
        given_path = next(s for s in given if s is not None)
        base = given_path if given_path.is_dir() else given_path.parent
        pdf_files = find_pdfs(pdf_dir, recursive) if pdf_dir is not None else None
        report.manifest = check_manifest(manifest, pdf_dir=pdf_dir, base=base, pdf_files=pdf_files)
        if strict and not report.manifest.ok:
            raise InputErrors(
                [
                    InputError(what, file=file, hint="fetch the file again or fix the manifest")
                    for file, what in report.manifest.findings()
                ]
            )
    known = _known_hashes(project)
    docs: Iterable[DocPages]
    if pdf_dir is not None:
        n_workers = workers or max(1, min(os.cpu_count() or 1, 8))
        cfg = ocr_config(ocr, ocr_lang, ocr_dpi)
        if cfg is not None:
            report.ocr = OcrSummary(cfg.mode, cfg.lang, ocr_min_confidence, version=cfg.version)
            # An unchanged PDF whose pages OCR has not read yet is read again.
            for doc_id in _without_ocr(project, every_page=cfg.mode == "always"):
                known.pop(doc_id, None)
        docs = collect_pdfs(pdf_dir, known, n_workers, progress, report, recursive, cfg)
    elif ocr_dir is not None:
        docs, report.unchanged = collect_ocr(ocr_dir, known)
    elif beir_dir is not None:
        from packet_builder.beir_fast import read_corpus, write_columns

        cols = read_corpus(beir_dir) if beir_dir.is_dir() else None
        if cols is not None:  # Arrow vouched for the whole file: columns, no per-line objects
            w = write_columns(project, beir_dir, cols, known, source)
            report.documents, report.pages, report.unchanged, report.extraction = w
            return report
        # The per-line reader, streamed (it names the first bad line).
        docs = progress(collect_beir(beir_dir, known, report), desc="ingest")
    elif trec_docs is not None:
        docs = progress(collect_trec(trec_docs, known, report), desc="ingest")
    elif mineru_dir is not None:
        docs, report.unchanged = collect_mineru(mineru_dir, known, report)
    else:
        assert pages_file is not None
        docs, report.unchanged = collect_pages_jsonl(pages_file, known)
    if strict and report.problems():
        raise InputErrors(
            [
                InputError(what, file=file, hint="fix or remove it, or ingest without --strict")
                for file, what in report.problems()
            ]
        )
    # A skipped PDF still counts against its source: its pages were expected, none came.
    skipped = [
        (Path(x["file"]).stem, source, page_count(Path(x["file"])), 0, f"pdf {SKIPPED_SUFFIX}")
        for x in report.skipped
        if Path(x["file"]).suffix.lower() == ".pdf"
    ]
    stored: dict[str, int] = {}
    report.documents, report.pages, rows = write_documents(project, docs, skipped, source, stored)
    report.extraction = summary(rows, stored)
    return report
