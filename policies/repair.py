"""The evidence-asymmetric repair policy, fixed before adjudication.

From the n-Clue supplement ("Do Current Retrievers Cover All the Evidence?"),
section "Evidence-asymmetric repair policy".

Two independent valid quotes can establish that a partial satisfies another
condition; failing to find a quote in three pages cannot establish absence. So:

1. accept an A+E consensus increase (both derived grades equal and above the
   benchmark grade) when the conditions both support, with the union of their
   valid pages, give that grade under the distinct-page gate;
2. queue every A/E grade split for expanded-page adjudication ("split");
3. queue every A+E consensus decrease ("decrease"), never trusting absence.

Inside a queued pair, conditions where A and E differ and conditions both
marked negative are unresolved; conditions both support are locked (with their
pages, which the final distinct-page gate needs). Equal grades above the
benchmark whose supported conditions differ are not a consensus: queued as a
split.

Raters who support exactly the same conditions agree on the evidence; their
grades can still differ through the distinct-page gate alone (one rater cited
two conditions on one page). Rule 1 already judges the assignment on the
union of both raters' valid pages, so such a pair is judged the same way: the
consensus grade is the gate on the union. Above the benchmark grade it is an
accepted increase, equal to it the pair is unchanged, below it a decrease.
A queued pair whose locked conditions admit no distinct-page assignment even
on the union has those conditions opened for *page adjudication*: they stay
supported (two valid quotes are positive evidence), and the adjudicators'
pages can only add to theirs, because three pages without a second distinct
page do not show that the document has none. So every queued pair has a
condition to adjudicate. Pure.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.audit_tables import completed_items, derive_grade
from scorers.responses import ItemInfo, PacketInfo, Responses, grade_from_supports
from vocabulary.grades import distinct_page_assignment

ACCEPT = "accept_increase"
SPLIT = "split"
DECREASE = "decrease"
KEEP = "unchanged"


@dataclass(frozen=True)
class PairPlan:
    item: ItemInfo
    grades: tuple[int, int]
    action: str  # ACCEPT, SPLIT, DECREASE or KEEP
    new_grade: int | None  # set for ACCEPT
    unresolved_split: tuple[str, ...] = ()  # condition ids
    unresolved_negative: tuple[str, ...] = ()
    locked: dict[str, frozenset[int]] = field(default_factory=dict)  # condition id -> pages
    consensus_failed: bool = False  # equal grades above benchmark, different conditions
    page_adjudication: tuple[str, ...] = ()  # locked conditions opened because the gate fails
    consensus_grade: int | None = None  # gate on the union pages, when both support the same set

    @property
    def queued(self) -> bool:
        return self.action in (SPLIT, DECREASE)

    @property
    def unresolved(self) -> tuple[str, ...]:
        order = [c.condition_id for c in self.item.conditions]
        both = set(self.unresolved_split) | set(self.unresolved_negative)
        return tuple(c for c in order if c in both)

    def queue_entry(self) -> dict[str, Any]:
        """This pair's line of the adjudication queue (docs/formats.md)."""
        return {
            "query_id": self.item.query_id,
            "doc_id": self.item.doc_id,
            "reason": self.action,
            "unresolved": list(self.unresolved),
            "locked": [
                c.condition_id for c in self.item.conditions if c.condition_id in self.locked
            ],
            "page_adjudication": list(self.page_adjudication),
        }


def pairs_sha256(entries: Sequence[dict[str, Any]]) -> str:
    """SHA-256 of queue entries in canonical JSON: the plan's fingerprint in its queue."""
    text = json.dumps(list(entries), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class PlanCounts:
    """The figures of a repair plan `repair plan` prints."""

    pairs: int  # pairs both raters completed
    incomplete_pairs: int
    accepted_increases: int
    split_pairs: int
    decrease_pairs: int
    queued_pairs: int
    unchanged_pairs: int
    increases_without_consensus: int
    unresolved_split: int  # unresolved conditions of the queued pairs: the raters split
    unresolved_both_negative: int  # ... both said no
    locked_conditions: int
    gate_only_splits: int  # grade splits through the distinct-page gate only
    page_adjudication_conditions: int

    @property
    def unresolved(self) -> int:
        return self.unresolved_split + self.unresolved_both_negative

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "incomplete_pairs": self.incomplete_pairs,
            "accepted_increases": self.accepted_increases,
            "split_pairs": self.split_pairs,
            "decrease_pairs": self.decrease_pairs,
            "queued_pairs": self.queued_pairs,
            "unchanged_pairs": self.unchanged_pairs,
            "increases_without_consensus": self.increases_without_consensus,
            "unresolved_conditions": {
                "split": self.unresolved_split,
                "both_negative": self.unresolved_both_negative,
                "total": self.unresolved,
            },
            "locked_conditions": self.locked_conditions,
            "gate_only_splits": self.gate_only_splits,
            "page_adjudication_conditions": self.page_adjudication_conditions,
        }


@dataclass(frozen=True)
class RepairPlan:
    source_packet: str
    raters: tuple[str, str]
    pairs: tuple[PairPlan, ...]
    incomplete: tuple[str, ...]  # item ids not completed by both raters
    source_sha256: str = ""  # SHA-256 of the initial packet file

    def counts(self) -> PlanCounts:
        queued = [p for p in self.pairs if p.queued]
        split = sum(len(p.unresolved_split) for p in queued)
        negative = sum(len(p.unresolved_negative) for p in queued)
        return PlanCounts(
            pairs=len(self.pairs),
            incomplete_pairs=len(self.incomplete),
            accepted_increases=sum(1 for p in self.pairs if p.action == ACCEPT),
            split_pairs=sum(1 for p in self.pairs if p.action == SPLIT),
            decrease_pairs=sum(1 for p in self.pairs if p.action == DECREASE),
            queued_pairs=len(queued),
            unchanged_pairs=sum(1 for p in self.pairs if p.action == KEEP),
            increases_without_consensus=sum(1 for p in self.pairs if p.consensus_failed),
            unresolved_split=split,
            unresolved_both_negative=negative,
            locked_conditions=sum(len(p.locked) for p in queued),
            gate_only_splits=sum(
                1
                for p in self.pairs
                if p.consensus_grade is not None and p.grades[0] != p.grades[1]
            ),
            page_adjudication_conditions=sum(len(p.page_adjudication) for p in queued),
        )

    def queue_entries(self) -> list[dict[str, Any]]:
        return [p.queue_entry() for p in self.pairs if p.queued]

    def queue(self) -> dict[str, Any]:
        """The adjudication queue (docs/formats.md), pairs in packet order.

        `plan` names what the queue came from; `packet build --kind adjudication`
        recomputes that plan and refuses a queue that differs from it.
        """
        entries = self.queue_entries()
        return {
            "format": "evaudit-adjudication-queue",
            "version": 2,
            "source_packet": self.source_packet,
            "plan": {
                "source_packet_sha256": self.source_sha256,
                "raters": list(self.raters),
                "pairs_sha256": pairs_sha256(entries),
            },
            "pairs": entries,
        }


def plan_pair(item: ItemInfo, responses: Responses, raters: Sequence[str]) -> PairPlan:
    a, e = (responses[r][item.item_id] for r in raters)
    ga, ge = derive_grade(item, a), derive_grade(item, e)
    split: list[str] = []
    negative: list[str] = []
    locked: dict[str, frozenset[int]] = {}
    for cond in item.conditions:
        ca, ce = a.conditions[cond.key], e.conditions[cond.key]
        if ca.supported and ce.supported:
            locked[cond.condition_id] = ca.physical | ce.physical
        elif ca.supported or ce.supported:
            split.append(cond.condition_id)
        else:
            negative.append(cond.condition_id)

    # Locked conditions the gate cannot place on distinct pages even on the union of both
    # raters' pages: opened for page adjudication if the pair is queued.
    gate_open = tuple(locked) if locked and distinct_page_assignment(locked) is None else ()

    def queued(action: str, failed: bool = False, consensus: int | None = None) -> PairPlan:
        return PairPlan(
            item, (ga, ge), action, None, tuple(split), tuple(negative), locked, failed,
            gate_open, consensus,
        )  # fmt: skip

    if not split:
        # Same supported conditions: the grades can differ only through the gate, which is
        # judged on the union of the raters' pages, as rule 1 does.
        consensus = grade_from_supports(item.n, locked)
        if consensus > item.grade:
            return PairPlan(
                item, (ga, ge), ACCEPT, consensus, locked=locked, consensus_grade=consensus
            )
        if consensus < item.grade:
            return queued(DECREASE, consensus=consensus)
        return PairPlan(item, (ga, ge), KEEP, None, locked=locked, consensus_grade=consensus)
    if ga != ge:
        return queued(SPLIT)
    if ga < item.grade:
        return queued(DECREASE)
    if ga > item.grade:
        if grade_from_supports(item.n, locked) == ga:
            return PairPlan(item, (ga, ge), ACCEPT, ga, locked=locked)
        return queued(SPLIT, failed=True)
    return PairPlan(item, (ga, ge), KEEP, None, locked=locked)


def repair_plan(packet: PacketInfo, responses: Responses, raters: Sequence[str]) -> RepairPlan:
    """Apply the policy to every full item both raters completed."""
    if len(raters) != 2:
        raise ValueError("the repair policy compares exactly two initial raters")
    done = completed_items(packet, responses, raters)
    done_ids = {it.item_id for it in done}
    return RepairPlan(
        source_packet=packet.packet_id,
        raters=(raters[0], raters[1]),
        pairs=tuple(plan_pair(it, responses, raters) for it in done if it.full),
        incomplete=tuple(it.item_id for it in packet.items if it.item_id not in done_ids),
        source_sha256=packet.sha256,
    )
