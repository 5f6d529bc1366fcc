"""A blinded packet as an annotator sees it and one annotator's stream on it.

Loading a packet file (parsed once per content hash), an item's draft (`ItemState`), the
journal line it saves as (`record`) and `AnnotatorSession`: one annotator's own journal on
one packet, restored by the journal's one rule and appended with fsync through
`campaign.journal`. The app's screen (`audit_app.session`) and the response files and
simulated panels of `services` share it, so a line means the same wherever it is written.
Nothing here reads the admin key, the campaign store or another person's journal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from campaign import journal
from campaign.project import Project
from vocabulary.errors import InputError
from vocabulary.gates import ConditionAnswer, QuoteRule, check_condition
from vocabulary.jsonread import json_document

PACKET_FORMAT = "evaudit-packet"


@dataclass(frozen=True)
class Packet:
    """A blinded packet as the annotator sees it, with its SHA-256 identity."""

    packet_id: str
    kind: str
    rule: str
    quote_rule: QuoteRule
    items: tuple[dict[str, Any], ...]
    sha256: str

    @property
    def item_ids(self) -> list[str]:
        return [str(it["item_id"]) for it in self.items]

    def index_of(self, item_id: str) -> int:
        return self._positions[item_id]

    def item(self, item_id: str) -> dict[str, Any]:
        return self.items[self.index_of(item_id)]

    def pools(self, item_id: str) -> dict[str, dict[str, str]]:
        """condition_key -> page_key -> displayed text (built once per packet; do not mutate)."""
        return self._pools[item_id]

    # Derived once per loaded packet and kept with it (the packet is immutable): every
    # rerun of the judging screen asks for pools and gate results of the same item.
    @cached_property
    def _positions(self) -> dict[str, int]:
        return {str(it["item_id"]): i for i, it in enumerate(self.items)}

    @cached_property
    def _pools(self) -> dict[str, dict[str, dict[str, str]]]:
        return {
            str(it["item_id"]): {
                str(c["condition_key"]): {str(p["page_key"]): str(p["text"]) for p in c["pages"]}
                for c in it["conditions"]
            }
            for it in self.items
        }

    @cached_property
    def card_items(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for it in self.items:
            texts: list[str] = []
            where: dict[str, int] = {}
            pages: dict[str, int] = {}
            conds = []
            for c in it["conditions"]:
                keys = []
                for p in c["pages"]:
                    text = str(p["text"])
                    if text not in where:
                        where[text] = len(texts)
                        texts.append(text)
                    pages[str(p["page_key"])] = where[text]
                    keys.append(str(p["page_key"]))
                conds.append(
                    {
                        "condition_key": str(c["condition_key"]),
                        "name": str(c.get("name") or ""),
                        "requirement": str(c.get("requirement") or ""),
                        "counts": [str(v) for v in c.get("counts") or []],
                        "does_not_count": [str(v) for v in c.get("does_not_count") or []],
                        "note": str(c.get("note") or ""),
                        "pages": keys,
                    }
                )
            item_id = str(it["item_id"])
            out[item_id] = {
                "item_id": item_id,
                "information_need": str(it.get("information_need") or ""),
                "conditions": conds,
                "pages": pages,
                "texts": texts,
            }
        return out

    @cached_property
    def _gates(self) -> dict[tuple[Any, ...], tuple[str, ...]]:
        return {}

    def condition_problems(self, item_id: str, ckey: str, ans: ConditionAnswer) -> tuple[str, ...]:
        """`vocabulary.gates.check_condition` for one answer, memoized per packet: the gate
        normalizes whole page texts, and an unchanged answer is re-checked on every rerun."""
        key = (item_id, ckey, ans.answer, ans.pages, tuple(sorted(ans.quotes.items())))
        hit = self._gates.get(key)
        if hit is None:
            if len(self._gates) > 20_000:  # bound the memo for very long sessions
                self._gates.clear()
            hit = tuple(check_condition(ans, self.pools(item_id)[ckey], self.quote_rule))
            self._gates[key] = hit
        return hit


def load_packet(path: Path) -> Packet:
    """Parse a packet file; parsed once per content hash and shared by every session."""
    data = path.read_bytes()
    return _parse_packet(data, hashlib.sha256(data).hexdigest(), str(path))


_PARSED: dict[str, Packet] = {}


def _parse_packet(data: bytes, sha256: str, where: str) -> Packet:
    cached = _PARSED.get(sha256)
    if cached is not None:
        return cached
    path = Path(where)
    obj = json_document(data, "packet is not valid JSON", path)
    if not isinstance(obj, dict) or obj.get("format") != PACKET_FORMAT:
        raise InputError("not an evaudit packet (format must be evaudit-packet)", file=path)
    rule = obj.get("quote_rule") or {}
    items = obj.get("items")
    if not isinstance(items, list):
        raise InputError("packet has no items list", file=path)
    packet = Packet(
        packet_id=str(obj.get("packet_id", path.stem)),
        kind=str(obj.get("kind", "initial")),
        rule=str(obj.get("rule", "")),
        quote_rule=QuoteRule(int(rule.get("min_words", 3)), int(rule.get("min_chars", 12))),
        items=tuple(items),
        sha256=sha256,
    )
    if len(_PARSED) > 16:
        _PARSED.clear()
    _PARSED[sha256] = packet
    return packet


@dataclass
class ItemState:
    """One item's draft: an answer per condition, the unclear flag and its comment."""

    answers: dict[str, ConditionAnswer] = field(default_factory=dict)
    unclear: bool = False
    comment: str = ""

    @classmethod
    def from_line(cls, line: Mapping[str, Any]) -> ItemState:
        conds = line.get("conditions") or {}
        return cls(
            answers={str(k): ConditionAnswer.from_json(v) for k, v in conds.items()},
            unclear=bool(line.get("unclear", False)),
            comment=str(line.get("comment") or ""),
        )

    def answer(self, ckey: str) -> ConditionAnswer:
        return self.answers.get(ckey, ConditionAnswer())


def problems(packet: Packet, item_id: str, state: ItemState) -> dict[str, list[str]]:
    """The gate messages per condition (as `vocabulary.gates.check_item`, memoized)."""
    return {
        ckey: list(packet.condition_problems(item_id, ckey, state.answer(ckey)))
        for ckey in packet.pools(item_id)
    }


def is_complete(packet: Packet, item_id: str, state: ItemState | None) -> bool:
    """Every condition passes the gates (as `vocabulary.gates.item_complete`, memoized)."""
    if state is None:
        return False
    return not any(
        packet.condition_problems(item_id, ckey, state.answer(ckey))
        for ckey in packet.pools(item_id)
    )


def record(packet: Packet, annotator: str, item_id: str, state: ItemState) -> dict[str, Any]:
    """The journal line body (seq and ts are added by `journal.append`)."""
    pools = packet.pools(item_id)
    return {
        "annotator": annotator,
        "packet_id": packet.packet_id,
        "packet_sha256": packet.sha256,
        "item_id": item_id,
        "conditions": {ck: state.answer(ck).to_json() for ck in pools},
        "unclear": state.unclear,
        "comment": state.comment if state.unclear or state.comment else "",
        "complete": is_complete(packet, item_id, state),
    }


@dataclass
class AnnotatorSession:
    """One annotator on one packet: their own journal only.

    The session holds the latest line per item it read or wrote, with each item's state
    and whether it is complete. `states()` asks the journal once whether it gained lines
    (its signature: a file's size and mtime, a stream's count and highest seq) and then
    reads only those lines, rebuilding only the items they touch; `complete()` and the
    screen's per-item status come from what it holds. So a rerun of a 200-item screen
    costs one signature check, not one per item, and a save costs its own line."""

    packet: Packet
    annotator: str
    journal_path: Path
    stale_lines: int = 0  # lines saved against another packet hash (ignored)
    # The journal's backend, resolved once by the holder of the project handle
    # (`for_project`, `use_backend`); None: looked up from the path on every call
    # (`journal.backend_for`), for callers that hold only paths.
    backend: journal.JournalBackend | None = field(default=None, repr=False)
    # The journal as last read: its signature, the read to continue from, and per item the
    # line its state came from (read or written here), the state and whether it is complete.
    _sig: tuple[int, int] | None = field(default=None, repr=False)
    _read: journal.StreamRead | None = field(default=None, repr=False)
    _lines: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    _states: dict[str, ItemState] = field(default_factory=dict, repr=False)
    _done: dict[str, bool] = field(default_factory=dict, repr=False)

    @classmethod
    def open(
        cls,
        packets_dir: Path,
        journals_dir: Path,
        packet_id: str,
        annotator: str,
        backend: journal.JournalBackend | None = None,
    ) -> AnnotatorSession:
        packet = load_packet(packets_dir / f"{packet_id}.json")
        path = journal.journal_path(journals_dir / packet_id, annotator)
        return cls(packet, annotator, path, backend=backend)

    @classmethod
    def for_project(cls, project: Project, packet_id: str, annotator: str) -> AnnotatorSession:
        """A session whose journal backend is the project handle's (`journal.backend_of`)."""
        return cls.open(
            project.packets_dir,
            project.journals_dir,
            packet_id,
            annotator,
            journal.backend_of(project, packet_id),
        )

    def use_project(self, project: Project) -> None:
        """Take the journal backend of this round trip's project handle (`use_backend`)."""
        self.use_backend(journal.backend_of(project, self.packet.packet_id))

    def use_backend(self, backend: journal.JournalBackend) -> None:
        """The backend of this round trip's project handle (the app opens one per page
        run and per round trip, so a migration by another process is seen at the next).
        A different backend than before drops what was read: the next `states()` reads
        the journal whole from there."""
        if backend != self.backend:
            if self.backend is not None:
                self._sig, self._read = None, None
                self._lines, self._states, self._done = {}, {}, {}
            self.backend = backend

    def _journal(self) -> journal.JournalBackend:
        if self.backend is not None:
            return self.backend
        return journal.backend_for(self.journal_path.parent)

    def restore(self) -> dict[str, ItemState]:
        """Every saved draft, by the journal's one rule (`campaign.journal.read_stream`).

        After the first read only the lines appended since are read (the result is that of
        a full read), and only the items whose latest line changed are rebuilt: after each
        save the journal has changed, and a long journal must not cost a full re-read (nor
        a rebuild of every item) per save."""
        read = journal.read_stream(
            self.journal_path,
            self.packet.sha256,
            self.packet.item_ids,
            self.annotator,
            since=self._read,
            backend=self._journal(),
        )
        self._read = read
        self.stale_lines = read.other_packet_lines
        changed = {
            item: line
            for item, line in read.latest.items()
            if self._lines.get(item) is not line and self._lines.get(item) != line
        }  # else unchanged since the last read, or the line saved here
        gone = [i for i in self._lines if i not in read.latest]  # a replaced journal
        if changed or gone:
            self._hold(changed, gone)
        return dict(self._states)

    def _hold(self, lines: Mapping[str, dict[str, Any]], gone: Collection[str] = ()) -> None:
        """Hold these items' latest lines. New dicts replace the held ones (a page run may
        be reading them in another thread while a callback saves): a copy of references,
        and only the items given are rebuilt."""
        held, states, done = dict(self._lines), dict(self._states), dict(self._done)
        for item in gone:
            del held[item], states[item], done[item]
        for item, line in lines.items():
            state = ItemState.from_line(line)
            held[item], states[item] = line, state
            done[item] = is_complete(self.packet, item, state)
        self._lines, self._states, self._done = held, states, done

    def save(self, item_id: str, state: ItemState) -> dict[str, Any]:
        """Append the item's full state and fsync; returns the durable line (with seq, ts).
        The session holds the line at once: it is the item's latest (its seq is the
        stream's next), so the screen's status is right without reading it back."""
        line = self._journal().append(
            self.journal_path.stem, record(self.packet, self.annotator, item_id, state)
        )
        self._hold({item_id: line})
        return line

    def _signature(self) -> tuple[int, int] | None:
        try:
            return self._journal().signature(self.journal_path.stem)  # file or db signature
        except OSError:
            # The journal database is unreachable: show what was last read; saves fail
            # and say so (audit_app.judging), and the next read after recovery re-reads.
            if self._sig is None and not self._states:
                raise
            return self._sig

    def states(self) -> dict[str, ItemState]:
        """The latest saved state per item, as the journal says now: one signature check,
        and a read of the new lines only when it changed."""
        sig = self._signature()
        if sig != self._sig or self._read is None or (sig is None and self._states):
            self.restore()
            self._sig = sig
        return self._states

    def complete(self, item_id: str) -> bool:
        """Whether the item is complete, as of the last `states()` (no journal access)."""
        if self._read is None and not self._states:
            self.states()
        return self._done.get(item_id, False)
