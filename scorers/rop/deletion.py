"""Passage-deletion contrasts ("Does the Selected Object Reach the Reader?", Sec. 4.2, Tables 10 and 21).

Call rows ``{"item_id", "arm", "repeat", "status": "valid"|"failed", "em"?, "answer"?,
"requests"?}``: one scheduled reader call of one item in one arm (intact, trace-drop,
sham-drop, ...). Every scheduled call stays in its planned cell: a failed call scores 0
(the paper's rule), so an item's arm score is the mean EM over its scheduled repeats.

Table 10: for a contrast A/B over the items scheduled in both arms, EM A and EM B are the
means of the item scores and Delta EM = A - B, with a paired bootstrap interval that
resamples items. ``adverse_delta`` re-scores the failures against the contrast (a failed A
call as 0, a failed B call as 1): the most adverse reassignment of the failures.

Table 21: per arm, items, scheduled calls, provider requests (sum of ``requests``, when
every row has it), valid / failed calls, items whose every scheduled call is valid with one
identical answer, and items exact in a strict majority of their scheduled repeats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorers.rop.resampling import Interval, cluster_bootstrap_difference
from vocabulary.errors import InputError


@dataclass(frozen=True)
class Call:
    line: int
    item: str
    arm: str
    repeat: int
    valid: bool
    em: float  # 0 for a failed call
    answer: str | None
    requests: int | None


def parse_calls(
    rows: Sequence[tuple[int, dict[str, Any]]], source: str, arms: Sequence[str]
) -> tuple[list[Call], int]:
    """Check call rows of the declared arms; returns the calls and the number of rows ignored
    because their arm was not declared."""
    out: list[Call] = []
    ignored = 0
    seen: dict[tuple[str, str, int], int] = {}
    for line, obj in rows:
        item, arm = obj.get("item_id"), obj.get("arm")
        if not isinstance(item, str) or not item:
            raise InputError("needs a non-empty string 'item_id'", file=source, line=line)
        if not isinstance(arm, str) or not arm:
            raise InputError("needs a non-empty string 'arm'", file=source, line=line)
        if arm not in arms:
            ignored += 1
            continue
        repeat = obj.get("repeat")
        if isinstance(repeat, bool) or not isinstance(repeat, int):
            raise InputError("'repeat' must be an integer", file=source, line=line)
        status = obj.get("status")
        if status not in ("valid", "failed"):
            raise InputError('\'status\' must be "valid" or "failed"', file=source, line=line)
        em = obj.get("em")
        bad_em = isinstance(em, bool) or not isinstance(em, int | float) or not 0 <= em <= 1
        if status == "valid" and bad_em:
            raise InputError("a valid call needs 'em' in [0, 1]", file=source, line=line)
        answer = obj.get("answer")
        if answer is not None and not isinstance(answer, str):
            raise InputError("'answer' must be a string", file=source, line=line)
        requests = obj.get("requests")
        if requests is not None and (
            isinstance(requests, bool) or not isinstance(requests, int) or requests < 1
        ):
            raise InputError("'requests' must be an integer >= 1", file=source, line=line)
        key = (item, arm, repeat)
        if key in seen:
            raise InputError(
                f"item {item!r}, arm {arm!r}, repeat {repeat} repeats line {seen[key]}",
                file=source,
                line=line,
            )
        seen[key] = line
        valid = status == "valid"
        out.append(
            Call(
                line,
                item,
                arm,
                repeat,
                valid,
                float(em) if valid and em is not None else 0.0,
                answer,
                requests,
            )
        )
    if not out:
        raise InputError(
            "no calls in the declared arms", file=source, hint=f"arms: {', '.join(arms)}"
        )
    return out, ignored


def default_contrasts(arms: Sequence[str]) -> list[tuple[str, str]]:
    """Table 10's order for intact, trace-drop, sham-drop: I/T, S/T, I/S; else every pair."""
    if len(arms) == 3:
        i, t, s = arms
        return [(i, t), (s, t), (i, s)]
    return [(a, b) for n, a in enumerate(arms) for b in arms[n + 1 :]]


@dataclass(frozen=True)
class ArmAccounting:
    """One column of Table 21."""

    arm: str
    items: int
    scheduled_calls: int
    provider_requests: int | None
    valid_calls: int
    failed_calls: int
    same_valid_answer: int | None  # None when a valid call has no answer
    majority_exact: int

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Contrast:
    """One row of Table 10."""

    arm_a: str
    arm_b: str
    n: int
    em_a: float | None
    em_b: float | None
    delta: float | None
    adverse_delta: float | None
    interval: Interval

    def to_json(self) -> dict[str, Any]:
        return {
            "contrast": f"{self.arm_a}/{self.arm_b}",
            "arm_a": self.arm_a,
            "arm_b": self.arm_b,
            "n": self.n,
            "em_a": self.em_a,
            "em_b": self.em_b,
            "delta_em": self.delta,
            "adverse_delta_em": self.adverse_delta,
            "bootstrap": self.interval.to_json(),
        }


@dataclass(frozen=True)
class DeletionReport:
    arms: list[str]
    ignored_rows: int
    accounting: list[ArmAccounting]
    contrasts: list[Contrast]

    def to_json(self) -> dict[str, Any]:
        return {
            "arms": self.arms,
            "ignored_rows": self.ignored_rows,
            "accounting": [a.to_json() for a in self.accounting],
            "contrasts": [c.to_json() for c in self.contrasts],
        }


def _by_item(calls: Sequence[Call], arm: str) -> dict[str, list[Call]]:
    out: dict[str, list[Call]] = {}
    for c in calls:
        if c.arm == arm:
            out.setdefault(c.item, []).append(c)
    return out


def item_scores(cells: dict[str, list[Call]], failed_as: float = 0.0) -> dict[str, float]:
    """Mean EM over each item's scheduled repeats, a failed call scoring ``failed_as``."""
    return {
        item: sum(c.em if c.valid else failed_as for c in calls) / len(calls)
        for item, calls in cells.items()
    }


def account_arm(arm: str, cells: dict[str, list[Call]]) -> ArmAccounting:
    calls = [c for cs in cells.values() for c in cs]
    has_requests = all(c.requests is not None for c in calls)
    has_answers = all(c.answer is not None for c in calls if c.valid)
    same = sum(
        1 for cs in cells.values() if all(c.valid for c in cs) and len({c.answer for c in cs}) == 1
    )
    majority = sum(
        1 for cs in cells.values() if 2 * sum(1 for c in cs if c.valid and c.em == 1) > len(cs)
    )
    return ArmAccounting(
        arm=arm,
        items=len(cells),
        scheduled_calls=len(calls),
        provider_requests=sum(c.requests or 0 for c in calls) if has_requests else None,
        valid_calls=sum(1 for c in calls if c.valid),
        failed_calls=sum(1 for c in calls if not c.valid),
        same_valid_answer=same if has_answers else None,
        majority_exact=majority,
    )


def deletion_contrasts(
    calls: Sequence[Call],
    arms: Sequence[str],
    contrasts: Sequence[tuple[str, str]] | None = None,
    *,
    ignored_rows: int = 0,
    resamples: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> DeletionReport:
    """Tables 10 and 21 for the declared arms and contrasts."""
    cells = {arm: _by_item(calls, arm) for arm in arms}
    out: list[Contrast] = []
    for a, b in contrasts if contrasts is not None else default_contrasts(arms):
        for arm in (a, b):
            if arm not in cells:
                raise InputError(f"contrast arm {arm!r} is not among --arms", hint="add it")
        common = sorted(set(cells[a]) & set(cells[b]))
        sa, sb = item_scores(cells[a]), item_scores(cells[b])
        adverse_b = item_scores(cells[b], failed_as=1.0)
        xa = [sa[i] for i in common]
        xb = [sb[i] for i in common]
        n = len(common)
        out.append(
            Contrast(
                arm_a=a,
                arm_b=b,
                n=n,
                em_a=sum(xa) / n if n else None,
                em_b=sum(xb) / n if n else None,
                delta=(sum(xa) - sum(xb)) / n if n else None,
                adverse_delta=(sum(xa) - sum(adverse_b[i] for i in common)) / n if n else None,
                interval=cluster_bootstrap_difference(
                    xa, xb, common, resamples=resamples, seed=seed, confidence=confidence
                ),
            )
        )
    accounting = [account_arm(arm, cells[arm]) for arm in arms if cells[arm]]
    return DeletionReport(list(arms), ignored_rows, accounting, out)
