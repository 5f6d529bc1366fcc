"""`evaudit ingest`: read a corpus into the project's store and report what was read.

The work is `packet_builder.ingest`; this use case opens the project, runs it with the
injected progress and wraps its `IngestReport` with the text the CLI prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packet_builder.ingest import IngestSpec, ingest
from packet_builder.ingest_report import IngestReport
from packet_builder.source_gate import source_label
from services.projects import ProjectRef, project_at
from vocabulary.progress import Progress, no_progress

__all__ = ["CorpusIngestReport", "IngestSpec", "ingest_corpus"]


def _pages_line(src: str, e: dict[str, Any]) -> str:
    """One source's page kinds (packet_builder.source_gate.page_kinds) on one line."""
    rate = e["rate"]
    shown = "n/a" if rate is None else f"{100 * float(rate):.2f}%"
    line = (
        f"  source {source_label(src)}: {e['pages_expected']} pages in the files, "
        f"{e['pages_stored']} stored ({e['pages_extracted']} extracted with text, "
        f"{e['pages_empty']} empty), {e['pages_skipped']} in skipped files"
    )
    if e["pages_missing"]:
        line += f", {e['pages_missing']} missing"
    return line + f"; extraction rate {shown}"


@dataclass(frozen=True)
class CorpusIngestReport:
    """What one ingest read; `to_json()` is the library report's JSON unchanged."""

    result: IngestReport

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        r = self.result
        lines = [r.manifest.to_text()] if r.manifest is not None else []
        lines.append(
            f"ingested {r.documents} documents ({r.pages} pages stored); "
            f"{r.unchanged} unchanged; {len(r.skipped)} skipped"
            + (f"; {len(r.repaired)} repaired" if r.repaired else "")
        )
        lines += [f"  skipped {s['file']}: {s['reason']}" for s in r.skipped]
        lines += [f"  warning: {x['file']}: {x['warning']}" for x in r.repaired]
        if r.ocr is not None and r.ocr.pages:
            o = r.ocr
            lines.append(f"  OCR ({o.engine} {o.version}, {o.lang}): {o.pages} pages of "
                         f"{o.documents} documents; {len(o.low_confidence)} under confidence "
                         f"{o.min_confidence:g}")  # fmt: skip
            lines += [f"  low OCR confidence: {x['file']} page {x['page']}: "
                      f"{x['confidence']:.1f}" for x in o.low_confidence]  # fmt: skip
        lines += [_pages_line(src, e) for src, e in sorted(r.extraction.items())]
        return "\n".join(lines)


def ingest_corpus(
    project: ProjectRef, spec: IngestSpec, progress: Progress = no_progress
) -> CorpusIngestReport:
    """Ingest `spec`'s one source into the project (`packet_builder.ingest.ingest`)."""
    return CorpusIngestReport(ingest(project_at(project), spec, progress))
