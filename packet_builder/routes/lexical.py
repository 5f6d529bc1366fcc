"""`lexical`: exact and alias hits of the condition's name and aliases, ranked by hit count.

Matching is on normalized text (case folded, NFKC so ligatures split, hyphenated
line breaks joined, whitespace collapsed), whole words only, so "ischemic
stroke" matches "Isch-\\nemic  Stroke" but not "nonischemic strokes".

Speed: a whole-word hit of a phrase makes every \\w+ token of the phrase a
token of the page (the hit is bounded by non-word characters, and so is each
token inside the phrase). So the regex runs only on the pages of the document
that hold, for some phrase, all of that phrase's tokens (`Corpus.terms`
postings, cached per document) and contain a phrase as a plain substring;
every other page has no hit. Phrases without a \\w token are tried on every page.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from packet_builder.routes.base import Corpus, Ranking, Target, ranking_from_scores, words

NAME = "lexical"


@functools.lru_cache(maxsize=4096)
def phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    if not phrases:
        return None
    # Same matches as (?<!\w)(?:p1|p2|...)(?!\w), but each alternative starts with its literal
    # first character and checks the character before it afterwards ((?<!\w.) after one
    # character), so the regex engine can skip ahead to candidate characters (about 6x faster).
    # Alternatives stay longest first: see Target.phrases.
    alternation = "|".join(re.escape(p[0]) + r"(?<!\w.)" + re.escape(p[1:]) for p in phrases)
    return re.compile(rf"(?:{alternation})(?!\w)", re.DOTALL)


@functools.lru_cache(maxsize=16384)
def _phrase_words(phrase: str) -> tuple[str, ...]:
    return tuple(words(phrase))


@dataclass
class LexicalRoute:
    corpus: Corpus
    name: str = NAME
    # phrase -> rows of the current document that can hold it (targets come document by document)
    _doc: str | None = field(default=None, repr=False)
    _rows: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _terms: dict[str, frozenset[int]] = field(default_factory=dict, repr=False)
    # phrases -> ranking in the current document (conditions of different queries often share
    # name and aliases: about a quarter of the scale benchmark's targets repeat one)
    _ranked: dict[tuple[str, ...], Ranking] = field(default_factory=dict, repr=False)

    def rank(self, target: Target) -> Ranking:
        phrases = tuple(target.phrases())
        rows = self.corpus.rows(target.doc_id)
        if not phrases or not rows:
            return []
        if target.doc_id != self._doc:
            self._doc = target.doc_id
            self._rows.clear()
            self._terms.clear()
            self._ranked.clear()
        done = self._ranked.get(phrases)
        if done is not None:
            return list(done)
        candidates: set[int] = set()
        for phrase in phrases:
            found = self._rows.get(phrase)
            if found is None:
                found = self._rows[phrase] = self._phrase_rows(phrase, rows)
            candidates.update(found)
        pattern = phrase_pattern(phrases)
        assert pattern is not None
        scores: dict[int, float] = {}
        for row in sorted(candidates):
            text = self.corpus.norm[row]
            # Plain substring test first (C speed); the word-boundary regex only where it can hit.
            if not any(p in text for p in phrases):
                continue
            hits = len(pattern.findall(text))
            if hits:
                scores[self.corpus.pages[row]] = float(hits)
        ranking = self._ranked[phrases] = ranking_from_scores(scores)
        return list(ranking)

    def _phrase_rows(self, phrase: str, rows: range) -> list[int]:
        tokens = _phrase_words(phrase)
        if not tokens:
            return list(rows)
        sets = sorted((self._term_rows(t, rows) for t in set(tokens)), key=len)
        return sorted(sets[0].intersection(*sets[1:]))

    def _term_rows(self, term: str, rows: range) -> frozenset[int]:
        """Rows of the current document whose page has `term` as a token (cached per doc)."""
        found = self._terms.get(term)
        if found is None:
            found = self._terms[term] = frozenset(
                self.corpus.terms().rows_with(term, rows).tolist()
            )
        return found
