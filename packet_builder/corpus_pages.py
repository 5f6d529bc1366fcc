"""One ingested document's pages, as every corpus reader hands them to the store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packet_builder.source_gate import ExtractionRow


@dataclass
class DocPages:
    doc_id: str
    source_path: str
    kind: str
    sha256: str
    pages: list[str]
    expected: int | None = None  # pages the source has (None: as many as extracted)
    expected_from: str = ""  # where `expected` comes from, for the gate's report
    ocr: list[dict[str, Any] | None] | None = None  # per page: OCR provenance, None: text layer

    def extraction(self, source: str) -> ExtractionRow:
        """(doc_id, source, pages expected, pages with text, from) for the extraction gate."""
        got = sum(1 for t in self.pages if t.strip())
        expected = len(self.pages) if self.expected is None else self.expected
        return (self.doc_id, source, expected, got, self.expected_from or self.kind)
