"""Which response streams count for a packet, and why (docs/workflow.md, "Which raters").

A rater flag (agreeing with the stored choice), else the choice stored for the packet
(`campaign.raters`), else the complete streams; an initial packet's two complete streams
are stored by the first command that uses them. Every refusal's hint is a runnable
`evaudit raters DIR PACKET A,B` line.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from audit_chain.campaign_io import Streams
from campaign.project import Project
from campaign.raters import BY_FLAG, BY_TWO_COMPLETE, raters_path, store_raters, stored_raters
from scorers.responses import PacketInfo
from vocabulary.errors import InputError

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


def check_journals(names: list[str], streams: Streams, packet: str) -> None:
    """Every named rater has a journal in `packet`, or an InputError lists those found."""
    missing = [n for n in names if n not in streams.all_responses]
    if missing:
        have = ", ".join(sorted(streams.all_responses)) or "none"
        raise InputError(
            f"no journal for rater(s) {', '.join(missing)} in packet {packet!r}",
            hint=f"journals found: {have}",
        )


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
        check_journals(names, streams, name)
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
