"""The quote/page-text normalizer shared by the app, the HTML packet, the routes and the scorers.

Normalization (docs/architecture.md, "Shared definitions"): Unicode NFKC, case fold, unify quote and dash
variants, join hyphenated line breaks, collapse whitespace. The JavaScript twin
lives in `services/card/textnorm.js`; both are checked against
`tests/data/textnorm_vectors.json`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u0060\u00b4\uff07"
DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02"
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u00ad"
_TRANSLATE = {ord(c): "'" for c in SINGLE_QUOTES}
_TRANSLATE.update({ord(c): '"' for c in DOUBLE_QUOTES})
_TRANSLATE.update({ord(c): "-" for c in DASHES})

MIN_WORDS = 3
MIN_CHARS = 12


@dataclass(frozen=True)
class Normalized:
    """Normalized text plus, for each of its characters, the index in the original text."""

    text: str
    origin: tuple[int, ...]


def _clusters(text: str) -> list[tuple[int, str]]:
    """Split into base character + following combining marks, so NFKC can compose them."""
    out: list[tuple[int, str]] = []
    for i, ch in enumerate(text):
        if out and unicodedata.combining(ch):
            start, cluster = out[-1]
            out[-1] = (start, cluster + ch)
        else:
            out.append((i, ch))
    return out


def normalize_with_map(text: str) -> Normalized:
    chars: list[str] = []
    origin: list[int] = []
    for start, cluster in _clusters(text):
        # Soft hyphen (U+00AD) is invisible in rendered text: drop it rather than map to '-'.
        if cluster == "\u00ad":
            continue
        # Unify quotes/dashes before NFKC too: NFKC would turn U+00B4 into space + combining
        # accent and U+2033 into two primes before the table could see them.
        pre = cluster.translate(_TRANSLATE)
        mapped = unicodedata.normalize("NFKC", pre).casefold().translate(_TRANSLATE)
        for ch in mapped:
            chars.append(ch)
            origin.append(start)
    # Join hyphenated line breaks: "evi-\n  dence" -> "evidence".
    joined_chars: list[str] = []
    joined_origin: list[int] = []
    i = 0
    n = len(chars)
    while i < n:
        ch = chars[i]
        if ch == "-" and joined_chars and joined_chars[-1].isalnum():
            j = i + 1
            saw_newline = False
            while j < n and chars[j].isspace():
                saw_newline = saw_newline or chars[j] in "\n\r\u2028\u2029\x0b\x0c\x85"
                j += 1
            if saw_newline and j < n and chars[j].isalpha():
                i = j
                continue
        joined_chars.append(ch)
        joined_origin.append(origin[i])
        i += 1
    # Collapse whitespace runs to one space and strip the ends.
    out_chars: list[str] = []
    out_origin: list[int] = []
    for ch, o in zip(joined_chars, joined_origin, strict=True):
        if ch.isspace():
            if out_chars and out_chars[-1] != " ":
                out_chars.append(" ")
                out_origin.append(o)
            continue
        out_chars.append(ch)
        out_origin.append(o)
    if out_chars and out_chars[-1] == " ":
        out_chars.pop()
        out_origin.pop()
    return Normalized("".join(out_chars), tuple(out_origin))


def normalize(text: str) -> str:
    """Normalize text for quote matching (see module docstring)."""
    return normalize_with_map(text).text


_WORD = re.compile(r"\w+", re.UNICODE)


def is_nontrivial(quote: str, min_words: int = MIN_WORDS, min_chars: int = MIN_CHARS) -> bool:
    """At least `min_words` words and `min_chars` characters after normalization."""
    norm = normalize(quote)
    return len(norm) >= min_chars and len(_WORD.findall(norm)) >= min_words


def find_quote(quote: str, page_text: str) -> tuple[int, int] | None:
    """Where the normalized quote occurs in the page, as [start, end) in the ORIGINAL page text."""
    q = normalize(quote)
    if not q:
        return None
    page = normalize_with_map(page_text)
    pos = page.text.find(q)
    if pos < 0:
        return None
    start = page.origin[pos]
    last = page.origin[pos + len(q) - 1]
    end = last + 1
    # Extend over the rest of a combining cluster so the highlight covers whole characters.
    while end < len(page_text) and unicodedata.combining(page_text[end]):
        end += 1
    return start, end


def quote_in_page(quote: str, page_text: str) -> bool:
    q = normalize(quote)
    return bool(q) and q in normalize(page_text)
