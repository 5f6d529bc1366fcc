"""A packet's size and expected annotation time, known before it is written, and the limit.

`packet build` blinds the packet in memory, measures it here, prints the figures (the
`announce` hook) and only then registers it, so a packet over `--max-packet-mb` is
refused with nothing written. The time is a stated assumption, not a measurement:
`--seconds-per-condition` (default 45 s) per condition decision, for one annotator
(each annotator answers the whole packet). 1 MB = 10^6 bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from vocabulary.errors import InputError

DEFAULT_MAX_PACKET_MB = 25.0  # the app and the offline HTML load the whole packet at once
DEFAULT_SECONDS_PER_CONDITION = 45.0


@dataclass(frozen=True)
class PacketPlan:
    name: str
    kind: str
    items: int
    conditions: int
    page_contexts: int
    packet_bytes: int
    seconds_per_condition: float
    max_packet_mb: float

    @property
    def packet_mb(self) -> float:
        return self.packet_bytes / 1e6

    @property
    def expected_minutes(self) -> float:
        return self.conditions * self.seconds_per_condition / 60.0

    def to_json(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "conditions": self.conditions,
            "page_contexts": self.page_contexts,
            "packet_bytes": self.packet_bytes,
            "packet_mb": round(self.packet_mb, 3),
            "max_packet_mb": self.max_packet_mb,
            "seconds_per_condition": self.seconds_per_condition,
            "expected_minutes_per_annotator": round(self.expected_minutes, 1),
        }

    def line(self) -> str:
        hours = self.expected_minutes / 60.0
        return (
            f"packet {self.name} ({self.kind}): {self.items} items, {self.conditions} condition "
            f"decisions, {self.page_contexts} page contexts, {self.packet_mb:.1f} MB "
            f"(limit {self.max_packet_mb:g} MB); expected annotation time "
            f"{self.expected_minutes:.0f} min ({hours:.1f} h) per annotator at "
            f"{self.seconds_per_condition:g} s per condition decision"
        )


def plan_for(
    name: str,
    kind: str,
    packet: dict[str, Any],
    data_len: int,
    seconds_per_condition: float,
    max_packet_mb: float,
) -> PacketPlan:
    conds = [c for it in packet["items"] for c in it["conditions"]]
    return PacketPlan(
        name,
        kind,
        len(packet["items"]),
        len(conds),
        sum(len(c["pages"]) for c in conds),
        data_len,
        seconds_per_condition,
        max_packet_mb,
    )


def check_limits(max_packet_mb: float, seconds_per_condition: float) -> None:
    if not max_packet_mb > 0:
        raise InputError(f"--max-packet-mb {max_packet_mb:g} must be > 0")
    if not seconds_per_condition > 0:
        raise InputError(f"--seconds-per-condition {seconds_per_condition:g} must be > 0")


def refuse_oversize(plan: PacketPlan, controls: int = 0) -> None:
    """Raise when the packet is over its limit, naming the flag that makes it fit."""
    if plan.packet_mb <= plan.max_packet_mb:
        return
    fit = max(1, math.floor(plan.items * plan.max_packet_mb / plan.packet_mb))
    if plan.kind == "challenge":
        fix = f"pass --max-targets {max(1, fit - controls)} (about {fit} items fit), or raise"
    elif plan.kind == "initial":
        fix = f"lower --total or --per-stratum (about {fit} pairs fit), or raise"
    else:  # the queue is checked against its repair plan, so it cannot be cut by hand
        fix = "an adjudication packet holds its whole queue: lower --max-pages, or raise"
    raise InputError(
        f"packet {plan.name!r} would be {plan.packet_mb:.1f} MB ({plan.items} items), over "
        f"--max-packet-mb {plan.max_packet_mb:g}; nothing written",
        hint=f"{fix} --max-packet-mb",
    )
