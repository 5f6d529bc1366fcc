"""Response-stream integrity ("Do Current Retrievers Cover All the Evidence?" (supplement), "Adjudication agreement and integrity", challenge).

Per stream: positives, negatives, selected pages, quotes passing the exact
check, structural and page-pool errors. Two journals of one source (the same
file, annotator or token; `campaign.stream_identity` finds them) are one stream
counted twice; they are flagged and collapsed to the first of the group ("Do Current
Retrievers Cover All the Evidence?" (supplement) collapsed two such files). Equal
answers alone never make two streams one. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from scorers.responses import ItemResponse, PacketInfo, Responses

# The journal reader's counts per stream (`campaign.journal.StreamRead.problems`).
_READ_PROBLEMS = ("unparsable_lines", "other_packet_lines", "unknown_items")
_NOT_PLAIN = ("quotes_exact", "quotes_total", "read_problems")  # not one JSON key each


@dataclass(frozen=True)
class StreamCounts:
    """One stream's figures; `read_problems` are the journal reader's counts of the lines
    it could not use (`campaign.journal.StreamRead.problems`), in its order."""

    items_saved: int
    items_complete: int
    positives: int
    negatives: int
    unanswered: int
    selected_pages: int
    quotes_exact: int
    quotes_total: int
    structural_errors: int
    page_pool_errors: int
    unclear: int
    read_problems: Mapping[str, int] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        """No structural or page-pool error, every quote exact."""
        return (
            self.structural_errors == 0
            and self.page_pool_errors == 0
            and self.quotes_exact == self.quotes_total
        )

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> StreamCounts:
        """A stream's row of the released JSON (a figure it lacks reads 0)."""
        quotes = row.get("quotes_exact") or {}
        plain = [f.name for f in fields(cls) if f.name not in _NOT_PLAIN]
        return cls(
            **{key: int(row.get(key, 0)) for key in plain},
            quotes_exact=int(quotes.get("count", 0)),
            quotes_total=int(quotes.get("total", 0)),
            read_problems={k: v for k, v in row.items() if k in _READ_PROBLEMS},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "items_saved": self.items_saved,
            "items_complete": self.items_complete,
            "positives": self.positives,
            "negatives": self.negatives,
            "unanswered": self.unanswered,
            "selected_pages": self.selected_pages,
            "quotes_exact": {"count": self.quotes_exact, "total": self.quotes_total},
            "structural_errors": self.structural_errors,
            "page_pool_errors": self.page_pool_errors,
            "unclear": self.unclear,
            **self.read_problems,
        }


def stream_counts(packet: PacketInfo, stream: Mapping[str, ItemResponse]) -> StreamCounts:
    pos = neg = unanswered = pages = qtot = qok = structural = pool = unclear = complete = 0
    for item in packet.items:
        resp = stream.get(item.item_id)
        if resp is None:
            continue
        complete += int(resp.answered_all(item))
        unclear += int(resp.unclear)
        for cond in item.conditions:
            c = resp.conditions[cond.key]
            pos += int(c.answer == "yes")
            neg += int(c.answer == "no")
            unanswered += int(not c.answered)
            pages += len(c.pages) if c.answer == "yes" else 0
            qtot += c.quotes_total
            qok += c.quotes_exact
            structural += c.structural_errors
            pool += c.pool_errors
    return StreamCounts(
        items_saved=sum(1 for it in packet.items if it.item_id in stream),
        items_complete=complete,
        positives=pos,
        negatives=neg,
        unanswered=unanswered,
        selected_pages=pages,
        quotes_exact=qok,
        quotes_total=qtot,
        structural_errors=structural,
        page_pool_errors=pool,
        unclear=unclear,
    )


def collapse(
    responses: Responses, groups: Sequence[Sequence[str]]
) -> dict[str, Mapping[str, ItemResponse]]:
    """Keep the first stream of each duplicate group, drop the copies."""
    drop = {name for group in groups for name in group[1:]}
    return {name: stream for name, stream in responses.items() if name not in drop}


# The totals' keys, in the released order (quotes last, as count and total).
_TOTALS = ("positives", "negatives", "selected_pages", "structural_errors", "page_pool_errors")


@dataclass(frozen=True)
class IntegrityTable:
    """Per-stream counts, duplicate groups and the streams left after collapsing."""

    packet_id: str
    kind: str
    items: int
    conditions: int
    streams: dict[str, StreamCounts]  # by name, sorted
    duplicate_streams: list[list[str]]
    streams_after_collapse: list[str]

    @property
    def ok(self) -> bool:
        return all(s.clean for s in self.streams.values())

    def _totals(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            key: sum(getattr(s, key) for s in self.streams.values()) for key in _TOTALS
        }
        out["quotes_exact"] = {
            "count": sum(s.quotes_exact for s in self.streams.values()),
            "total": sum(s.quotes_total for s in self.streams.values()),
        }
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "packet_id": self.packet_id,
            "kind": self.kind,
            "items": self.items,
            "conditions": self.conditions,
            "streams": {name: s.to_json() for name, s in self.streams.items()},
            "totals": self._totals(),
            "duplicate_streams": self.duplicate_streams,
            "streams_after_collapse": self.streams_after_collapse,
            "ok": self.ok,
        }


def integrity_report(
    packet: PacketInfo,
    responses: Responses,
    read_problems: Mapping[str, Mapping[str, int]] | None = None,
    groups: Sequence[Sequence[str]] = (),
) -> IntegrityTable:
    """Per-stream counts, totals, duplicate groups (found by identity at the edge:
    `campaign.stream_identity`) and the streams left after collapsing."""
    streams = {}
    for name in sorted(responses):
        problems = dict((read_problems or {}).get(name, {}))
        streams[name] = replace(stream_counts(packet, responses[name]), read_problems=problems)
    return IntegrityTable(
        packet_id=packet.packet_id,
        kind=packet.kind,
        items=len(packet.items),
        conditions=sum(len(it.conditions) for it in packet.items),
        streams=streams,
        duplicate_streams=[list(g) for g in groups],
        streams_after_collapse=sorted(collapse(responses, groups)),
    )
