"""The loaders the audit chain shares: the repair plan of an initial packet, the initial
packet to use, one adjudication run. The use cases that call them live in `services/`
(`repair`, `adjudicate`, `finalize`); `finalize_io` and the queue check use them too.

Each loads records through `campaign_io` and calls the pure scorers/policies.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit_chain.campaign_io import Streams, load_packet_info, load_streams, packet_kinds
from audit_chain.overrides_io import load_overrides
from audit_chain.rater_choice import RaterChoice, pick_raters
from campaign.project import Project
from policies.adjudication import ConditionDecision, PairFinal, decide, final_grades
from policies.repair import RepairPlan, repair_plan
from scorers.responses import PacketInfo
from vocabulary.errors import InputError


@dataclass(frozen=True)
class LoadedPlan:
    packet: PacketInfo
    streams: Streams
    plan: RepairPlan
    raters: RaterChoice


def load_plan(
    project: Project, packet_name: str, raters: str | None, flag: str = "--raters"
) -> LoadedPlan:
    """The repair plan of the initial PACKET with its two raters (`pick_raters`: the flag,
    else the stored choice, else the two complete streams)."""
    packet = load_packet_info(project, packet_name)
    if packet.kind not in ("initial", ""):
        raise InputError(
            f"packet {packet_name!r} is a {packet.kind} packet",
            hint="the repair policy reads the initial two-rater packet",
        )
    streams = load_streams(project, packet)
    choice = pick_raters(project, packet, streams, raters, flag=flag, exactly=2)
    plan = repair_plan(packet, streams.all_responses, choice.names)
    return LoadedPlan(packet, streams, plan, choice)


def resolve_initial(project: Project, initial: str | None) -> str | None:
    if initial:
        return initial
    names = [n for n, k in packet_kinds(project).items() if k == "initial"]
    if len(names) > 1:
        raise InputError(
            f"several initial packets ({', '.join(names)})", hint="name one with --initial NAME"
        )
    return names[0] if names else None


@dataclass(frozen=True)
class Adjudicated:
    packet: PacketInfo
    decisions: list[ConditionDecision]
    finals: list[PairFinal] | None
    streams: Streams
    voters: RaterChoice


def run_adjudication(
    project: Project,
    packet_name: str,
    tiebreak: str | None,
    raters: str | None,
    plan: RepairPlan | None,
    flag: str = "--raters",
) -> Adjudicated:
    """Decide PACKET: the voters are `pick_raters`'s (never the tie-break stream)."""
    packet = load_packet_info(project, packet_name)
    streams = load_streams(project, packet)
    if tiebreak and tiebreak not in streams.all_responses:
        raise InputError(
            f"no journal for tie-break stream {tiebreak!r} in packet {packet_name!r}",
            hint=f"journals found: {', '.join(sorted(streams.all_responses)) or 'none'}",
        )
    voters = pick_raters(project, packet, streams.without(tiebreak), raters, flag=flag)
    if tiebreak and tiebreak in voters.names:
        raise InputError(
            f"the tie-break stream {tiebreak!r} is one of the voters of packet {packet_name!r} "
            f"({', '.join(voters.names)})",
            hint="a tie-break answers only the disagreements: name another stream",
        )
    used = {v: streams.all_responses[v] for v in voters.names}
    if tiebreak:
        used[tiebreak] = streams.all_responses[tiebreak]
    decisions = decide(packet, used, load_overrides(project), tiebreak)
    finals: list[PairFinal] | None = None
    if all(it.full for it in packet.items):
        finals = final_grades(decisions)
    elif plan is not None:
        locked = {(p.item.query_id, p.item.doc_id): p.locked for p in plan.pairs if p.queued}
        finals = final_grades(decisions, locked)
    return Adjudicated(packet, decisions, finals, streams, voters)
