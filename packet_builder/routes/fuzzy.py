"""`fuzzy`: OCR-tolerant matching of name and aliases against page text with rapidfuzz.

Score of a page = max over phrases of `fuzz.partial_ratio(phrase, page)` on
normalized text (best-aligned substring, Indel similarity in 0..100). Pages at
or above `threshold` are retrieved, best first. Phrases shorter than
`min_chars` are skipped: a short needle partially matches almost any page.
With the default threshold 80, a 12+ character alias with two substituted
characters (e.g. "rn" read for "m") is still found.

Scores are computed document by document with `fuzzy_filter.partial_ratio_matrix`:
exactly the `process.cdist(..., scorer=fuzz.partial_ratio, score_cutoff=threshold)`
values (float32), with pages that cannot reach the threshold skipped by an
exact chunk bound. `expect(targets)` announces the targets about to be ranked
so that all phrases of a document are scored in one batch (the page chunks are
cut once per document); without it each call scores its own phrases.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from packet_builder.routes.base import Corpus, Ranking, Target, ranking_from_scores
from packet_builder.routes.fuzzy_filter import MIN_FILTER_WORK, Chunks, partial_ratio_matrix

NAME = "fuzzy"
THRESHOLD = 80.0
MIN_CHARS = 6


@dataclass
class FuzzyRoute:
    corpus: Corpus
    threshold: float = THRESHOLD
    min_chars: int = MIN_CHARS
    name: str = NAME
    # rapidfuzz threads for the LCS bound of large documents (-1: all cores); same scores.
    workers: int = -1
    # Below this much phrase x page text a band is scored without the prefilter (same scores).
    min_filter_work: int = MIN_FILTER_WORK
    # Scores and page chunks of the current document only: targets are pooled document by
    # document, and conditions share names and aliases across queries.
    _doc: str | None = field(default=None, repr=False)
    _scores: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _chunks: dict[tuple[int, int], Chunks] = field(default_factory=dict, repr=False)
    # doc_id -> phrases announced by `expect`, scored together on the document's first call.
    _planned: dict[str, set[str]] = field(default_factory=dict, repr=False)

    def phrases(self, target: Target) -> list[str]:
        return [p for p in target.phrases() if len(p) >= self.min_chars]

    def expect(self, targets: Iterable[Target]) -> None:
        """Announce targets that will be ranked, so each document's phrases are batched."""
        for target in targets:
            self._planned.setdefault(target.doc_id, set()).update(self.phrases(target))

    def rank(self, target: Target) -> Ranking:
        phrases = self.phrases(target)
        rows = self.corpus.rows(target.doc_id)
        if not phrases or not rows:
            return []
        if target.doc_id != self._doc:
            self._doc = target.doc_id
            self._scores.clear()
            self._chunks.clear()
        missing = [p for p in phrases if p not in self._scores]
        if missing:
            batch = set(missing) | self._planned.pop(target.doc_id, set())
            todo = sorted(batch - self._scores.keys())
            texts = self.corpus.norm[rows.start : rows.stop]
            matrix = partial_ratio_matrix(
                todo,
                texts,
                self.threshold,
                self._chunks,
                workers=self.workers,
                min_work=self.min_filter_work,
            )
            self._scores.update(zip(todo, matrix, strict=True))
        best = np.max([self._scores[p] for p in phrases], axis=0)
        scores = {
            self.corpus.pages[rows.start + i]: float(s)
            for i, s in enumerate(best)
            if s >= self.threshold
        }
        return ranking_from_scores(scores)
