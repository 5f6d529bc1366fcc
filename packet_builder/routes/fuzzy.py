"""`fuzzy`: OCR-tolerant matching of name and aliases against page text with rapidfuzz.

Score of a page = max over phrases of `fuzz.partial_ratio(phrase, page)` on
normalized text (best-aligned substring, Indel similarity in 0..100). Pages at
or above `threshold` are retrieved, best first. Phrases shorter than
`min_chars` are skipped: a short needle partially matches almost any page.
With the default threshold 80, a 12+ character alias with two substituted
characters (e.g. "rn" read for "m") is still found.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz, process

from packet_builder.routes.base import Corpus, Ranking, Target, ranking_from_scores

NAME = "fuzzy"
THRESHOLD = 80.0
MIN_CHARS = 6


@dataclass
class FuzzyRoute:
    corpus: Corpus
    threshold: float = THRESHOLD
    min_chars: int = MIN_CHARS
    name: str = NAME

    def rank(self, target: Target) -> Ranking:
        phrases = [p for p in target.phrases() if len(p) >= self.min_chars]
        rows = self.corpus.rows(target.doc_id)
        if not phrases or not rows:
            return []
        texts = self.corpus.norm[rows.start : rows.stop]
        # One C++ call for all phrase x page pairs; cells below the cutoff come back as 0.
        matrix = process.cdist(
            phrases, texts, scorer=fuzz.partial_ratio, score_cutoff=self.threshold
        )
        best = matrix.max(axis=0)
        scores = {
            self.corpus.pages[rows.start + i]: float(s)
            for i, s in enumerate(best)
            if s >= self.threshold
        }
        return ranking_from_scores(scores)
