"""`evaudit responses import|export`: response exports (`evaudit-responses`, docs/formats.md)
and their import into the journal; the app's "download my answers" is `session_export`.

An export holds one annotator's latest state per item. Import validates the
whole file first (packet hash, annotator, item ids, condition keys, page keys,
quotes via `vocabulary.gates`) and reports every problem at once; only a clean
file is appended to the annotator's journal, one line per changed item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign import journal
from campaign.annotation import AnnotatorSession, ItemState, Packet, load_packet, record
from campaign.project import Project, as_project, now_iso, write_json_atomic
from campaign.registry import read_registry
from vocabulary.errors import InputError, InputErrors
from vocabulary.gates import ANSWERS, check_condition
from vocabulary.jsonread import json_document
from vocabulary.textnorm import quote_in_page

RESPONSES_FORMAT = "evaudit-responses"
ITEM_FIELDS = ("conditions", "unclear", "comment", "complete")


def build_export(packet: Packet, annotator: str, latest: Mapping[str, Mapping[str, Any]]) -> dict:
    """The export document from the annotator's latest journal line per item."""
    items = {
        item_id: {k: latest[item_id].get(k) for k in ITEM_FIELDS}
        for item_id in packet.item_ids
        if item_id in latest
    }
    return {
        "format": RESPONSES_FORMAT,
        "version": 1,
        "packet_id": packet.packet_id,
        "packet_sha256": packet.sha256,
        "annotator": annotator,
        "exported": now_iso(),
        "items": items,
    }


def session_export(session: AnnotatorSession) -> dict:
    packet = session.packet
    read = journal.read_stream(
        session.journal_path,
        packet.sha256,
        packet.item_ids,
        session.annotator,
        backend=session.backend,  # the session's backend when it holds one
    )
    return build_export(packet, session.annotator, read.latest)


def export_responses(project: Project, packet_id: str, annotator: str) -> dict:
    path = project.packet_path(packet_id)
    if not path.is_file():
        raise InputError(f"no packet named {packet_id!r}", file=path, hint="check the name")
    if annotator not in read_registry(project):
        raise InputError(
            f"no annotator named {annotator!r}",
            file=project.annotators_path,
            hint="see `evaudit annotator list DIR`",
        )
    return session_export(AnnotatorSession.for_project(project, packet_id, annotator))


def _check_header(obj: Any, project: Project, path: Path) -> tuple[list[InputError], Packet | None]:
    errs: list[InputError] = []

    def bad(msg: str, hint: str | None = None) -> None:
        errs.append(InputError(msg, file=path, hint=hint))

    if not isinstance(obj, dict):
        bad("a response export must be a JSON object")
        return errs, None
    if obj.get("format") != RESPONSES_FORMAT:
        bad(f"format must be {RESPONSES_FORMAT!r}, not {obj.get('format')!r}")
    if obj.get("version") != 1:
        bad(f"unsupported version {obj.get('version')!r}", "this evaudit reads version 1")
    packet_id = obj.get("packet_id")
    packet = None
    if not isinstance(packet_id, str) or not project.packet_path(packet_id).is_file():
        bad(f"unknown packet {packet_id!r}", "the export must come from a packet of this project")
    else:
        packet = load_packet(project.packet_path(packet_id))
        if obj.get("packet_sha256") != packet.sha256:
            bad(
                f"packet hash {obj.get('packet_sha256')!r} does not match packet {packet_id} "
                f"({packet.sha256})",
                "the answers were given on a different version of this packet",
            )
    people = read_registry(project)
    name = obj.get("annotator")
    person = people.get(name) if isinstance(name, str) else None
    if person is None:
        bad(f"unknown annotator {name!r}", "add them with `evaudit annotator add`")
    elif person.get("revoked"):
        bad(f"annotator {name!r} is revoked")
    elif isinstance(packet_id, str) and packet_id not in (person.get("packets") or []):
        bad(f"annotator {name!r} is not assigned to packet {packet_id!r}")
    if not isinstance(obj.get("items"), dict):
        bad("'items' must be an object keyed by item id")
    return errs, packet


def _check_item(
    item_id: str, body: Any, packet: Packet, path: Path
) -> tuple[list[InputError], ItemState | None]:
    errs: list[InputError] = []

    def bad(msg: str) -> None:
        errs.append(InputError(f"item {item_id}: {msg}", file=path))

    if item_id not in packet.item_ids:
        bad(f"not an item of packet {packet.packet_id}")
        return errs, None
    if not isinstance(body, dict) or not isinstance(body.get("conditions"), dict):
        bad("needs a 'conditions' object")
        return errs, None
    pools = packet.pools(item_id)
    for ckey, cond in body["conditions"].items():
        where = f"condition {ckey}"
        if ckey not in pools:
            bad(f"{where} is not a condition of this item ({', '.join(pools)})")
            continue
        if not isinstance(cond, dict):
            bad(f"{where} must be an object")
            continue
        answer = cond.get("answer")
        if answer is not None and answer not in ANSWERS:
            bad(f"{where}: answer must be yes, no or null, not {answer!r}")
        pages, quotes = cond.get("pages", []), cond.get("quotes", {})
        if not isinstance(pages, list) or not all(isinstance(p, str) for p in pages):
            bad(f"{where}: 'pages' must be a list of page keys")
            pages = []
        if not isinstance(quotes, dict) or not all(isinstance(q, str) for q in quotes.values()):
            bad(f"{where}: 'quotes' must map page keys to text")
            quotes = {}
        for pkey in pages:
            if pkey not in pools[ckey]:
                bad(f"{where}: page {pkey} is not in this condition's candidate pool")
        for pkey, quote in quotes.items():
            if pkey not in pools[ckey]:
                if pkey not in pages:
                    bad(f"{where}: quote for page {pkey}, which is not in the candidate pool")
            elif quote.strip() and not quote_in_page(quote, pools[ckey][pkey]):
                bad(f"{where}: page {pkey}: the quote is not on this page ({quote[:60]!r})")
    for key in ("unclear",):
        if key in body and not isinstance(body[key], bool):
            bad(f"'{key}' must be true or false")
    if "comment" in body and not isinstance(body["comment"], str | type(None)):
        bad("'comment' must be text")
    if errs:
        return errs, None
    state = ItemState.from_line(body)
    if body.get("complete") is True:
        for ckey, pool in pools.items():
            for msg in check_condition(state.answer(ckey), pool, packet.quote_rule):
                bad(f"marked complete but condition {ckey} fails the gates: {msg}")
    return errs, state


def import_responses(project: Project, path: Path) -> dict[str, Any]:
    """Validate a response export fully, then append its changed items to the journal."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError("file not found", file=path) from exc
    obj = json_document(
        text,
        "not valid JSON",
        path,
        hint="a quote or comment may hold a raw control character (a tab or line break "
        "copied from a PDF): write it as \\t or \\n, or export the file again",
    )
    errs, packet = _check_header(obj, project, Path(path))
    states: dict[str, ItemState] = {}
    if packet is not None and isinstance(obj.get("items"), dict):
        for item_id, body in obj["items"].items():
            item_errs, state = _check_item(str(item_id), body, packet, Path(path))
            errs.extend(item_errs)
            if state is not None:
                states[str(item_id)] = state
    if errs:
        raise InputErrors(errs)
    assert packet is not None
    annotator = str(obj["annotator"])
    session = AnnotatorSession(
        packet,
        annotator,
        journal.journal_path(project.journal_dir(packet.packet_id), annotator),
        backend=journal.backend_of(project, packet.packet_id),
    )
    current = session.restore()
    imported = unchanged = 0
    for item_id in packet.item_ids:  # packet order, so the journal reads naturally
        if item_id not in states:
            continue
        new = record(packet, annotator, item_id, states[item_id])
        old = current.get(item_id)
        if old is not None and record(packet, annotator, item_id, old) == new:
            unchanged += 1
            continue
        session.save(item_id, states[item_id])
        imported += 1
    complete = sum(
        record(packet, annotator, i, s)["complete"] for i, s in {**current, **states}.items()
    )
    return {
        "packet_id": packet.packet_id,
        "annotator": annotator,
        "items_in_file": len(states),
        "imported": imported,
        "unchanged": unchanged,
        "complete": complete,
        "total": len(packet.items),
        "journal": str(session.journal_path),
    }


@dataclass(frozen=True)
class ImportReport:
    """`responses import`: what was appended to which journal."""

    packet_id: str
    annotator: str
    items_in_file: int
    imported: int  # items appended (new or changed)
    unchanged: int  # items equal to the journal's latest line, not appended
    complete: int  # the journal's complete items after the import
    total: int  # the packet's items
    journal: str

    def to_json(self) -> dict[str, Any]:
        return {
            "packet_id": self.packet_id,
            "annotator": self.annotator,
            "items_in_file": self.items_in_file,
            "imported": self.imported,
            "unchanged": self.unchanged,
            "complete": self.complete,
            "total": self.total,
            "journal": self.journal,
        }

    def table(self) -> str:
        return (
            f"{self.annotator} on {self.packet_id}: {self.imported} items appended, "
            f"{self.unchanged} unchanged; {self.complete}/{self.total} complete"
        )


def responses_import(project: Project | Path, path: Path) -> ImportReport:
    """`evaudit responses import`: validate the file fully, then append it."""
    done = import_responses(as_project(project), path)
    return ImportReport(
        packet_id=done["packet_id"],
        annotator=done["annotator"],
        items_in_file=done["items_in_file"],
        imported=done["imported"],
        unchanged=done["unchanged"],
        complete=done["complete"],
        total=done["total"],
        journal=done["journal"],
    )


@dataclass(frozen=True)
class ExportReport:
    """`responses export`: the document, and the file it was written to (None: the caller
    prints `to_json()`)."""

    doc: dict[str, Any]
    out: Path | None

    def to_json(self) -> dict[str, Any]:
        return self.doc

    def table(self) -> str:
        return f"wrote {self.out} ({len(self.doc['items'])} items)"


def responses_export(
    project: Project | Path, packet_id: str, annotator: str, out: Path | None = None
) -> ExportReport:
    """`evaudit responses export`: NAME's latest answers on PACKET, written to `out` if
    given (atomically, 0600)."""
    doc = export_responses(as_project(project), packet_id, annotator)
    if out is not None:
        write_json_atomic(out, doc)
    return ExportReport(doc, out)
