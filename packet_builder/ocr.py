"""OCR of PDF pages without a text layer: PyMuPDF renders, Tesseract reads.

The n-Clue paper's corpus reconstruction falls back to Tesseract for pages that have no
text layer; `evaudit ingest --ocr auto` does the same. A page is rendered by PyMuPDF at
`dpi` and given to Debian's `tesseract` (the project's setup installs it, with English
data; `--ocr-lang` names others, as Tesseract spells them: `deu`, `eng+fra`), whose TSV
output carries each word with its confidence. The page's text keeps Tesseract's blocks,
paragraphs and lines; its confidence is the mean of its words' confidences (0-100),
weighted by their length, so a page of a few misread letters cannot hide behind one
confident long word. Each page records the engine, its version and the language.

Tesseract runs one thread per call (`OMP_THREAD_LIMIT=1`): ingest already runs one
process per core, and nested threads would only contend for the same cores.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from vocabulary.errors import InputError

ENGINE = "tesseract"
MODES = ("auto", "always", "never")


@dataclass(frozen=True)
class OcrPage:
    text: str
    confidence: float  # 0-100; 0 where no word was read
    words: int
    engine: str
    version: str
    lang: str

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.engine, "version": self.version, "lang": self.lang,
                "confidence": round(self.confidence, 2), "words": self.words}  # fmt: skip


@lru_cache(maxsize=1)
def _binary() -> str | None:
    return shutil.which("tesseract")


def tesseract_version() -> str:
    """The installed Tesseract's version, or an InputError saying how to get it."""
    exe = _binary()
    if exe is None:
        raise InputError("OCR needs Tesseract, which is not installed",
                         hint="apt-get install tesseract-ocr (bash scripts/dev.sh setup does "
                         "it), or ingest with --ocr never")  # fmt: skip
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
    first = (out.stdout or out.stderr).splitlines()
    return first[0].split()[-1] if first else "unknown"


def check_languages(lang: str) -> None:
    """Refuse a language whose data Tesseract lacks, before any page is read."""
    exe = _binary()
    assert exe is not None
    out = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, check=False)
    have = {ln.strip() for ln in out.stdout.splitlines()[1:] if ln.strip()}
    missing = [p for p in lang.split("+") if p not in have]
    if missing:
        raise InputError(f"Tesseract has no language data for {', '.join(missing)}",
                         hint=f"install tesseract-ocr-{missing[0]}, or pass --ocr-lang with "
                         f"one of {', '.join(sorted(have - {'osd'}))}")  # fmt: skip


def parse_tsv(tsv: str) -> tuple[str, float, int]:
    """(text, length-weighted mean confidence, words) of Tesseract's TSV output."""
    lines: dict[tuple[int, int, int], list[str]] = {}
    total = weight = 0.0
    words = 0
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5":
            continue
        word = cols[11].strip()
        try:
            conf = float(cols[10])
        except ValueError:
            continue
        if not word or conf < 0:
            continue
        key = (int(cols[2]), int(cols[3]), int(cols[4]))
        lines.setdefault(key, []).append(word)
        total += conf * len(word)
        weight += len(word)
        words += 1
    text_lines: list[str] = []
    last_par: tuple[int, int] | None = None
    for (block, par, _line), ws in sorted(lines.items()):
        if last_par is not None and (block, par) != last_par:
            text_lines.append("")
        text_lines.append(" ".join(ws))
        last_par = (block, par)
    return "\n".join(text_lines), (total / weight if weight else 0.0), words


def ocr_png(png: bytes, *, lang: str, dpi: int, version: str) -> OcrPage:
    exe = _binary()
    if exe is None:
        tesseract_version()  # raises the install hint
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    out = subprocess.run([str(exe), "stdin", "stdout", "-l", lang, "--dpi", str(dpi), "tsv"],
                         input=png, capture_output=True, env=env, check=False)  # fmt: skip
    if out.returncode != 0:
        msg = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"tesseract failed: {msg[-1] if msg else out.returncode}")
    text, conf, words = parse_tsv(out.stdout.decode("utf-8", "replace"))
    return OcrPage(text, conf, words, ENGINE, version, lang)


def ocr_pdf_page(page: Any, *, lang: str, dpi: int, version: str) -> OcrPage:
    """OCR one PyMuPDF page (rendered in grey at `dpi`)."""
    import pymupdf

    png = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY).tobytes("png")
    return ocr_png(png, lang=lang, dpi=dpi, version=version)
