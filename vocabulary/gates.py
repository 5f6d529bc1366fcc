"""The annotation validation gates ("Do Current Retrievers Cover All the Evidence?" (supplement), "Interface and validation gates").

Per condition exactly one of yes/no. A yes needs >= 1 selected in-pool page and,
per selected page, a nontrivial quote that is a normalized substring of that
page's displayed text. A no carries no page and no quote. An item is complete
only when every condition passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from vocabulary.textnorm import MIN_CHARS, MIN_WORDS, is_nontrivial, quote_in_page

ANSWERS = ("yes", "no")


@dataclass(frozen=True)
class ConditionAnswer:
    answer: str | None = None  # "yes", "no" or None (not answered yet)
    pages: tuple[str, ...] = ()
    quotes: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | None) -> ConditionAnswer:
        if not obj:
            return cls()
        return cls(
            answer=obj.get("answer"),
            pages=tuple(obj.get("pages") or ()),
            quotes=dict(obj.get("quotes") or {}),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "pages": list(self.pages),
            "quotes": {k: self.quotes[k] for k in self.pages if k in self.quotes},
        }


@dataclass(frozen=True)
class QuoteRule:
    min_words: int = MIN_WORDS
    min_chars: int = MIN_CHARS


def check_condition(
    ans: ConditionAnswer, pool: Mapping[str, str], rule: QuoteRule = QuoteRule()
) -> list[str]:
    """Messages saying exactly what is missing or wrong; empty when the condition passes."""
    problems: list[str] = []
    if ans.answer is None:
        return ["Answer yes or no."]
    if ans.answer not in ANSWERS:
        return [f"Answer must be yes or no, not {ans.answer!r}."]
    stray = sorted(set(ans.quotes) - set(ans.pages))
    if ans.answer == "no":
        if ans.pages:
            problems.append("A 'no' carries no selected page: clear the page selection.")
        if any(q.strip() for q in ans.quotes.values()):
            problems.append("A 'no' carries no quote: remove the quotes.")
        return problems
    if not ans.pages:
        problems.append("A 'yes' needs at least one selected page.")
    for key in ans.pages:
        why = quote_problem(key, ans.quotes.get(key, ""), pool, rule)
        if why is not None:
            problems.append(_CARD_PROBLEMS[why].format(key=key, rule=rule))
    for key in stray:
        if ans.quotes.get(key, "").strip():
            problems.append(f"Page {key} has a quote but is not selected.")
    return problems


PageProblem = Literal["pool", "empty", "short", "off-page"]

_CARD_PROBLEMS: dict[PageProblem, str] = {
    "pool": "Page {key} is not in this condition's candidate pool.",
    "empty": "Page {key}: add a verbatim quote from this page.",
    "short": "Page {key}: the quote is too short (at least {rule.min_words} words "
    "and {rule.min_chars} characters).",
    "off-page": "Page {key}: the quote is not on this page (check it verbatim).",
}


def quote_problem(
    key: str, quote: str, pool: Mapping[str, str], rule: QuoteRule
) -> PageProblem | None:
    """Why `quote` does not back a yes on page `key`, the first gate it fails in the
    order the card checks them (the page is in the pool, the quote is given, long
    enough, on the page), or None when it passes; each front end words the problem."""
    if key not in pool:
        return "pool"
    if not quote.strip():
        return "empty"
    if not is_nontrivial(quote, rule.min_words, rule.min_chars):
        return "short"
    if not quote_in_page(quote, pool[key]):
        return "off-page"
    return None


def check_item(
    answers: Mapping[str, ConditionAnswer],
    pools: Mapping[str, Mapping[str, str]],
    rule: QuoteRule = QuoteRule(),
) -> dict[str, list[str]]:
    """Problems per condition key (every condition of the item is checked)."""
    return {
        ckey: check_condition(answers.get(ckey, ConditionAnswer()), pool, rule)
        for ckey, pool in pools.items()
    }


def item_complete(
    answers: Mapping[str, ConditionAnswer],
    pools: Mapping[str, Mapping[str, str]],
    rule: QuoteRule = QuoteRule(),
) -> bool:
    return all(not msgs for msgs in check_item(answers, pools, rule).values())
