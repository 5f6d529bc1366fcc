"""Sentences of a displayed page and which of them supports a condition: what a simulated
reader quotes (`services.simulate`). Pure text functions, no files.

A page splits into sentences at a full stop, question or exclamation mark followed by
white space, at a blank line and at a bullet. A sentence supports a condition when it
reads as prose (not a code listing or a table row) and mentions the condition (its name
or a form its rubric note quotes, matched on normalized text as whole words); for a
condition whose note quotes no wordings, sharing two words with its requirement also
counts.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, NamedTuple

from vocabulary.textnorm import is_nontrivial, normalize, normalize_with_map, quote_in_page

_FORMS = re.compile(r'"([^"]+)"')
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n\s*\n|\s*[\u2022\u25aa\u25cf]\s*")
_CONTENT_WORD = re.compile(r"[a-z][a-z0-9-]{3,}")
# Words of rubric boilerplate that say nothing about a condition's subject.
_GENERIC_WORDS = """that this with from what which when where about page pages must discuss
discusses passage passages document documents text gives give information answers answer
question means behaves reports report findings known used using there their"""
_GENERIC = frozenset(_GENERIC_WORDS.split())
MAX_SENTENCE_WORDS = 60


def sentences(text: str) -> list[tuple[int, int]]:
    """[start, end) of each sentence of a page (a full stop, question or exclamation mark
    before white space, a blank line or a bullet ends one), surrounding space trimmed."""
    spans: list[tuple[int, int]] = []
    start = 0
    for brk in [*_SENTENCE_BREAK.finditer(text), None]:
        end = brk.start() if brk is not None else len(text)
        if brk is not None and brk.group(0)[:1] in "\"')]":
            end = brk.start() + len(brk.group(0).rstrip())
        raw = text[start:end]
        lead = len(raw) - len(raw.lstrip())
        if raw.strip():
            spans.append((start + lead, start + len(raw.rstrip())))
        start = brk.end() if brk is not None else len(text)
    return spans


def _words(text: str) -> set[str]:
    return {w for w in _CONTENT_WORD.findall(normalize(text)) if w not in _GENERIC}


def condition_words(condition: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(words of the condition's name and quoted forms, words of its requirement)."""
    named = _words(" ".join([str(condition.get("name") or ""), *condition_forms(condition)]))
    return named, _words(str(condition.get("requirement") or "")) - named


def _usable(quote: str, text: str) -> bool:
    return (
        len(quote.split()) <= MAX_SENTENCE_WORDS
        and is_nontrivial(quote)
        and quote_in_page(quote, text)
    )


class Sentence(NamedTuple):
    score: int
    text: str
    mentions: bool  # it holds a mention of the condition
    overlap: int  # words shared with the condition's name (3 each) and requirement (1 each)


_PROSE_WORD = re.compile(r"[(\"'‘“]?[A-Za-z][a-z’'-]*[,.;:!?)\"'’”]*")


def is_prose(quote: str) -> bool:
    """Reads as a sentence: at least five words, most of them plain words (not code,
    numbers or markup), ending with a full stop, question or exclamation mark."""
    words = quote.split()
    plain = sum(1 for w in words if _PROSE_WORD.fullmatch(w))
    return len(words) >= 5 and plain >= 0.75 * len(words) and quote.rstrip("\"')”’")[-1:] in ".!?"


class _Context:
    """A condition's wordings and words, computed once for scoring many sentences."""

    def __init__(self, condition: dict[str, Any] | None) -> None:
        self.forms = condition_forms(condition) if condition else []
        self.named, self.required = condition_words(condition) if condition else (set(), set())

    def score(
        self, text: str, lo: int, hi: int, span: tuple[int, int] | None = None
    ) -> Sentence | None:
        quote = " ".join(text[lo:hi].split())
        if not _usable(quote, text):
            return None
        mentions = (span is not None and lo <= span[0] < hi) or (
            bool(self.forms) and mention_span(quote, self.forms) is not None
        )
        words = _words(quote)
        overlap = 3 * len(words & self.named) + len(words & self.required)
        score = overlap + (1000 if is_prose(quote) else 0) + (100_000 if mentions else 0)
        return Sentence(score, quote, mentions, overlap)


def supporting_sentence(
    text: str,
    condition: dict[str, Any] | None = None,
    span: tuple[int, int] | None = None,
) -> Sentence | None:
    """The page's sentence that supports the condition best: one holding a mention (the
    `span`, or any form of the condition) first, prose before code or tables, then the
    most words shared with the condition's name (3 each) and requirement (1 each). None
    when no sentence passes the quote gates."""
    context = _Context(condition)
    best: Sentence | None = None
    for lo, hi in sentences(text):
        found = context.score(text, lo, hi, span)
        if found is not None and (best is None or found.score > best.score):
            best = found
    return best


def supports(sentence: Sentence, condition: dict[str, Any] | None) -> bool:
    """A sentence supports its condition when it reads as prose (not a code listing or
    a table row) and mentions it; a condition whose note quotes no wordings (only its
    name) is also supported by one sharing two words with its requirement."""
    if not is_prose(sentence.text):
        return False
    if sentence.mentions:
        return True
    quoted = _FORMS.findall(str((condition or {}).get("note") or ""))
    return not quoted and sentence.overlap >= 2


def condition_forms(condition: dict[str, Any]) -> list[str]:
    """The wordings a reader looks for: the name, plus the forms the rubric's note quotes."""
    forms = [str(condition.get("name") or "")]
    forms += _FORMS.findall(str(condition.get("note") or ""))
    seen: dict[str, str] = {}
    for form in forms:
        norm = normalize(form)
        if len(norm) >= 3:
            seen.setdefault(norm, form)
    return list(seen)  # normalized forms, longest-first matters little: any hit counts


def mention_span(text: str, forms: list[str]) -> tuple[int, int] | None:
    """[start, end) in the ORIGINAL page text of the first whole-word mention of a form."""
    page = normalize_with_map(text)
    best: tuple[int, int] | None = None
    for form in forms:
        pat = re.compile(r"(?<![a-z0-9])" + re.escape(form) + r"(?![a-z0-9])")
        hit = pat.search(page.text)
        if hit and (best is None or hit.start() < best[0]):
            best = (hit.start(), hit.end())
    if best is None:
        return None
    return page.origin[best[0]], page.origin[best[1] - 1] + 1


def sentence_choices(text: str, condition: dict[str, Any] | None) -> list[Sentence]:
    """Every usable sentence of the page and every pair of neighbouring sentences, scored
    as `supporting_sentence` scores them, best first."""
    spans = sentences(text)
    context = _Context(condition)
    found = [context.score(text, lo, hi) for lo, hi in spans]
    found += [context.score(text, a[0], b[1]) for a, b in itertools.pairwise(spans)]
    return sorted((f for f in found if f is not None), key=lambda f: -f.score)
