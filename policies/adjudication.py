"""Evidence-aware final decisions for adjudication and challenge packets.

From the n-Clue supplement ("Do Current Retrievers Cover All the Evidence?"),
section "Evidence-Aware Final Decisions".

Per condition the majority of the response streams decides. An admin override
(evidence-aware check of a condition, with its reason) replaces the decision
but is never a vote: it does not enter the vote counts or any kappa. For
challenge packets a tie-break stream answers only the conditions the streams
disagree on and decides them. Final grades apply the distinct-page gate to
the locked pages plus the pages behind every positive decision, so a majority
gold whose conditions are supported only on one shared page stays partial
(the supplement's J061). A locked condition shown again for page adjudication
stays supported whatever the vote; positive decisions add their pages. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.responses import ConditionInfo, ItemInfo, PacketInfo, Responses, grade_from_supports

PairKey = tuple[str, str]  # (query_id, doc_id)


@dataclass(frozen=True)
class Override:
    packet_id: str
    item_id: str
    condition_key: str
    answer: str
    reason: str
    pages: tuple[str, ...] = ()
    quotes: Mapping[str, str] = field(default_factory=dict)
    line: int = 0  # line in overrides.jsonl (provenance)


@dataclass(frozen=True)
class ConditionDecision:
    item: ItemInfo
    cond: ConditionInfo
    votes: Mapping[str, bool]  # stream -> supported (answered conditions only)
    majority: str  # "yes", "no", "tie" or "none" (no votes)
    tiebreak: bool | None  # the tie-break stream's answer when it decided
    override: Override | None
    final: bool | None  # None = undecided
    path: str  # unanimous | majority | tiebreak | override | undecided
    pages: frozenset[int]  # physical pages behind a positive final decision

    @property
    def unanimous(self) -> bool:
        return len(set(self.votes.values())) == 1 and len(self.votes) > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.item.item_id,
            "condition_key": self.cond.key,
            "query_id": self.item.query_id,
            "doc_id": self.item.doc_id,
            "condition_id": self.cond.condition_id,
            "votes": {k: ("yes" if v else "no") for k, v in sorted(self.votes.items())},
            "majority": self.majority,
            "tiebreak": None if self.tiebreak is None else ("yes" if self.tiebreak else "no"),
            "override": None
            if self.override is None
            else {"answer": self.override.answer, "reason": self.override.reason},
            "final": None if self.final is None else ("yes" if self.final else "no"),
            "path": self.path,
            "pages": sorted(self.pages),
        }


def latest_overrides(
    overrides: Sequence[Override], packet_id: str
) -> dict[tuple[str, str], Override]:
    """(item_id, condition_key) -> the last override recorded for this packet."""
    out: dict[tuple[str, str], Override] = {}
    for ov in overrides:
        if ov.packet_id == packet_id:
            out[(ov.item_id, ov.condition_key)] = ov
    return out


def _majority(votes: Mapping[str, bool]) -> str:
    if not votes:
        return "none"
    yes = sum(votes.values())
    if 2 * yes > len(votes):
        return "yes"
    if 2 * yes < len(votes):
        return "no"
    return "tie"


def decide_condition(
    item: ItemInfo,
    cond: ConditionInfo,
    responses: Responses,
    voters: Sequence[str],
    tiebreak: str | None,
    override: Override | None,
) -> ConditionDecision:
    votes: dict[str, bool] = {}
    pages_by: dict[str, frozenset[int]] = {}
    for name in voters:
        resp = responses.get(name, {}).get(item.item_id)
        c = resp.conditions.get(cond.key) if resp else None
        if c is not None and c.answered:
            votes[name] = c.supported
            pages_by[name] = c.physical if c.supported else frozenset()
    majority = _majority(votes)
    tb: bool | None = None
    if tiebreak and len(set(votes.values())) > 1:
        resp = responses.get(tiebreak, {}).get(item.item_id)
        c = resp.conditions.get(cond.key) if resp else None
        if c is not None and c.answered:
            tb = c.supported
    if override is not None:
        final: bool | None = override.answer == "yes"
        pages = frozenset(cond.page_numbers[k] for k in override.pages if k in cond.page_numbers)
        path = "override"
    elif tb is not None:
        final, path = tb, "tiebreak"
        resp = responses[tiebreak][item.item_id]  # type: ignore[index]
        pages = resp.conditions[cond.key].physical if tb else frozenset()
    elif majority in ("yes", "no"):
        final = majority == "yes"
        path = "unanimous" if len(set(votes.values())) == 1 else "majority"
        pages = (
            frozenset().union(*(p for n, p in pages_by.items() if votes[n]))
            if final
            else frozenset()
        )
    else:
        final, path, pages = None, "undecided", frozenset()
    return ConditionDecision(
        item, cond, votes, majority, tb, override, final, path, pages if final else frozenset()
    )


def decide(
    packet: PacketInfo,
    responses: Responses,
    overrides: Sequence[Override] = (),
    tiebreak: str | None = None,
) -> list[ConditionDecision]:
    """One decision per displayed condition, in packet order."""
    voters = sorted(r for r in responses if r != tiebreak)
    latest = latest_overrides(overrides, packet.packet_id)
    return [
        decide_condition(
            item, cond, responses, voters, tiebreak, latest.get((item.item_id, cond.key))
        )
        for item in packet.items
        for cond in item.conditions
    ]


@dataclass(frozen=True)
class PairFinal:
    item: ItemInfo
    old_grade: int
    new_grade: int | None  # None while a condition is undecided
    supported: int  # conditions supported after decisions (before the gate)
    gate_blocked: bool  # all n supported but no distinct-page assignment
    paths: tuple[str, ...]  # decision paths of the conditions this packet decided

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.item.item_id,
            "query_id": self.item.query_id,
            "doc_id": self.item.doc_id,
            "n": self.item.n,
            "old_grade": self.old_grade,
            "new_grade": self.new_grade,
            "gate_blocked": self.gate_blocked,
            "paths": list(self.paths),
        }


def final_grades(
    decisions: Sequence[ConditionDecision],
    locked: Mapping[PairKey, Mapping[str, frozenset[int]]] | None = None,
    old_grades: Mapping[PairKey, int] | None = None,
) -> list[PairFinal]:
    """Per pair: locked supports + positive decisions, through the distinct-page gate."""
    by_item: dict[str, list[ConditionDecision]] = {}
    for d in decisions:
        by_item.setdefault(d.item.item_id, []).append(d)
    out = []
    for ds in by_item.values():
        item = ds[0].item
        key = (item.query_id, item.doc_id)
        supports: dict[str, frozenset[int]] = dict((locked or {}).get(key, {}))
        undecided = any(d.final is None for d in ds)
        for d in ds:
            if d.final:
                # A locked condition shown again (page adjudication, policies/repair.py) keeps
                # its initial pages: adjudication adds pages, and a "no" never removes support.
                supports[d.cond.condition_id] = (
                    supports.get(d.cond.condition_id, frozenset()) | d.pages
                )
        grade = None if undecided else grade_from_supports(item.n, supports)
        blocked = not undecided and len(supports) == item.n and grade == item.n - 1
        old = (old_grades or {}).get(key, item.grade)
        out.append(PairFinal(item, old, grade, len(supports), blocked, tuple(d.path for d in ds)))
    return out


@dataclass(frozen=True)
class AdjudicationSummary:
    """Counts and the lists `evaudit adjudicate` prints, over one packet's decisions."""

    decisions: tuple[ConditionDecision, ...]
    tiebreak: str | None = None  # the tie-break stream, if one was named

    @property
    def pairs(self) -> int:
        return len({d.item.item_id for d in self.decisions})

    @property
    def unanimous(self) -> int:
        return sum(1 for d in self.decisions if d.unanimous)

    @property
    def non_unanimous(self) -> list[ConditionDecision]:
        return [d for d in self.decisions if d.votes and not d.unanimous]

    @property
    def overrides(self) -> list[ConditionDecision]:
        return [d for d in self.decisions if d.override is not None]

    @property
    def undecided(self) -> list[ConditionDecision]:
        return [d for d in self.decisions if d.final is None]

    @property
    def final_positive(self) -> int:
        return sum(1 for d in self.decisions if d.final)

    @property
    def final_negative(self) -> int:
        return sum(1 for d in self.decisions if d.final is False)

    def tiebreak_agrees_with(self) -> dict[str, int]:
        """Per voter, the tie-broken conditions where the tie-break voted as they did."""
        sides: dict[str, int] = {}
        for d in self.decisions:
            if d.path == "tiebreak":
                for name, vote in sorted(d.votes.items()):
                    if vote == d.tiebreak:
                        sides[name] = sides.get(name, 0) + 1
        return sides

    def to_json(self) -> dict[str, Any]:
        return {
            "conditions": len(self.decisions),
            "pairs": self.pairs,
            "unanimous": self.unanimous,
            "non_unanimous": [d.to_json() for d in self.non_unanimous],
            "overrides": [
                {
                    **d.to_json(),
                    "reason": d.override.reason,  # type: ignore[union-attr]
                    "departs_from_majority": d.majority in ("yes", "no")
                    and d.majority != d.override.answer,  # type: ignore[union-attr]
                }
                for d in self.overrides
            ],
            "tiebreak": self.tiebreak,
            "tiebreak_decided": sum(1 for d in self.decisions if d.path == "tiebreak"),
            "tiebreak_agrees_with": self.tiebreak_agrees_with(),
            "undecided": [d.to_json() for d in self.undecided],
            "final_positive": self.final_positive,
            "final_negative": self.final_negative,
        }


def summary(
    decisions: Sequence[ConditionDecision], tiebreak: str | None = None
) -> AdjudicationSummary:
    """Counts and the lists `evaudit adjudicate` prints."""
    return AdjudicationSummary(tuple(decisions), tiebreak)
