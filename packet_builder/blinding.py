"""Blinding: turn built items into the annotator-facing packet and the separate admin key.

Item ids `J001...` follow the salted hash of the pair (never query or doc
order); the pages of each condition are shown in salted-hash order; page keys
are `<item>-<condition>-<letter>` and carry no route, rank or page number.
Neither file holds a timestamp, so the same inputs and seed give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from formats.records import Condition, Query
from packet_builder.pools import PoolPage
from packet_builder.sampling import salted_hash
from vocabulary.textnorm import MIN_CHARS, MIN_WORDS

PACKET_FORMAT = "evaudit-packet"
KEY_FORMAT = "evaudit-admin-key"
VERSION = 1

RULE = (
    "Judge each condition on the displayed pages only. Answer yes only if a displayed page "
    "itself establishes the requirement as stated: select every such page and copy an exact "
    "quote from it. Related or suggestive text is not enough, and outside knowledge is not "
    "allowed. Answer no when no displayed passage establishes the requirement; no means only "
    "that these pages do not show it."
)


@dataclass
class BuiltCondition:
    key: str  # C1..Cn in the query's condition order
    condition: Condition
    pool: list[PoolPage]
    construction_pages: list[int] = field(default_factory=list)


@dataclass
class BuiltItem:
    query: Query
    doc_id: str
    grade: int
    order_hash: str
    conditions: list[BuiltCondition]
    file: str = ""
    status: str | None = None  # challenge packets: "target" / "control"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return "gold" if self.grade >= self.query.n else "subset"


def letters(i: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA (bijective base 26)."""
    out = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        out = chr(ord("A") + rem) + out
    return out


def item_ids(count: int) -> list[str]:
    width = max(3, len(str(count)))
    return [f"J{i:0{width}d}" for i in range(1, count + 1)]


def packet_bytes(obj: dict[str, Any]) -> bytes:
    """The one serialisation of packets and keys (sorted keys, 2-space indent, final newline)."""
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def blind(
    name: str,
    kind: str,
    items: Sequence[BuiltItem],
    salt: str,
    page_text: Callable[[str, int], str],
    params: dict[str, Any],
    sampling: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(packet, admin key). The key's `packet_sha256` is of `packet_bytes(packet)`."""
    ordered = sorted(items, key=lambda it: (it.order_hash, it.query.query_id, it.doc_id))
    packet_items: list[dict[str, Any]] = []
    key_items: dict[str, Any] = {}
    for item_id, item in zip(item_ids(len(ordered)), ordered, strict=True):
        p_conds: list[dict[str, Any]] = []
        k_conds: dict[str, Any] = {}
        for bc in item.conditions:
            shuffled = sorted(bc.pool, key=lambda pp: salted_hash(salt, item_id, bc.key, pp.page))
            p_pages: list[dict[str, str]] = []
            k_pages: dict[str, Any] = {}
            for i, pp in enumerate(shuffled):
                page_key = f"{item_id}-{bc.key}-{letters(i)}"
                p_pages.append({"page_key": page_key, "text": page_text(item.doc_id, pp.page)})
                k_pages[page_key] = pp.key_json()
            c = bc.condition
            p_conds.append(
                {
                    "condition_key": bc.key,
                    "name": c.name,
                    "requirement": c.requirement,
                    "counts": list(c.counts),
                    "does_not_count": list(c.does_not_count),
                    "note": c.note,
                    "pages": p_pages,
                }
            )
            k_conds[bc.key] = {
                "condition_id": c.condition_id,
                "construction_pages": sorted(bc.construction_pages),
                "pages": k_pages,
            }
        packet_items.append(
            {"item_id": item_id, "information_need": item.query.text, "conditions": p_conds}
        )
        key_items[item_id] = {
            "query_id": item.query.query_id,
            "doc_id": item.doc_id,
            "file": item.file,
            "n": item.query.n,
            "grade": item.grade,
            "label": item.label,
            "release": item.query.release,
            "source": item.query.source,
            "status": item.status,
            "order_hash": item.order_hash,
            "conditions": k_conds,
            **item.extra,
        }
    packet = {
        "format": PACKET_FORMAT,
        "version": VERSION,
        "packet_id": name,
        "kind": kind,
        "rule": RULE,
        "quote_rule": {"min_words": MIN_WORDS, "min_chars": MIN_CHARS},
        "items": packet_items,
    }
    key = {
        "format": KEY_FORMAT,
        "version": VERSION,
        "packet_id": name,
        "packet_sha256": sha256(packet_bytes(packet)),
        "kind": kind,
        "params": params,
        "sampling": sampling,
        "items": key_items,
    }
    return packet, key
