"""Edge I/O for agreement, integrity, repair, adjudication and finalize.

Reads a packet + its admin key + the journals + overrides + the store into the
records `scorers/` and `policies/` take (all pure), and writes the override
log. Admin only: it opens admin keys.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaign import store
from campaign.journal import read_streams
from campaign.packets import PACKET_FORMAT, list_packets, read_admin_key
from campaign.project import Project
from campaign.stream_identity import identity_groups
from policies.revision import QueryInfo
from scorers.integrity import collapse
from scorers.responses import ConditionInfo, ItemInfo, ItemResponse, PacketInfo, evaluate_item
from vocabulary.errors import InputError
from vocabulary.gates import QuoteRule
from vocabulary.jsonread import json_document


def packet_kinds(project: Project) -> dict[str, str]:
    """packet name -> kind, for every registered packet (`campaign.packets.list_packets`)."""
    return {row.name: row.kind for row in sorted(list_packets(project), key=lambda r: r.name)}


def load_packet_info(project: Project, name: str) -> PacketInfo:
    """The packet joined with its admin key (pairs, grades, strata, physical pages)."""
    ppath, kpath = project.packet_path(name), project.key_path(name)
    if not ppath.is_file():
        known = ", ".join(packet_kinds(project)) or "none yet"
        raise InputError(f"unknown packet {name!r}", file=ppath, hint=f"known packets: {known}")
    data = ppath.read_bytes()
    packet = json_document(data, "corrupt packet", ppath)
    key = read_admin_key(project, name)
    digest = hashlib.sha256(data).hexdigest()
    if not isinstance(packet, dict) or packet.get("format") != PACKET_FORMAT:
        raise InputError("not an evaudit packet", file=ppath)
    if key.get("packet_sha256") != digest:
        raise InputError(
            "admin key does not belong to this packet (packet_sha256 differs)",
            file=kpath,
            hint="restore the packet file that was built with this key",
        )
    qr = packet.get("quote_rule") or {}
    rule = QuoteRule(
        int(qr.get("min_words", QuoteRule.min_words)), int(qr.get("min_chars", QuoteRule.min_chars))
    )
    items = []
    for pit in packet.get("items", []):
        item_id = pit["item_id"]
        kit = key.get("items", {}).get(item_id)
        if kit is None:
            raise InputError(f"item {item_id} is missing from the admin key", file=kpath)
        conds = []
        for pc in pit.get("conditions", []):
            kc = kit["conditions"][pc["condition_key"]]
            conds.append(
                ConditionInfo(
                    key=pc["condition_key"],
                    condition_id=str(kc["condition_id"]),
                    pool={p["page_key"]: p["text"] for p in pc.get("pages", [])},
                    page_numbers={k: int(v["page"]) for k, v in kc.get("pages", {}).items()},
                )
            )
        items.append(
            ItemInfo(
                item_id=item_id,
                query_id=str(kit["query_id"]),
                doc_id=str(kit["doc_id"]),
                n=int(kit["n"]),
                grade=int(kit.get("grade") or 0),
                release=str(kit.get("release") or ""),
                source=str(kit.get("source") or ""),
                status=kit.get("status"),
                conditions=tuple(conds),
            )
        )
    return PacketInfo(name, str(packet.get("kind", "")), digest, tuple(items), rule)


@dataclass(frozen=True)
class StreamStatus:
    """How far one stream is through the packet. Only a complete stream (every item answered
    in full) counts by default; an incomplete one is listed with these counts."""

    name: str
    items: int  # items in the packet
    saved: int  # items with a saved line
    complete: int  # items answered in full (yes/no on every displayed condition)

    @property
    def is_complete(self) -> bool:
        return self.items > 0 and self.complete == self.items

    def counts(self) -> str:
        return f"{self.complete} of {self.items} items complete"

    def to_json(self) -> dict[str, Any]:
        return {
            "stream": self.name,
            "items": self.items,
            "items_saved": self.saved,
            "items_complete": self.complete,
            "complete": self.is_complete,
        }


@dataclass(frozen=True)
class Streams:
    responses: dict[str, dict[str, ItemResponse]]  # after collapsing duplicates
    all_responses: dict[str, dict[str, ItemResponse]]
    duplicates: list[list[str]]
    read_problems: dict[str, dict[str, int]]
    files: list[Path]
    status: dict[str, StreamStatus] = field(default_factory=dict)

    def without(self, name: str | None) -> Streams:
        """The same streams with `name` out of the voting pool (the tie-break stream)."""
        if name is None:
            return self
        pool = {k: v for k, v in self.responses.items() if k != name}
        return Streams(
            pool, self.all_responses, self.duplicates, self.read_problems, self.files, self.status
        )


def stream_status(packet: PacketInfo, name: str, stream: dict[str, ItemResponse]) -> StreamStatus:
    complete = sum(
        1
        for it in packet.items
        if (resp := stream.get(it.item_id)) is not None and resp.answered_all(it)
    )
    return StreamStatus(name, len(packet.items), len(stream), complete)


def load_streams(project: Project, packet: PacketInfo) -> Streams:
    """Every annotator's latest state per item, by the journal's one rule (`read_stream`).
    Duplicates are found by identity (`campaign.stream_identity`), never by equal answers."""
    jdir = project.journal_dir(packet.packet_id)
    reads = read_streams(jdir, packet.sha256, packet.index)
    responses: dict[str, dict[str, ItemResponse]] = {
        name: {
            i: evaluate_item(name, packet.index[i], line, packet.rule)
            for i, line in read.latest.items()
        }
        for name, read in reads.items()
    }
    problems = {name: read.problems() for name, read in reads.items()}
    files = [read.path for read in reads.values()]
    status = {name: stream_status(packet, name, stream) for name, stream in responses.items()}
    groups = identity_groups(
        project,
        jdir,
        responses,
        {n: len(s) for n, s in responses.items()},
        {n: read.other_packet_lines for n, read in reads.items()},
    )
    return Streams(
        dict(collapse(responses, groups)),  # type: ignore[arg-type]
        responses,
        groups,
        problems,
        files,
        status,
    )


def read_ratings_csv(path: Path) -> list[tuple[Hashable, Hashable, Hashable]]:
    """A `unit,rater,value` CSV (header required); integer values if every value is one."""
    if not path.is_file():
        raise InputError("ratings file not found", file=path, hint="check the path")
    rows: list[tuple[str, str, str, int]] = []
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None or [h.strip().lower() for h in header[:3]] != ["unit", "rater", "value"]:
            raise InputError("header must be unit,rater,value", file=path, line=1)
        seen: dict[tuple[str, str], int] = {}
        for lineno, rec in enumerate(reader, start=2):
            if not rec or not any(x.strip() for x in rec):
                continue
            if len(rec) < 3 or not all(x.strip() for x in rec[:3]):
                raise InputError(
                    "expected unit,rater,value (all non-empty)", file=path, line=lineno
                )
            unit, rater, value = (x.strip() for x in rec[:3])
            if (unit, rater) in seen:
                raise InputError(
                    f"rater {rater!r} rates unit {unit!r} twice (first on line {seen[(unit, rater)]})",
                    file=path,
                    line=lineno,
                    hint="keep one rating per unit and rater",
                )
            seen[(unit, rater)] = lineno
            rows.append((unit, rater, value, lineno))
    if not rows:
        raise InputError("no ratings", file=path, hint="add unit,rater,value rows")

    def as_int(text: str) -> int | None:
        try:
            return int(text)
        except ValueError:
            return None

    numeric = all(as_int(v) is not None for _, _, v, _ in rows)
    return [(u, r, as_int(v) if numeric else v) for u, r, v, _ in rows]


def store_snapshot(
    project: Project,
) -> tuple[dict[tuple[str, str], int], dict[str, QueryInfo], str]:
    """Benchmark qrels, queries (n, release, source) and a SHA-256 of both (canonical rows)."""
    qrows, rrows = store.benchmark_rows(project.store_path)
    queries = {str(q): QueryInfo(int(n), str(r), str(s)) for q, n, r, s in qrows}
    qrels = {(str(q), str(d)): int(g) for q, d, g in rrows}
    digest = hashlib.sha256(json.dumps([qrows, rrows], default=str).encode()).hexdigest()
    return qrels, queries, digest
