"""Earlier packets of the project, as the `original` and `selected` routes need them.

Edge module: reads admin keys (`keys/NAME.key.json`) and response journals
(`journals/NAME/*.jsonl`, read by the journal's one rule, `campaign.journal.read_stream`) and maps
page keys back to page numbers through each packet's admin key.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from campaign.journal import latest_states
from campaign.packets import read_admin_key as read_key  # the one admin-key reader
from campaign.project import Project

PageTable = dict[tuple[str, str, str], dict[int, float]]


def _conditions(key: dict[str, Any]) -> Iterable[tuple[str, str, dict[str, Any], tuple]]:
    """(item_id, condition_key, condition entry, (query, doc, condition_id)) for every condition."""
    for item_id, item in sorted(key.get("items", {}).items()):
        for ckey, cond in sorted(item.get("conditions", {}).items()):
            yield item_id, ckey, cond, (item["query_id"], item["doc_id"], cond["condition_id"])


def shown_pages(project: Project, packets: Iterable[str]) -> PageTable:
    """(query, doc, condition) -> {page: number of the given packets that displayed it}."""
    table: PageTable = {}
    for name in packets:
        for _item, _ckey, cond, ident in _conditions(read_key(project, name)):
            pages = table.setdefault(ident, {})
            for entry in cond.get("pages", {}).values():
                pages[int(entry["page"])] = pages.get(int(entry["page"]), 0.0) + 1.0
    return table


def selected_pages(project: Project, packets: Iterable[str]) -> PageTable:
    """(query, doc, condition) -> {page: number of (packet, annotator) 'yes' selections}."""
    table: PageTable = {}
    for name in packets:
        key = read_key(project, name)
        index = {(item, ckey): (cond, ident) for item, ckey, cond, ident in _conditions(key)}
        sha, items_of = str(key.get("packet_sha256")), key.get("items", {})
        states = latest_states(project.journal_dir(name), sha, items_of)
        for _annotator, items in sorted(states.items()):
            for item_id, line in items.items():
                for ckey, answer in (line.get("conditions") or {}).items():
                    found = index.get((item_id, ckey))
                    if not found or not isinstance(answer, dict) or answer.get("answer") != "yes":
                        continue
                    cond, ident = found
                    for page_key in answer.get("pages") or []:
                        entry = cond.get("pages", {}).get(page_key)
                        if entry is None:
                            continue
                        pages = table.setdefault(ident, {})
                        pages[int(entry["page"])] = pages.get(int(entry["page"]), 0.0) + 1.0
    return table
