"""The per-source extraction gate ("Do Current Retrievers Cover All the Evidence?",
supplement, SourceShift: a pre-specified 98% per-source gate on extracted pages).

`ingest --source NAME` records, per document, the pages extracted (with non-blank
text) against the pages expected (the PDF's page count; MinerU's pdf_info or origin
PDF; 1 for a BEIR/TREC entry); a source's rate is the sum of one over the sum of the
other. `gate --apply` removes every failing source's documents and the queries whose
`source` is that source, with every qrels, graded-qrels, evidence and run row that
names them, and then every query that had a gold and has none left, in one
transaction, and appends what it removed to `gate_log` (printed by `gate --log`).
Nothing but a fresh `ingest` and `load` brings the rows back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from campaign import store, store_corpus
from campaign.project import Project, now_iso
from vocabulary.errors import InputError

ExtractionRow = tuple[str, str, int, int, str]  # doc_id, source, expected, extracted, from
NONE_LABEL = "(none)"  # how text output names the documents ingested without --source


def source_label(source: str) -> str:
    return source or NONE_LABEL


@dataclass(frozen=True)
class PageKinds:
    """One source's page counts, each kind named, as ingest, gate and status report them.

    pages_expected: pages in the source files (a PDF's page count, MinerU's pdf_info, one
    per BEIR/TREC entry), skipped files included; pages_stored: pages written to the
    store; pages_extracted: stored pages with non-blank text (what the gate rates);
    pages_empty: stored pages without text; pages_skipped: pages of files skipped whole
    (unreadable, encrypted, no text layer); pages_missing: expected pages neither stored
    nor skipped (an output with fewer pages than its PDF). So expected = stored + skipped
    + missing and stored = extracted + empty."""

    documents: int
    documents_skipped: int
    pages_expected: int
    pages_stored: int
    pages_extracted: int
    pages_skipped: int

    @property
    def rate(self) -> float | None:
        return self.pages_extracted / self.pages_expected if self.pages_expected else None

    def to_json(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "documents_skipped": self.documents_skipped,
            "pages_expected": self.pages_expected,
            "pages_stored": self.pages_stored,
            "pages_extracted": self.pages_extracted,
            "pages_empty": self.pages_stored - self.pages_extracted,
            "pages_skipped": self.pages_skipped,
            "pages_missing": self.pages_expected - self.pages_stored - self.pages_skipped,
            "rate": self.rate,
        }


def page_kinds(
    documents: int,
    documents_skipped: int,
    expected: int,
    stored: int,
    extracted: int,
    skipped: int,
) -> PageKinds:
    """One source's page counts (`PageKinds`)."""
    return PageKinds(documents, documents_skipped, expected, stored, extracted, skipped)


def record(con: Any, rows: Iterable[ExtractionRow]) -> None:
    """Replace the extraction rows of these documents (inside the ingest transaction)."""
    import pandas as pd

    df = pd.DataFrame(
        list(rows),
        columns=["doc_id", "source", "pages_expected", "pages_extracted", "expected_from"],
    )
    store_corpus.replace_extraction(con, df)


@dataclass
class SourceRate:
    source: str
    documents: int
    pages_expected: int
    pages_extracted: int
    passed: bool
    documents_skipped: int = 0
    pages_stored: int = 0
    pages_skipped: int = 0
    ocr_pages: int = 0  # of pages_extracted, those whose text OCR made

    @property
    def rate(self) -> float | None:
        return self.pages_extracted / self.pages_expected if self.pages_expected else None

    def kinds(self) -> PageKinds:
        return page_kinds(
            self.documents,
            self.documents_skipped,
            self.pages_expected,
            self.pages_stored,
            self.pages_extracted,
            self.pages_skipped,
        )

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, **self.kinds().to_json(), "ocr_pages": self.ocr_pages,
                "passed": self.passed}  # fmt: skip


@dataclass
class GateReport:
    min_rate: float
    sources: list[SourceRate]
    applied: bool = False
    removed: dict[str, Any] = field(default_factory=dict)

    @property
    def failing(self) -> list[str]:
        return [s.source for s in self.sources if not s.passed]

    def overall(self) -> PageKinds:
        """Every source's page kinds summed (page_kinds)."""
        s = self.sources
        return page_kinds(
            sum(x.documents for x in s),
            sum(x.documents_skipped for x in s),
            sum(x.pages_expected for x in s),
            sum(x.pages_stored for x in s),
            sum(x.pages_extracted for x in s),
            sum(x.pages_skipped for x in s),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "min_rate": self.min_rate,
            "overall": self.overall().to_json(),
            "sources": [s.to_json() for s in self.sources],
            "failing": self.failing,
            "applied": self.applied,
            "removed": self.removed,
        }


def rates(con: Any, min_rate: float) -> list[SourceRate]:
    out = []
    for (
        source,
        docs,
        skipped_docs,
        expected,
        stored,
        extracted,
        skipped,
    ) in store_corpus.page_totals(con):
        exp, ext = int(expected or 0), int(extracted or 0)
        # Exact: 98/100 passes a 0.98 gate whatever the float rounding of either side.
        passed = exp > 0 and Fraction(ext, exp) >= Fraction(str(min_rate))
        out.append(
            SourceRate(
                str(source), int(docs), exp, ext, passed, int(skipped_docs), int(stored or 0),
                int(skipped or 0),
            )
        )  # fmt: skip
    return out


def gate(project: Project, min_rate: float, apply: bool = False) -> GateReport:
    if not 0 <= min_rate <= 1:
        raise InputError(f"--min-rate {min_rate} must be within 0..1", hint="e.g. 0.98")
    with store.connect(project.store_path, read_only=True) as con:
        report = GateReport(min_rate, rates(con, min_rate))
        ocr = store_corpus.ocr_totals(con)
    for s in report.sources:
        s.ocr_pages = ocr.get(s.source, 0)
    if not report.sources:
        raise InputError(
            "no extraction records", file=project.store_path,
            hint="ingest the corpus with this evaudit (`ingest --source NAME ...`)",
        )  # fmt: skip
    if not apply or not report.failing:
        return report
    with store.transaction(project.store_path) as con:
        removed = store_corpus.gate_removal(con, report.failing)
        store_corpus.gate_delete(con)
        summary = {"failing": [s.to_json() for s in report.sources if not s.passed]}
        store_corpus.append_gate_log(
            con, now_iso(), min_rate, json.dumps(summary), json.dumps(removed)
        )
    report.applied = True
    report.removed = {
        "counts": {k: len(v) for k, v in removed.items()},
        "queries": [{"query_id": q, "why": why} for q, why in removed["queries"]],
        "documents": [d for (d,) in removed["documents"]],
    }
    return report


def log(project: Project) -> list[dict[str, Any]]:
    """Every applied gate, oldest first, with the rows it removed."""
    with store.connect(project.store_path, read_only=True) as con:
        rows = store_corpus.gate_log_rows(con)
    return [
        {
            "seq": seq,
            "applied_at": at,
            "min_rate": rate,
            **json.loads(failing),
            "removed": json.loads(removed),
        }
        for seq, at, rate, failing, removed in rows
    ]
