"""Test fixtures for the audit chain: a project, store rows, packets + keys, journals.

Written per docs/formats.md by the tests themselves (no packet builder or app
needed). Each selected page's quote is the page's whole text, so every quote
passes the exact check.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaign import store
from campaign.init import init_project
from campaign.packets import save_packet
from campaign.project import Project


def page_text(doc_id: str, page: int) -> str:
    return f"Evidence page {page} of document {doc_id} states the required fact plainly."


@dataclass
class Pair:
    query_id: str
    doc_id: str
    n: int
    grade: int
    release: str = "R"
    source: str = "S"
    # condition key -> physical pages shown (default: 10*i + 1..3 for condition Ci)
    pools: dict[str, list[int]] = field(default_factory=dict)
    status: str | None = None  # challenge packets: "target" or "control"

    def pool(self, ckey: str) -> list[int]:
        i = int(ckey[1:])
        return self.pools.get(ckey, [10 * i + 1, 10 * i + 2, 10 * i + 3])


def letters(i: int) -> str:
    return chr(ord("A") + i)


def new_project(
    root: Path, pairs: list[Pair], extra_qrels: list[tuple[str, str, int]] = ()
) -> Project:  # type: ignore[assignment]
    project, _ = init_project(root, admin_password="pw")
    seen: dict[str, Pair] = {}
    for p in pairs:
        seen.setdefault(p.query_id, p)
    with store.transaction(project.store_path) as con:
        for pos, (qid, p) in enumerate(sorted(seen.items()), start=1):
            con.execute(
                "INSERT INTO queries VALUES (?, ?, ?, ?, ?, ?)",
                [qid, f"information need {qid}", p.release, p.source, p.n, pos],
            )
            for i in range(1, p.n + 1):
                con.execute(
                    "INSERT INTO conditions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [qid, f"{qid}-c{i}", i, f"cond {i}", f"requirement {i}", "[]", "[]", "", "[]"],
                )
        rows = {(p.query_id, p.doc_id): p.grade for p in pairs if p.grade}
        rows.update({(q, d): g for q, d, g in extra_qrels})
        for (q, d), g in sorted(rows.items()):
            con.execute("INSERT INTO qrels VALUES (?, ?, ?)", [q, d, g])
    return project


def write_packet(
    project: Project,
    name: str,
    kind: str,
    pairs: list[Pair],
    shown: list[list[str]] | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """Packet + admin key; item i shows `shown[i]` condition keys (default all). Returns sha, items."""
    items: list[dict[str, Any]] = []
    key_items: dict[str, Any] = {}
    for idx, p in enumerate(pairs):
        item_id = f"J{idx + 1:03d}"
        ckeys = shown[idx] if shown else [f"C{i}" for i in range(1, p.n + 1)]
        conds, kconds = [], {}
        for ck in ckeys:
            pages = [
                {"page_key": f"{item_id}-{ck}-{letters(j)}", "text": page_text(p.doc_id, pg)}
                for j, pg in enumerate(p.pool(ck))
            ]
            conds.append(
                {
                    "condition_key": ck,
                    "name": f"name {ck}",
                    "requirement": "r",
                    "counts": [],
                    "does_not_count": [],
                    "note": "",
                    "pages": pages,
                }
            )
            kconds[ck] = {
                "condition_id": f"{p.query_id}-c{ck[1:]}",
                "construction_pages": [],
                "pages": {
                    f"{item_id}-{ck}-{letters(j)}": {"page": pg, "routes": {}, "fused_rank": j + 1}
                    for j, pg in enumerate(p.pool(ck))
                },
            }
        items.append({"item_id": item_id, "information_need": "need", "conditions": conds})
        key_items[item_id] = {
            "query_id": p.query_id,
            "doc_id": p.doc_id,
            "n": p.n,
            "grade": p.grade,
            "label": "gold" if p.grade == p.n else "subset",
            "release": p.release,
            "source": p.source,
            "status": p.status,
            "conditions": kconds,
        }
    packet = {
        "format": "evaudit-packet",
        "version": 1,
        "packet_id": name,
        "kind": kind,
        "rule": "rule",
        "quote_rule": {"min_words": 3, "min_chars": 12},
        "items": items,
    }
    data = (json.dumps(packet, indent=2, sort_keys=True) + "\n").encode()
    sha = hashlib.sha256(data).hexdigest()
    key = {
        "format": "evaudit-admin-key",
        "version": 1,
        "packet_id": name,
        "packet_sha256": sha,
        "kind": kind,
        "params": {},
        "sampling": {},
        "items": key_items,
    }
    kbytes = (json.dumps(key, indent=2, sort_keys=True) + "\n").encode()
    save_packet(project, name, kind, data, kbytes, len(items), {})  # files + registry row
    return sha, items


def write_journal(
    project: Project,
    packet: str,
    sha: str,
    annotator: str,
    answers: dict[str, dict[str, list[str] | None]],
    items: list[dict[str, Any]],
    unclear: bool = False,
) -> Path:
    """answers: item_id -> condition key -> selected page keys ([] = no, None = unanswered).

    Conditions not listed are answered no. The quote of a page is its text.
    """
    texts = {
        pg["page_key"]: pg["text"] for it in items for c in it["conditions"] for pg in c["pages"]
    }
    path = project.journal_dir(packet) / f"{annotator}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        for seq, it in enumerate(items, start=1):
            if it["item_id"] not in answers:
                continue
            given = answers[it["item_id"]]
            conds = {}
            for c in it["conditions"]:
                sel = given.get(c["condition_key"], [])
                if sel is None:
                    conds[c["condition_key"]] = {"answer": None, "pages": [], "quotes": {}}
                elif sel:
                    conds[c["condition_key"]] = {
                        "answer": "yes",
                        "pages": sel,
                        "quotes": {k: texts.get(k, "not on the page at all") for k in sel},
                    }
                else:
                    conds[c["condition_key"]] = {"answer": "no", "pages": [], "quotes": {}}
            line = {
                "seq": seq,
                "ts": "2026-01-01T00:00:00+00:00",
                "annotator": annotator,
                "packet_id": packet,
                "packet_sha256": sha,
                "item_id": it["item_id"],
                "conditions": conds,
                "unclear": unclear,
                "comment": "",
                "complete": True,
            }
            fh.write(json.dumps(line, sort_keys=True) + "\n")
    return path
