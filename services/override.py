"""`evaudit override`: record an evidence-aware admin decision of one condition.

The validation against the packet's gates and the append are
`audit_chain.overrides_io.record_override`; a rejected decision writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_chain.overrides_io import record_override


@dataclass(frozen=True)
class OverrideReport:
    """The logged decision, as appended to the override log, and the log's path."""

    ts: str
    packet_id: str
    item_id: str
    condition_key: str
    answer: str
    reason: str
    pages: tuple[str, ...]
    quotes: Mapping[str, str]  # page key -> verbatim quote
    file: str

    def to_json(self) -> dict[str, Any]:
        """The log line as written, then the log's path (the released key order)."""
        return {
            "ts": self.ts,
            "packet_id": self.packet_id,
            "item_id": self.item_id,
            "condition_key": self.condition_key,
            "answer": self.answer,
            "reason": self.reason,
            "pages": list(self.pages),
            "quotes": dict(self.quotes),
            "file": self.file,
        }

    def table(self) -> str:
        return (
            f"recorded override {self.item_id} {self.condition_key} -> {self.answer} in {self.file}"
        )


def override(
    directory: Path, packet: str, item: str, condition: str, answer: str, reason: str,
    pages: Sequence[str], quotes: Sequence[str],
) -> OverrideReport:  # fmt: skip
    """Validate the decision for ITEM CONDITION of PACKET and append it to the log."""
    out = record_override(directory, packet, item, condition, answer, reason, pages, quotes)
    return OverrideReport(
        ts=out["ts"],
        packet_id=out["packet_id"],
        item_id=out["item_id"],
        condition_key=out["condition_key"],
        answer=out["answer"],
        reason=out["reason"],
        pages=tuple(out["pages"]),
        quotes=out["quotes"],
        file=out["file"],
    )
