"""Pure page-state logic for the annotation screen, testable without Streamlit.

The packet, an item's draft, its journal line and the annotator's session are
`campaign.annotation` (shared with the response files and simulated panels of
`services`); this module adds what the screen needs on top: resuming at the first
incomplete item, navigation, progress, the card's item and the highlighted page text.
Nothing here reads the admin key, the campaign store or another person's journal.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from campaign.annotation import (
    PACKET_FORMAT,
    AnnotatorSession,
    ItemState,
    Packet,
    is_complete,
    load_packet,
    problems,
    record,
)
from vocabulary.textnorm import find_quote

# The app's modules and its tests name these through the screen's module.
__all__ = [
    "PACKET_FORMAT",
    "AnnotatorSession",
    "ItemState",
    "Packet",
    "card_item",
    "first_incomplete",
    "highlight_html",
    "is_complete",
    "load_packet",
    "match_context",
    "problems",
    "progress",
    "record",
    "step",
]


def first_incomplete(packet: Packet, states: Mapping[str, ItemState]) -> int:
    """Index of the first item that is not complete (0 when every item is complete)."""
    for idx, item_id in enumerate(packet.item_ids):
        if not is_complete(packet, item_id, states.get(item_id)):
            return idx
    return 0


def step(index: int, delta: int, total: int) -> int:
    """Previous/Next: always live, clamped to the packet."""
    if total <= 0:
        return 0
    return max(0, min(total - 1, index + delta))


def progress(packet: Packet, states: Mapping[str, ItemState]) -> tuple[int, int]:
    done = sum(is_complete(packet, i, states.get(i)) for i in packet.item_ids)
    return done, len(packet.items)


def card_item(packet: Packet, item_id: str) -> dict[str, Any]:
    """What the judging card shows of one item (blinded fields only), built once per packet.

    A page whose text sits in several conditions' pools is sent once: `pages` maps each
    page key to an index into `texts`."""
    return packet.card_items[item_id]


@lru_cache(maxsize=4096)
def highlight_html(text: str, quote: str | None) -> tuple[str, tuple[int, int] | None]:
    """Escaped page text with the matched quote wrapped in <mark>; and the match span.

    Cached: every rerun redraws every page of the item, and page texts never change."""
    span = find_quote(quote, text) if quote and quote.strip() else None
    if span is None:
        return _esc(text), None
    start, end = span
    marked = f"{_esc(text[:start])}<mark>{_esc(text[start:end])}</mark>{_esc(text[end:])}"
    return marked, span


def _esc(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def match_context(text: str, span: tuple[int, int], width: int = 40) -> str:
    """A one-line snippet around the match, for 'matched here: ...'."""
    start, end = span
    left = max(0, start - width)
    right = min(len(text), end + width)
    pre = ("…" if left > 0 else "") + text[left:start]
    post = text[end:right] + ("…" if right < len(text) else "")
    return " ".join(f"{pre}[{text[start:end]}]{post}".split())
