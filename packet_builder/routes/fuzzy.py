"""`fuzzy`: OCR-tolerant matching of name and aliases against page text with rapidfuzz.

Score of a page = max over phrases of `fuzz.partial_ratio(phrase, page)` on
normalized text (best-aligned substring, Indel similarity in 0..100). Pages at
or above `threshold` are retrieved, best first. Phrases shorter than
`min_chars` are skipped: a short needle partially matches almost any page.
With the default threshold 80, a 12+ character alias with two substituted
characters (e.g. "rn" read for "m") is still found.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
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
    # (doc_id, phrase) -> scores over the document's pages: conditions share names and aliases
    # across queries, and targets are pooled document by document.
    _cache: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False)

    def rank(self, target: Target) -> Ranking:
        phrases = [p for p in target.phrases() if len(p) >= self.min_chars]
        rows = self.corpus.rows(target.doc_id)
        if not phrases or not rows:
            return []
        if self._cache and next(iter(self._cache))[0] != target.doc_id:
            self._cache.clear()  # keep only the current document's scores
        missing = [p for p in phrases if (target.doc_id, p) not in self._cache]
        if missing:
            texts = self.corpus.norm[rows.start : rows.stop]
            # One C++ call for all phrase x page pairs; cells below the cutoff come back as 0.
            matrix = process.cdist(
                missing, texts, scorer=fuzz.partial_ratio, score_cutoff=self.threshold
            )
            for p, row in zip(missing, matrix, strict=True):
                self._cache[(target.doc_id, p)] = row
        best = np.max([self._cache[(target.doc_id, p)] for p in phrases], axis=0)
        scores = {
            self.corpus.pages[rows.start + i]: float(s)
            for i, s in enumerate(best)
            if s >= self.threshold
        }
        return ranking_from_scores(scores)
