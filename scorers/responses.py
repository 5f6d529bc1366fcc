"""Typed records for one packet's items and its response streams, and per-condition checks.

The edge (`audit_chain/campaign_io.py`) builds these from the packet, the
admin key and the journals; every scorer and policy works on them. A condition
is *supported* when the answer is yes and it passes the validation gates
(docs/architecture.md, "Shared definitions"); its physical pages come from the admin key,
so the distinct-page gate sees two page keys showing the same page as one page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from vocabulary.gates import QuoteRule
from vocabulary.grades import derived_grade
from vocabulary.textnorm import is_nontrivial, quote_in_page

DEFAULT_RULE = QuoteRule()


@dataclass(frozen=True)
class ConditionInfo:
    key: str  # C1..Cn (full-query order)
    condition_id: str
    pool: Mapping[str, str]  # page_key -> displayed text
    page_numbers: Mapping[str, int]  # page_key -> physical page (admin key)


@dataclass(frozen=True)
class ItemInfo:
    item_id: str
    query_id: str
    doc_id: str
    n: int
    grade: int  # benchmark grade before the audit
    release: str
    source: str
    status: str | None
    conditions: tuple[ConditionInfo, ...]

    @property
    def full(self) -> bool:
        """True when the item shows every condition of its query (grades are derivable)."""
        return len(self.conditions) == self.n

    def condition(self, key: str) -> ConditionInfo | None:
        for cond in self.conditions:
            if cond.key == key:
                return cond
        return None


@dataclass(frozen=True)
class PacketInfo:
    packet_id: str
    kind: str
    sha256: str
    items: tuple[ItemInfo, ...]
    rule: QuoteRule = DEFAULT_RULE

    def item(self, item_id: str) -> ItemInfo | None:
        return self.index.get(item_id)

    @cached_property
    def index(self) -> dict[str, ItemInfo]:
        return {it.item_id: it for it in self.items}


@dataclass(frozen=True)
class CondResponse:
    answer: str | None
    pages: tuple[str, ...]
    quotes: Mapping[str, str]
    structural_errors: int  # bad answer, yes without page, no with page/quote, missing/short quote
    pool_errors: int  # selected pages outside this condition's pool
    quotes_total: int  # selected pages (each needs a quote)
    quotes_exact: int  # ... whose quote is a nontrivial normalized substring of the page
    physical: frozenset[int] = field(default_factory=frozenset)

    @property
    def answered(self) -> bool:
        return self.answer in ("yes", "no")

    @property
    def valid(self) -> bool:
        return (
            self.answered
            and self.structural_errors == 0
            and self.pool_errors == 0
            and self.quotes_exact == self.quotes_total
        )

    @property
    def supported(self) -> bool:
        return self.answer == "yes" and self.valid


@dataclass(frozen=True)
class ItemResponse:
    rater: str
    item_id: str
    conditions: Mapping[str, CondResponse]
    unclear: bool = False

    def answered_all(self, item: ItemInfo) -> bool:
        return all(
            self.conditions.get(c.key) is not None and self.conditions[c.key].answered
            for c in item.conditions
        )


# rater -> item_id -> response
Responses = Mapping[str, Mapping[str, ItemResponse]]


def evaluate_condition(
    raw: Mapping[str, Any] | None, cond: ConditionInfo, rule: QuoteRule = DEFAULT_RULE
) -> CondResponse:
    """Check one saved condition decision against its pool (the gates, counted by kind)."""
    raw = raw or {}
    answer = raw.get("answer")
    pages = tuple(str(p) for p in (raw.get("pages") or ()))
    quotes = {str(k): str(v) for k, v in (raw.get("quotes") or {}).items()}
    structural = 0
    pool_errors = 0
    exact = 0
    if answer not in ("yes", "no", None):
        structural += 1
    if answer == "no":
        structural += int(bool(pages)) + int(any(q.strip() for q in quotes.values()))
    if answer == "yes" and not pages:
        structural += 1
    for key in pages:
        if key not in cond.pool:
            pool_errors += 1
            continue
        quote = quotes.get(key, "")
        if not quote.strip() or not is_nontrivial(quote, rule.min_words, rule.min_chars):
            structural += 1
        elif quote_in_page(quote, cond.pool[key]):
            exact += 1
    structural += sum(1 for k, q in quotes.items() if k not in pages and q.strip())
    physical = frozenset(cond.page_numbers[k] for k in pages if k in cond.page_numbers)
    return CondResponse(
        answer=answer if isinstance(answer, str) else None,
        pages=pages,
        quotes=quotes,
        structural_errors=structural,
        pool_errors=pool_errors,
        quotes_total=len(pages) if answer == "yes" else 0,
        quotes_exact=exact if answer == "yes" else 0,
        physical=physical,
    )


def evaluate_item(
    rater: str, item: ItemInfo, line: Mapping[str, Any], rule: QuoteRule = DEFAULT_RULE
) -> ItemResponse:
    saved = line.get("conditions") or {}
    return ItemResponse(
        rater=rater,
        item_id=item.item_id,
        conditions={c.key: evaluate_condition(saved.get(c.key), c, rule) for c in item.conditions},
        unclear=bool(line.get("unclear", False)),
    )


def supports_of(resp: ItemResponse) -> dict[str, frozenset[int]]:
    """condition key -> physical pages, for the conditions this response supports."""
    return {k: c.physical for k, c in resp.conditions.items() if c.supported}


def grade_from_supports(n: int, supports: Mapping[str, frozenset[int]]) -> int:
    """The derived grade of docs/architecture.md (distinct-page gate on physical pages)."""
    return derived_grade(n, supports)
