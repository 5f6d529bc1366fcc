"""Passage-deletion contrasts ("Does the Selected Object Reach the Reader?", Sec. 4.2, Tables 10 and 21).

Call rows ``{"item_id", "arm", "repeat", "status": "valid"|"failed", "answer"?, "gold"?,
"em"?, "requests"?}``: one scheduled reader call of one item in one arm (intact, trace-drop,
sham-drop, ...). A valid call's exact match and answer-token F1 are scored from its raw
``answer`` against ``gold`` with HybridQA's (SQuAD v1.1's) normalization
(`scorers.rop.answers`); a row with only a recorded ``em`` has no F1. Every scheduled call
stays in its planned cell: a failed call scores 0 (the paper's rule), so an item's arm
score is the mean over its scheduled repeats.

Table 10: for a contrast A/B over the items scheduled in both arms, EM A and EM B are the
means of the item scores and Delta EM = A - B, with a paired bootstrap interval that
resamples items. ``adverse_delta`` re-scores the failures against the contrast (a failed A
call as 0, a failed B call as 1): the most adverse reassignment of the failures. The same
columns in answer-token F1 ("Answer-token F1 gives corresponding gaps") stand beside them,
and two summaries that leave the failures out (Appendix B.3: "The intact and sham F1
ordering changes under complete-case and valid-repeat summaries"): complete-case keeps the
items whose every scheduled call in both arms is valid; valid-repeat scores each item by
the mean over its valid repeats and keeps the items with a valid repeat in both arms.

Table 21: per arm, items, scheduled calls, provider requests (sum of ``requests``, when
every row has it), valid / failed calls, items whose every scheduled call is valid with one
identical normalized answer, and items exact in a strict majority of their scheduled
repeats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorers.rop.answers import normalize_answer, row_scores
from scorers.rop.fields import text_field
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
    f1: float | None = None  # 0 for a failed call; None when a valid row records only EM


def parse_calls(
    rows: Sequence[tuple[int, dict[str, Any]]], source: str, arms: Sequence[str]
) -> tuple[list[Call], int]:
    """Check call rows of the declared arms; returns the calls and the number of rows ignored
    because their arm was not declared."""
    out: list[Call] = []
    ignored = 0
    seen: dict[tuple[str, str, int], int] = {}
    for line, obj in rows:
        item, arm = (text_field(obj, key, source, line) for key in ("item_id", "arm"))
        if arm not in arms:
            ignored += 1
            continue
        repeat = obj.get("repeat")
        if isinstance(repeat, bool) or not isinstance(repeat, int):
            raise InputError("'repeat' must be an integer", file=source, line=line)
        status = obj.get("status")
        if status not in ("valid", "failed"):
            raise InputError('\'status\' must be "valid" or "failed"', file=source, line=line)
        scores = row_scores(obj, source, line) if status == "valid" else (0.0, 0.0)
        if scores is None:
            raise InputError(
                "a valid call needs its 'answer' and 'gold' (or a recorded 'em' in [0, 1])",
                file=source,
                line=line,
            )
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
                scores[0],
                answer,
                requests,
                scores[1],
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
class Summary:
    """A contrast over the valid calls only: complete-case or valid-repeat."""

    n: int
    em_a: float | None
    em_b: float | None
    f1_a: float | None
    f1_b: float | None

    def to_json(self) -> dict[str, Any]:
        def gap(a: float | None, b: float | None) -> float | None:
            return None if a is None or b is None else a - b

        return {
            "n": self.n,
            "em_a": self.em_a,
            "em_b": self.em_b,
            "delta_em": gap(self.em_a, self.em_b),
            "f1_a": self.f1_a,
            "f1_b": self.f1_b,
            "delta_f1": gap(self.f1_a, self.f1_b),
        }


@dataclass(frozen=True)
class Contrast:
    """One row of Table 10, with its F1 columns and the two failure-free summaries."""

    arm_a: str
    arm_b: str
    n: int
    em_a: float | None
    em_b: float | None
    delta: float | None
    adverse_delta: float | None
    interval: Interval
    f1_a: float | None = None  # None when a valid call records only its EM
    f1_b: float | None = None
    delta_f1: float | None = None
    adverse_delta_f1: float | None = None
    interval_f1: Interval | None = None
    complete_case: Summary | None = None
    valid_repeat: Summary | None = None

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
            "f1_a": self.f1_a,
            "f1_b": self.f1_b,
            "delta_f1": self.delta_f1,
            "adverse_delta_f1": self.adverse_delta_f1,
            "bootstrap_f1": None if self.interval_f1 is None else self.interval_f1.to_json(),
            "complete_case": None if self.complete_case is None else self.complete_case.to_json(),
            "valid_repeat": None if self.valid_repeat is None else self.valid_repeat.to_json(),
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


def item_scores(
    cells: dict[str, list[Call]], failed_as: float = 0.0, metric: str = "em"
) -> dict[str, float]:
    """Mean EM (or F1) over each item's scheduled repeats, a failed call scoring
    ``failed_as``."""
    return {
        item: sum(_score(c, metric) if c.valid else failed_as for c in calls) / len(calls)
        for item, calls in cells.items()
    }


def _score(call: Call, metric: str) -> float:
    return call.em if metric == "em" else float(call.f1 or 0.0)


def valid_repeat_scores(cells: dict[str, list[Call]], metric: str = "em") -> dict[str, float]:
    """Mean EM (or F1) over each item's valid repeats; items without one are left out."""
    out = {}
    for item, calls in cells.items():
        valid = [_score(c, metric) for c in calls if c.valid]
        if valid:
            out[item] = sum(valid) / len(valid)
    return out


def _has_f1(cells: dict[str, list[Call]]) -> bool:
    return all(c.f1 is not None for calls in cells.values() for c in calls if c.valid)


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _summary(
    items: list[str],
    score: Any,
    cells_a: dict[str, list[Call]],
    cells_b: dict[str, list[Call]],
    f1: bool,
) -> Summary:
    em_a, em_b = score(cells_a, "em"), score(cells_b, "em")
    f1_a, f1_b = (score(cells_a, "f1"), score(cells_b, "f1")) if f1 else ({}, {})
    return Summary(
        len(items),
        _mean([em_a[i] for i in items]),
        _mean([em_b[i] for i in items]),
        _mean([f1_a[i] for i in items]) if f1 else None,
        _mean([f1_b[i] for i in items]) if f1 else None,
    )


def failure_free_summaries(
    cells_a: dict[str, list[Call]], cells_b: dict[str, list[Call]], f1: bool
) -> tuple[Summary, Summary]:
    """(complete-case, valid-repeat) of a contrast A/B."""
    common = sorted(set(cells_a) & set(cells_b))
    complete = [
        i for i in common if all(c.valid for c in cells_a[i]) and all(c.valid for c in cells_b[i])
    ]
    va, vb = valid_repeat_scores(cells_a), valid_repeat_scores(cells_b)
    repeat = [i for i in common if i in va and i in vb]
    return (
        _summary(complete, lambda c, m: item_scores(c, metric=m), cells_a, cells_b, f1),
        _summary(repeat, valid_repeat_scores, cells_a, cells_b, f1),
    )


def account_arm(arm: str, cells: dict[str, list[Call]]) -> ArmAccounting:
    calls = [c for cs in cells.values() for c in cs]
    has_requests = all(c.requests is not None for c in calls)
    has_answers = all(c.answer is not None for c in calls if c.valid)
    # "Same answer means three valid identical normalized outputs" (Table 21).
    same = sum(
        1
        for cs in cells.values()
        if all(c.valid for c in cs) and len({normalize_answer(c.answer or "") for c in cs}) == 1
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
        n = len(common)
        has_f1 = _has_f1(cells[a]) and _has_f1(cells[b])
        cols: dict[str, tuple[float | None, float | None, float | None, float | None]] = {}
        boots: dict[str, Interval] = {}
        for metric in ("em", "f1") if has_f1 else ("em",):
            sa, sb = item_scores(cells[a], metric=metric), item_scores(cells[b], metric=metric)
            adverse_b = item_scores(cells[b], failed_as=1.0, metric=metric)
            xa = [sa[i] for i in common]
            xb = [sb[i] for i in common]
            cols[metric] = (
                _mean(xa),
                _mean(xb),
                (sum(xa) - sum(xb)) / n if n else None,
                (sum(xa) - sum(adverse_b[i] for i in common)) / n if n else None,
            )
            boots[metric] = cluster_bootstrap_difference(
                xa, xb, common, resamples=resamples, seed=seed, confidence=confidence
            )
        f1 = cols.get("f1", (None, None, None, None))
        complete, repeat = failure_free_summaries(cells[a], cells[b], has_f1)
        out.append(
            Contrast(
                arm_a=a,
                arm_b=b,
                n=n,
                em_a=cols["em"][0],
                em_b=cols["em"][1],
                delta=cols["em"][2],
                adverse_delta=cols["em"][3],
                interval=boots["em"],
                f1_a=f1[0],
                f1_b=f1[1],
                delta_f1=f1[2],
                adverse_delta_f1=f1[3],
                interval_f1=boots.get("f1"),
                complete_case=complete,
                valid_repeat=repeat,
            )
        )
    accounting = [account_arm(arm, cells[arm]) for arm in arms if cells[arm]]
    return DeletionReport(list(arms), ignored_rows, accounting, out)
