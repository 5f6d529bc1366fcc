"""Reference runs over the constructed corpus (TREC run rows), all from rank_bm25.

- bm25_doc: BM25Okapi over whole documents; the query is the condition names.
- bm25_and: bm25_doc restricted to documents holding every token of every condition name.
- bm25_page: BM25Okapi over pages; a document scores its best page.
- rrf: reciprocal-rank fusion of bm25_doc and bm25_page (k = cfg.rrf_k).
Ties break by doc_id so output is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from sample_packets.construction.aliases import TOKEN
from sample_packets.construction.extract import DocText
from vocabulary.textnorm import normalize

RunRow = tuple[str, str, int, float]  # query_id, doc_id, rank, score
QuerySpec = tuple[str, list[list[str]]]  # query_id, tokens of each condition name


class _CachedBM25:
    """get_scores(q) == sum of per-token score vectors in q's order, as rank_bm25 computes it."""

    def __init__(self, corpus: list[list[str]]) -> None:
        self.bm25 = BM25Okapi(corpus)
        self.cache: dict[str, np.ndarray] = {}

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        total = np.zeros(self.bm25.corpus_size)
        for t in tokens:
            if t not in self.cache:
                self.cache[t] = np.asarray(self.bm25.get_scores([t]))
            total += self.cache[t]
        return total


def _ranked(qid: str, scored: list[tuple[float, str]], depth: int) -> list[RunRow]:
    scored = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:depth]
    return [(qid, doc, rank, score) for rank, (score, doc) in enumerate(scored, start=1)]


def query_specs(queries: Sequence[dict[str, object]]) -> list[QuerySpec]:
    out: list[QuerySpec] = []
    for q in queries:
        conds = q["conditions"]
        assert isinstance(conds, list)
        out.append((str(q["query_id"]), [TOKEN.findall(normalize(c["name"])) for c in conds]))
    return out


def make_runs(
    docs: Sequence[DocText], queries: Sequence[QuerySpec], depth: int, rrf_k: int
) -> dict[str, list[RunRow]]:
    doc_ids = [d.doc_id for d in docs]
    doc_tokens = [[t for p in d.norm_pages for t in TOKEN.findall(p)] for d in docs]
    doc_sets = [set(t) for t in doc_tokens]
    page_owner: list[int] = []
    page_tokens: list[list[str]] = []
    for di, d in enumerate(docs):
        for p in d.norm_pages:
            page_owner.append(di)
            page_tokens.append(TOKEN.findall(p))
    doc_bm25 = _CachedBM25(doc_tokens)
    page_bm25 = _CachedBM25(page_tokens)
    owner = np.asarray(page_owner)
    runs: dict[str, list[RunRow]] = {"bm25_doc": [], "bm25_and": [], "bm25_page": [], "rrf": []}
    for qid, cond_tokens in queries:
        tokens = [t for ct in cond_tokens for t in ct]
        ds = doc_bm25.scores(tokens)
        doc_rows = _ranked(qid, [(float(s), doc_ids[i]) for i, s in enumerate(ds)], len(docs))
        runs["bm25_doc"].extend(doc_rows[:depth])
        needed = set(tokens)
        and_scored = [(float(ds[i]), doc_ids[i]) for i in range(len(docs)) if needed <= doc_sets[i]]
        runs["bm25_and"].extend(_ranked(qid, and_scored, depth))
        best = np.full(len(docs), -np.inf)
        np.maximum.at(best, owner, page_bm25.scores(tokens))
        page_rows = _ranked(qid, [(float(s), doc_ids[i]) for i, s in enumerate(best)], len(docs))
        runs["bm25_page"].extend(page_rows[:depth])
        fused: dict[str, float] = {}
        for rows in (doc_rows, page_rows):
            for _, doc, rank, _ in rows:
                fused[doc] = fused.get(doc, 0.0) + 1.0 / (rrf_k + rank)
        runs["rrf"].extend(_ranked(qid, [(s, d) for d, s in fused.items()], depth))
    return runs
