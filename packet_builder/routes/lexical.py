"""`lexical`: exact and alias hits of the condition's name and aliases, ranked by hit count.

Matching is on normalized text (case folded, NFKC so ligatures split, hyphenated
line breaks joined, whitespace collapsed), whole words only, so "ischemic
stroke" matches "Isch-\\nemic  Stroke" but not "nonischemic strokes".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packet_builder.routes.base import Corpus, Ranking, Target, ranking_from_scores

NAME = "lexical"


def phrase_pattern(phrases: list[str]) -> re.Pattern[str] | None:
    if not phrases:
        return None
    alternation = "|".join(re.escape(p) for p in phrases)  # longest first: see Target.phrases
    return re.compile(rf"(?<!\w)(?:{alternation})(?!\w)")


@dataclass
class LexicalRoute:
    corpus: Corpus
    name: str = NAME

    def rank(self, target: Target) -> Ranking:
        pattern = phrase_pattern(target.phrases())
        if pattern is None:
            return []
        scores: dict[int, float] = {}
        for row in self.corpus.rows(target.doc_id):
            hits = len(pattern.findall(self.corpus.norm[row]))
            if hits:
                scores[self.corpus.pages[row]] = float(hits)
        return ranking_from_scores(scores)
