"""What an ingest reports: documents and pages written, files skipped or repaired, the
per-source extraction summary, the manifest check and what OCR read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from formats.corpus_manifest import ManifestReport
from packet_builder.ocr import ENGINE


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
