"""A hand-built project for the app tests: packet + admin key per docs/formats.md.

Used until (and alongside) the real packet builder: tests of the app must not
depend on sampling/routing details, only on the file formats.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

from campaign import store
from campaign.init import init_project
from campaign.packets import save_packet
from campaign.project import Project

PASSWORD = "admin-pass-123"
RULE = (
    "Answer yes only if a displayed page itself establishes the requirement. Related text, "
    "outside knowledge and inference do not count."
)
WORDS = [
    "the",
    "survey",
    "reports",
    "household",
    "income",
    "growth",
    "across",
    "rural",
    "districts",
    "while",
    "the",
    "committee",
    "reviewed",
    "irrigation",
    "budgets",
    "and",
    "school",
    "enrolment",
    "figures",
    "for",
    "the",
    "fiscal",
    "year",
    "with",
    "measured",
    "outcomes",
    "in",
    "health",
    "clinics",
    "roads",
    "and",
    "water",
    "supply",
    "programmes",
]


@dataclass
class Fixture:
    project: Project
    packet_id: str
    # page_key -> sentence that is on that page (a valid quote)
    quotes: dict[str, str]
    secret_values: list[str]  # admin-key values that must never reach an annotator


def page_text(rng: random.Random, marker: str, chars: int) -> tuple[str, str]:
    """Filler text with one distinctive sentence; returns (text, sentence)."""
    sentence = f"The report states that programme {marker} met its stated target in full."
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < chars:
        words.append(rng.choice(WORDS))
    cut = len(words) // 2
    text = " ".join(words[:cut]) + ".\n" + sentence + "\n" + " ".join(words[cut:]) + "."
    return text, sentence


def build(
    root: Path,
    *,
    items: int = 3,
    conditions: int = 2,
    pages: int = 3,
    chars: int = 400,
    packet_id: str = "initial",
    kind: str = "initial",
    pdf_dir: Path | None = None,
) -> Fixture:
    project, _ = init_project(root, admin_password=PASSWORD)
    rng = random.Random(7)
    quotes: dict[str, str] = {}
    key_items: dict[str, dict] = {}
    pkt_items = []
    secrets = []
    docs: dict[str, Path] = {}
    for i in range(1, items + 1):
        item_id = f"J{i:03d}"
        doc_id = f"DOCSECRET{i:03d}"
        query_id = f"QSECRET{i:03d}"
        secrets += [doc_id, query_id]
        conds = []
        key_conds = {}
        for c in range(1, conditions + 1):
            ckey = f"C{c}"
            plist = []
            key_pages = {}
            for p in range(pages):
                pkey = f"{item_id}-{ckey}-{chr(65 + p)}"
                text, sentence = page_text(rng, f"{item_id.lower()}{ckey.lower()}{p}", chars)
                quotes[pkey] = sentence
                plist.append({"page_key": pkey, "text": text})
                key_pages[pkey] = {
                    "page": c * 10 + p + 1,
                    "routes": {"bm25": p + 1},
                    "fused_rank": p + 1,
                }
            conds.append(
                {
                    "condition_key": ckey,
                    "name": f"Condition {c} of item {i}",
                    "requirement": f"The document reports that programme {c} met its target.",
                    "counts": ["an explicit statement that the target was met"],
                    "does_not_count": ["plans, intentions or targets without outcomes"],
                    "note": "Judge only the displayed page text.",
                    "pages": plist,
                }
            )
            key_conds[ckey] = {
                "condition_id": f"CONDSECRET{i}{c}",
                "construction_pages": [c * 10 + 1],
                "pages": key_pages,
            }
            secrets.append(f"CONDSECRET{i}{c}")
        pkt_items.append(
            {
                "item_id": item_id,
                "information_need": f"Find reports where programmes 1 to {conditions} "
                f"met their targets (need {i}).",
                "conditions": conds,
            }
        )
        key_items[item_id] = {
            "query_id": query_id,
            "doc_id": doc_id,
            "n": conditions,
            "grade": 1,
            "label": "subset",
            "release": "RELSECRET",
            "source": "SRCSECRET",
            "status": None,
            "conditions": key_conds,
        }
        if pdf_dir is not None:
            docs[doc_id] = _pdf(pdf_dir / f"{doc_id}.pdf", pkt_items[-1])
    secrets += ["RELSECRET", "SRCSECRET"]
    packet = {
        "format": "evaudit-packet",
        "version": 1,
        "packet_id": packet_id,
        "kind": kind,
        "rule": RULE,
        "quote_rule": {"min_words": 3, "min_chars": 12},
        "items": pkt_items,
    }
    pbytes = _json_bytes(packet)
    sha = hashlib.sha256(pbytes).hexdigest()
    key = {
        "format": "evaudit-admin-key",
        "version": 1,
        "packet_id": packet_id,
        "packet_sha256": sha,
        "kind": kind,
        "params": {"seed": 7, "salt": "SALTSECRET"},
        "sampling": {},
        "items": key_items,
    }
    # Registered like a built packet: files and the registry row (the one list of packets).
    save_packet(project, packet_id, kind, pbytes, _json_bytes(key), len(pkt_items), {})
    if docs:
        with store.transaction(project.store_path) as con:
            for doc_id, path in docs.items():
                con.execute(
                    "INSERT INTO documents VALUES (?, ?, 'pdf', '', 40, '')", [doc_id, str(path)]
                )
    return Fixture(project, packet_id, quotes, secrets)


def _json_bytes(obj: object) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _pdf(path: Path, item: dict) -> Path:
    """A PDF whose page N carries the text of the packet page that the key maps to N."""
    import pymupdf

    path.parent.mkdir(parents=True, exist_ok=True)
    doc = pymupdf.open()
    by_page: dict[int, str] = {}
    for c, cond in enumerate(item["conditions"], start=1):
        for p, page in enumerate(cond["pages"]):
            by_page[c * 10 + p + 1] = page["text"]
    for n in range(1, 41):
        page = doc.new_page()
        text = by_page.get(n, f"blank page {n}")
        page.insert_textbox(pymupdf.Rect(40, 40, 560, 800), text, fontsize=9)
    doc.save(path)
    return path


def packet_json(fx: Fixture) -> dict:
    return json.loads(fx.project.packet_path(fx.packet_id).read_text())
