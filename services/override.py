"""`evaudit override`: record an evidence-aware admin decision of one condition.

The validation against the packet's gates and the append are
`audit_chain.overrides_io.record_override`; a rejected decision writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_chain.overrides_io import record_override


@dataclass(frozen=True)
class OverrideReport:
    """The logged decision; `body` is the released `--json` object."""

    body: dict[str, Any]
    item: str
    condition: str
    answer: str

    def to_json(self) -> dict[str, Any]:
        return self.body

    def table(self) -> str:
        return f"recorded override {self.item} {self.condition} -> {self.answer} in {self.body['file']}"


def override(
    directory: Path, packet: str, item: str, condition: str, answer: str, reason: str,
    pages: Sequence[str], quotes: Sequence[str],
) -> OverrideReport:  # fmt: skip
    """Validate the decision for ITEM CONDITION of PACKET and append it to the log."""
    out = record_override(directory, packet, item, condition, answer, reason, pages, quotes)
    return OverrideReport(out, item, condition, answer)
