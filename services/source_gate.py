"""`evaudit gate`: the per-source extraction gate, its `--apply` and its `--log`.

The gate is `packet_builder.source_gate`; this use case opens the project and returns
the report (the gate's sources, or the log of earlier removals) the CLI prints. Both
reports' `table()` end in a newline: an empty log prints nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packet_builder.source_gate import GateReport, gate, log, source_label
from services.projects import ProjectRef, project_at
from vocabulary.tables import table

_HEADS = ["source", "documents", "pages in files", "stored", "extracted", "of them OCR",
          "empty", "in skipped files", "rate", "gate"]  # fmt: skip


@dataclass(frozen=True)
class SourceGateReport:
    result: GateReport

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def rows(self) -> list[list[object]]:
        return [
            [source_label(s.source), s.documents, s.pages_expected, s.pages_stored,
             s.pages_extracted, s.ocr_pages, s.pages_stored - s.pages_extracted,
             s.pages_skipped, "n/a" if s.rate is None else f"{100 * s.rate:.2f}%",
             "pass" if s.passed else "FAIL"]
            for s in self.result.sources
        ]  # fmt: skip

    def table(self) -> str:
        text = table(self.rows(), _HEADS) + "\n"
        if self.result.applied:
            counts = self.result.removed["counts"].items()
            text += "removed " + ", ".join(f"{k} {v}" for k, v in counts) + "\n"
        return text


@dataclass(frozen=True)
class GateLogReport:
    """What earlier `gate --apply` runs removed, oldest first."""

    entries: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"log": self.entries}

    def table(self) -> str:
        lines = []
        for e in self.entries:
            counts = ", ".join(f"{k} {len(v)}" for k, v in e["removed"].items())
            names = ", ".join(source_label(s["source"]) for s in e["failing"])
            lines.append(
                f"#{e['seq']} {e['applied_at']} min rate {e['min_rate']}: {names}: {counts}"
            )
        return "".join(line + "\n" for line in lines)


def source_gate(
    project: ProjectRef, min_rate: float, apply: bool = False, show_log: bool = False
) -> SourceGateReport | GateLogReport:
    """The gate at `min_rate` (`apply`: remove the failing sources), or with `show_log`
    the log of earlier removals (then nothing is gated)."""
    opened = project_at(project)
    if show_log:
        return GateLogReport(log(opened))
    return SourceGateReport(gate(opened, min_rate, apply))
