"""Leak check: no admin-key value may appear in annotator-facing output.

Two checks on a packet:

1. Structure. Only the fields of the packet format may appear; `item_id` is
   `J` + digits, `condition_key` is `C` + digits and every `page_key` is exactly
   `<item_id>-<condition_key>-<letter>` with letters in display order, so keys
   cannot carry a route, rank or page number. Field names and these key strings
   must also not contain a route name, a grade/status label or a condition id.
2. Identifiers. Every string of the packet (texts included) is scanned for the
   key's query ids, document ids, source file names and stems, and the salt:
   whole-token, case-insensitive. Values shorter than `MIN_VALUE_CHARS` are
   not scanned (they would match ordinary words and numbers).

Route names and grade labels are ordinary English words ("original",
"selected", "gold"), so free text is not scanned for them; check 1 covers the
places the builder itself writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from packet_builder.blinding import letters
from packet_builder.routes.base import ROUTE_NAMES

MIN_VALUE_CHARS = 3
LABELS = ("gold", "subset", "partial", "target", "control", "fill")
FIELDS: dict[str, set[str]] = {
    "packet": {"format", "version", "packet_id", "kind", "rule", "quote_rule", "items"},
    "quote_rule": {"min_words", "min_chars"},
    "item": {"item_id", "information_need", "conditions"},
    "condition": {
        "condition_key",
        "name",
        "requirement",
        "counts",
        "does_not_count",
        "note",
        "pages",
    },
    "page": {"page_key", "text"},
}
_ITEM_ID = re.compile(r"J\d{3,}")
_COND_KEY = re.compile(r"C\d+")
_WORDS = re.compile(r"\w+")


@dataclass
class SecretIndex:
    """Admin-key values to look for, indexed by their first word for a fast prefilter."""

    # first word -> [(lowercased value, kind, structural only)]
    by_word: dict[str, list[tuple[str, str, bool]]] = field(default_factory=dict)
    _seen: set[str] = field(default_factory=set)

    def add(self, value: str, kind: str, *, structural_only: bool = False) -> None:
        value = value.strip().lower()
        words = _WORDS.findall(value)
        if len(value) < MIN_VALUE_CHARS or not words or value in self._seen:
            return
        self._seen.add(value)
        self.by_word.setdefault(words[0], []).append((value, kind, structural_only))

    def find(self, text: str, structural: bool = False) -> list[tuple[str, str]]:
        """(value, kind) of every secret value occurring in `text` as a whole token."""
        low = text.lower()
        hits: list[tuple[str, str]] = []
        for word in sorted(set(_WORDS.findall(low)) & self.by_word.keys()):
            for value, kind, structural_only in self.by_word[word]:
                if structural_only and not structural:
                    continue
                if re.search(rf"(?<!\w){re.escape(value)}(?!\w)", low):
                    hits.append((value, kind))
        return hits


def identifier_values(key: dict[str, Any]) -> list[tuple[str, str]]:
    """(value, kind) of the key's query ids, document ids and per-document file names/stems."""
    out: list[tuple[str, str]] = []
    for item in key.get("items", {}).values():
        out.append((str(item.get("query_id", "")), "query_id"))
        out.append((str(item.get("doc_id", "")), "doc_id"))
        file = str(item.get("file") or "")
        if file:
            out += [(file, "file_name"), (PurePath(file).stem, "file_name")]
    return out


def ordinary_values(key: dict[str, Any], vocabulary: set[str]) -> list[str]:
    """Identifier values made only of words that occur in the corpus page text.

    Such a value (a document named `calc` in a corpus about the calc package)
    is an ordinary word of the information needs and pages, not a planted
    identifier; it is searched only in the structural strings. The builder
    records this list in the key (`leak_check.ordinary_values`).
    """
    found = set()
    for value, _kind in identifier_values(key):
        ws = _WORDS.findall(value.lower())
        if ws and all(w in vocabulary for w in ws):
            found.add(value.lower())
    return sorted(found)


def secret_index(key: dict[str, Any]) -> SecretIndex:
    idx = SecretIndex()
    ordinary = set((key.get("leak_check") or {}).get("ordinary_values") or [])
    for value, kind in identifier_values(key):
        idx.add(value, kind, structural_only=value.lower() in ordinary)
    for item in key.get("items", {}).values():
        for cond in item.get("conditions", {}).values():
            idx.add(str(cond.get("condition_id", "")), "condition_id", structural_only=True)
    salt = (key.get("params") or {}).get("salt")
    if salt:
        idx.add(str(salt), "salt")
    for name in ROUTE_NAMES:
        idx.add(name, "route", structural_only=True)
    for label in LABELS:
        idx.add(label, "label", structural_only=True)
    return idx


@dataclass
class LeakReport:
    leaks: list[dict[str, str]] = field(default_factory=list)
    checked_strings: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"leaks": self.leaks, "checked_strings": self.checked_strings}


def _strings(obj: Any, path: str, schema: str) -> Iterator[tuple[str, str, bool, str | None]]:
    """(path, string, structural?, unexpected-field) for every string of the packet."""
    if isinstance(obj, dict):
        allowed = FIELDS.get(schema, set())
        for k, v in obj.items():
            yield f"{path}.{k}" if path else k, k, True, (None if k in allowed else k)
            child = {"items": "item", "conditions": "condition", "pages": "page"}.get(k, str(k))
            yield from _strings(v, f"{path}.{k}" if path else k, child)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, f"{path}[{i}]", schema)
    elif isinstance(obj, str):
        structural = path.rsplit(".", 1)[-1] in {"item_id", "condition_key", "page_key"}
        yield path, obj, structural, None


def _key_format(packet: dict[str, Any]) -> list[dict[str, str]]:
    bad: list[dict[str, str]] = []
    for i, item in enumerate(packet.get("items") or []):
        item_id = str(item.get("item_id", ""))
        if not _ITEM_ID.fullmatch(item_id):
            bad.append({"where": f"items[{i}].item_id", "kind": "key_format", "value": item_id})
        for j, cond in enumerate(item.get("conditions") or []):
            ckey = str(cond.get("condition_key", ""))
            where = f"items[{i}].conditions[{j}]"
            if not _COND_KEY.fullmatch(ckey):
                bad.append({"where": f"{where}.condition_key", "kind": "key_format", "value": ckey})
            for p, page in enumerate(cond.get("pages") or []):
                expected = f"{item_id}-{ckey}-{letters(p)}"
                if page.get("page_key") != expected:
                    bad.append(
                        {
                            "where": f"{where}.pages[{p}].page_key",
                            "kind": "key_format",
                            "value": str(page.get("page_key")),
                        }
                    )
    return bad


def check_packet(packet: dict[str, Any], key: dict[str, Any]) -> LeakReport:
    idx = secret_index(key)
    report = LeakReport()
    for where, text, structural, unexpected in _strings(packet, "", "packet"):
        report.checked_strings += 1
        if unexpected is not None:
            report.leaks.append({"where": where, "kind": "unexpected_field", "value": unexpected})
        for value, kind in idx.find(text, structural=structural):
            report.leaks.append({"where": where, "kind": kind, "value": value})
    report.leaks.extend(_key_format(packet))
    return report


def check_text(text: str, key: dict[str, Any], where: str = "html") -> LeakReport:
    """Scan one exported text (the offline HTML) for identifier values."""
    hits = secret_index(key).find(text)
    return LeakReport([{"where": where, "kind": k, "value": v} for v, k in hits], 1)
