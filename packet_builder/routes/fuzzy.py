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
cut once per document); without it each call scores its own phrases. When many
documents are announced, their batches are scored in worker processes
(`processes`, default one per core) while the caller pools the documents in
order; a document's scores do not depend on where or with which other phrases
they are computed, so the rankings are the same.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from packet_builder.routes.base import Corpus, Ranking, Target, ranking_from_scores
from packet_builder.routes.fuzzy_filter import MIN_FILTER_WORK, Chunks, partial_ratio_matrix

NAME = "fuzzy"
THRESHOLD = 80.0
MIN_CHARS = 6
# Worker processes pay off only for many announced documents (fork and start-up ~0.1 s).
PARALLEL_DOCS = 64

# Page texts the forked workers read (set just before the pool forks; shared, not pickled).
_FORK_TEXTS: Sequence[str] = ()


def _score_job(
    job: tuple[str, int, int, list[str], float, int],
) -> tuple[str, list[str], np.ndarray]:
    """One document's announced phrases, in a worker process (one rapidfuzz thread)."""
    doc, start, stop, todo, threshold, min_work = job
    texts = list(_FORK_TEXTS[start:stop])
    matrix = partial_ratio_matrix(todo, texts, threshold, {}, workers=1, min_work=min_work)
    return doc, todo, matrix


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
    # Worker processes for announced documents (0: one per core; 1: score in this process).
    processes: int = 0
    # ... used only when at least this many documents are announced at once.
    parallel_docs: int = PARALLEL_DOCS
    # Scores from the workers: doc_id -> phrase -> scores, and the stream still to be read.
    _ready: dict[str, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)
    _pending: set[str] = field(default_factory=set, repr=False)
    _stream: Iterator[tuple[str, list[str], np.ndarray]] | None = field(default=None, repr=False)
    _pool: object | None = field(default=None, repr=False)

    def phrases(self, target: Target) -> list[str]:
        return [p for p in target.phrases() if len(p) >= self.min_chars]

    def expect(self, targets: Iterable[Target]) -> None:
        """Announce targets that will be ranked, so each document's phrases are batched."""
        for target in targets:
            self._planned.setdefault(target.doc_id, set()).update(self.phrases(target))
        processes = self.processes or os.cpu_count() or 1
        if processes > 1 and len(self._planned) >= self.parallel_docs:
            self._start_workers(processes)

    def _start_workers(self, processes: int) -> None:
        """Score every announced document's batch in worker processes, in announced order."""
        global _FORK_TEXTS
        self._drain()
        jobs = []
        for doc, batch in self._planned.items():
            rows = self.corpus.rows(doc)
            if batch and rows:
                todo = sorted(batch)
                jobs.append(
                    (doc, rows.start, rows.stop, todo, self.threshold, self.min_filter_work)
                )
        self._planned.clear()
        self._pending = {job[0] for job in jobs}
        _FORK_TEXTS = self.corpus.norm
        pool = multiprocessing.get_context("fork").Pool(processes)
        self._stream = pool.imap(_score_job, jobs, chunksize=4)
        pool.close()  # workers exit once every job is done
        self._pool = pool

    def _receive(self, doc: str) -> None:
        """Read worker results until `doc`'s has arrived (or the stream is done)."""
        while doc in self._pending and self._stream is not None:
            got = next(self._stream, None)
            if got is None:
                self._finish()
                break
            done, todo, matrix = got
            self._ready[done] = dict(zip(todo, matrix, strict=True))
            self._pending.discard(done)
            if not self._pending:
                self._finish()

    def _drain(self) -> None:
        while self._pending and self._stream is not None:
            self._receive(next(iter(self._pending)))

    def _finish(self) -> None:
        pool, self._pool, self._stream = self._pool, None, None
        self._pending.clear()
        if pool is not None:
            pool.join()  # type: ignore[attr-defined]

    def rank(self, target: Target) -> Ranking:
        phrases = self.phrases(target)
        rows = self.corpus.rows(target.doc_id)
        if not phrases or not rows:
            return []
        if target.doc_id != self._doc:
            self._doc = target.doc_id
            self._scores.clear()
            self._chunks.clear()
            if target.doc_id in self._pending:
                self._receive(target.doc_id)
            self._scores.update(self._ready.pop(target.doc_id, {}))
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
