"""`lexical`: exact and alias hits of the condition's name and aliases, ranked by hit count.

Matching is on normalized text (case folded, NFKC so ligatures split, hyphenated
line breaks joined, whitespace collapsed), whole words only, so "ischemic
stroke" matches "Isch-\\nemic  Stroke" but not "nonischemic strokes".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from packet_builder.routes.base import Corpus, Ranking, Target, ranking_from_scores

NAME = "lexical"


@functools.lru_cache(maxsize=4096)
def phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    if not phrases:
        return None
    alternation = "|".join(re.escape(p) for p in phrases)  # longest first: see Target.phrases
    return re.compile(rf"(?<!\w)(?:{alternation})(?!\w)")


@dataclass
class LexicalRoute:
    corpus: Corpus
    name: str = NAME

    def rank(self, target: Target) -> Ranking:
        phrases = tuple(target.phrases())
        scores: dict[int, float] = {}
        for row in self.corpus.rows(target.doc_id):
            text = self.corpus.norm[row]
            # Plain substring test first (C speed); the word-boundary regex only where it can hit.
            if not any(p in text for p in phrases):
                continue
            pattern = phrase_pattern(phrases)
            assert pattern is not None
            hits = len(pattern.findall(text))
            if hits:
                scores[self.corpus.pages[row]] = float(hits)
        return ranking_from_scores(scores)
