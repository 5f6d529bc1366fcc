"""Edge I/O for agreement, integrity, repair, adjudication and finalize.

Reads a packet + its admin key + the journals + overrides + the store into the
records `scorers/` and `policies/` take (all pure), and writes the override
log. Admin only: it opens admin keys.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shlex
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaign import store
from campaign.journal import read_streams
from campaign.packets import PACKET_FORMAT, list_packets, read_admin_key
from campaign.project import Project
from campaign.raters import BY_FLAG, BY_TWO_COMPLETE, raters_path, store_raters, stored_raters
from campaign.stream_identity import identity_groups
from policies.revision import QueryInfo
from scorers.integrity import collapse
from scorers.responses import ConditionInfo, ItemInfo, ItemResponse, PacketInfo, evaluate_item
from vocabulary.errors import InputError
from vocabulary.gates import QuoteRule
from vocabulary.jsonread import json_loads


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
    try:
        packet = json_loads(data)
    except json.JSONDecodeError as exc:
        raise InputError(f"corrupt packet ({exc.msg})", file=ppath, line=exc.lineno) from exc
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


GIVEN = "given"
STORED = "stored"
TWO_COMPLETE = BY_TWO_COMPLETE
ALL_COMPLETE = "all complete streams"


@dataclass(frozen=True)
class RaterChoice:
    """The streams a command uses, and why: named with a rater flag, the choice stored for
    the packet (`campaign.raters`), or the complete streams (duplicates collapsed). Streams
    not used are listed with why (`left_out`). Every report prints both."""

    names: list[str]
    chosen_by: str  # GIVEN, STORED, TWO_COMPLETE or ALL_COMPLETE
    without_answers: list[str]  # journals with no saved item of this packet (left out)
    left_out: list[dict[str, Any]] = field(default_factory=list)
    stored: dict[str, Any] | None = None  # the stored choice, when there is one

    def to_json(self) -> dict[str, Any]:
        return {
            "raters": self.names,
            "raters_chosen_by": self.chosen_by,
            "raters_stored": self.stored,
            "raters_without_answers": self.without_answers,
            "streams_left_out": self.left_out,
        }


def describe_raters(obj: dict[str, Any], word: str = "raters") -> str:
    """One line for text output, from a report's `raters*` keys."""
    how = obj["raters_chosen_by"]
    stored = obj.get("raters_stored") or {}
    if how == GIVEN:
        why = "named with --raters"
    elif how == STORED:
        why = f"stored, chosen by {stored.get('chosen_by', 'evaudit raters')}"
    elif how == TWO_COMPLETE and stored:
        why = "the two complete streams; stored for the packet"
    else:
        why = f"{how}; choose others with `evaudit raters`"
    line = f"{word}: {', '.join(obj['raters'])} ({why})"
    left = [s for s in obj.get("streams_left_out") or [] if s["reason"] != "no answers"]
    if left:
        line += "; left out: " + ", ".join(f"{s['stream']} ({_why_out(s)})" for s in left)
    if obj.get("raters_without_answers"):
        line += f"; no answers yet: {', '.join(obj['raters_without_answers'])}"
    for group in obj.get("duplicate_streams") or []:
        line += f"; identical streams collapsed to {group[0]}: {', '.join(group)}"
    return line


def _why_out(s: dict[str, Any]) -> str:
    if s["reason"] == "incomplete":
        return f"incomplete: {s['items_complete']} of {s['items']} items complete"
    return str(s["reason"])


def _cmd(project: Project, packet: str, names: list[str]) -> str:
    """A runnable `evaudit raters` line (the hint of every rater error)."""
    return " ".join(
        ["evaudit", "raters", shlex.quote(str(project.root)), shlex.quote(packet), ",".join(names)]
    )


def _left_out(streams: Streams, names: list[str]) -> list[dict[str, Any]]:
    dup_of = {n: g[0] for g in streams.duplicates for n in g[1:]}
    out = []
    for name in sorted(streams.all_responses):
        if name in names:
            continue
        st = streams.status.get(name)
        row = st.to_json() if st is not None else {"stream": name}
        if name in dup_of:
            row["reason"] = f"identical to {dup_of[name]}"
        elif st is not None and st.saved == 0:
            row["reason"] = "no answers"
        elif st is not None and not st.is_complete:
            row["reason"] = "incomplete"
        else:
            row["reason"] = "not chosen"
        out.append(row)
    return out


def parse_raters(text: str, flag: str = "--raters") -> list[str]:
    names = [r.strip() for r in text.split(",") if r.strip()]
    if len(set(names)) != len(names):
        raise InputError(f"a rater is named twice in {flag}")
    return names


def pick_raters(
    project: Project,
    packet: PacketInfo,
    streams: Streams,
    raters: str | None,
    *,
    flag: str = "--raters",
    exactly: int | None = None,
    remember: bool = True,
) -> RaterChoice:
    """Which streams count. A flag (`raters`, as `flag` names it) must agree with the choice
    stored for the packet and is stored when none is; without one, the stored choice is used;
    without that, the complete streams (duplicates collapsed). An initial packet's two (or
    any command's `exactly=2`) are stored when exactly two streams are complete. `remember`
    False (the admin page) reads and never writes the choice, and a flag is a view."""
    name = packet.packet_id
    stored = stored_raters(project, name, packet.sha256)
    stored_json = stored.to_json() if stored is not None else None
    without = sorted(n for n, s in streams.status.items() if s.saved == 0)
    complete = sorted(n for n in streams.responses if streams.status[n].is_complete)
    two = exactly == 2 or packet.kind in ("initial", "")
    if raters:
        names = parse_raters(raters, flag)
        missing = [r for r in names if r not in streams.all_responses]
        if missing:
            have = ", ".join(sorted(streams.all_responses)) or "none"
            raise InputError(
                f"no journal for rater(s) {', '.join(missing)} in packet {name!r}",
                hint=f"journals found: {have}",
            )
        if stored is not None and remember and sorted(names) != sorted(stored.raters):
            raise InputError(
                f"{flag} {','.join(names)} contradicts the raters stored for packet {name!r}: "
                f"{', '.join(stored.raters)} (chosen by {stored.chosen_by})",
                hint=f"drop {flag} to use {','.join(stored.raters)}, or choose again with "
                f"`{_cmd(project, name, names)}`",
            )
        how = GIVEN
        if stored is None and remember and (len(names) == 2 or not two):
            stored_json = store_raters(project, name, packet.sha256, names, BY_FLAG).to_json()
    elif stored is not None:
        names = list(stored.raters)
        gone = [r for r in names if r not in streams.all_responses]
        if gone:
            raise InputError(
                f"the raters stored for packet {name!r} ({', '.join(names)}) include "
                f"{', '.join(gone)}, who has no journal",
                file=raters_path(project),
                hint=f"choose again with `{_cmd(project, name, complete[:2] or ['A', 'B'])}`",
            )
        how = STORED
    elif two and len(complete) != 2 and (exactly == 2 or len(complete) < 2):
        raise _not_two(project, packet, streams, complete, exactly)
    else:
        names = complete
        how = TWO_COMPLETE if len(names) == 2 else ALL_COMPLETE
        if two and len(names) == 2 and remember:
            stored_json = store_raters(
                project, name, packet.sha256, names, BY_TWO_COMPLETE
            ).to_json()
    if exactly is not None and len(names) != exactly:
        raise InputError(
            f"packet {name!r} needs exactly {exactly} raters, "
            f"{'named' if how == GIVEN else 'stored'}: {', '.join(names)}",
            hint=f"choose {exactly} with `{_cmd(project, name, names[:exactly])}`",
        )
    if len(names) < 2:
        raise _not_two(project, packet, streams, complete, exactly)
    return RaterChoice(names, how, without, _left_out(streams, names), stored_json)


class NoRaters(InputError):
    """No usable rater choice yet (too few complete streams, or not exactly two where two
    are needed): `finalize` keeps a later stage's pairs pending instead of failing."""


def _not_two(
    project: Project, packet: PacketInfo, streams: Streams, complete: list[str], exactly: int | None
) -> InputError:
    """No usable default: fewer than two complete streams, or not exactly two where two are
    needed. The hint is a runnable `evaudit raters` line."""
    name = packet.packet_id
    partial = sorted(
        n for n in streams.responses if n not in complete and streams.status[n].saved > 0
    )
    counts = "; ".join(f"{n}: {streams.status[n].counts()}" for n in partial)
    found = f"{len(complete)} ({', '.join(complete) or 'none'})"
    suggest = (complete + partial)[:2]
    if exactly == 2 or len(complete) > 2:
        msg = f"packet {name!r} needs exactly 2 raters, found {found} complete streams"
    else:
        msg = (
            f"packet {name!r} needs at least two complete response streams "
            f"(or two chosen ones), found {found}"
        )
    if counts:
        msg += f"; incomplete: {counts}"
    if len(suggest) < 2:
        return NoRaters(msg, hint="wait for annotators or import responses")
    if len(complete) > 2:
        return NoRaters(msg, hint=f"choose two with `{_cmd(project, name, suggest)}`")
    return NoRaters(
        msg,
        hint=f"choose them with `{_cmd(project, name, suggest)}`, or wait until they finish",
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
