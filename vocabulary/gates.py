"""The annotation validation gates ("Do Current Retrievers Cover All the Evidence?" (supplement), "Interface and validation gates").

Per condition exactly one of yes/no. A yes needs >= 1 selected in-pool page and,
per selected page, a nontrivial quote that is a normalized substring of that
page's displayed text. A no carries no page and no quote. An item is complete
only when every condition passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
        if key not in pool:
            problems.append(f"Page {key} is not in this condition's candidate pool.")
            continue
        quote = ans.quotes.get(key, "")
        if not quote.strip():
            problems.append(f"Page {key}: add a verbatim quote from this page.")
        elif not is_nontrivial(quote, rule.min_words, rule.min_chars):
            problems.append(
                f"Page {key}: the quote is too short (at least {rule.min_words} words "
                f"and {rule.min_chars} characters)."
            )
        elif not quote_in_page(quote, pool[key]):
            problems.append(f"Page {key}: the quote is not on this page (check it verbatim).")
    for key in stray:
        if ans.quotes.get(key, "").strip():
            problems.append(f"Page {key} has a quote but is not selected.")
    return problems


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
