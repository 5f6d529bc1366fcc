"""Routes and pools: tokenizer == textnorm, BM25 == rank_bm25, each route finds its planted page."""

from __future__ import annotations

import itertools
import json
import random
import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from packet_builder.pools import RRF_K, PoolPage, cap, fuse
from packet_builder.routes.base import Corpus, Target, fast_normalize, tokenize
from packet_builder.routes.bm25 import BM25Index, BM25Route, query_tokens
from packet_builder.routes.construction import construction_route
from packet_builder.routes.fuzzy import FuzzyRoute
from packet_builder.routes.lexical import LexicalRoute
from packet_builder.textnorm import normalize
from tests.test_packet_fixtures import filler

VECTORS = Path(__file__).parent / "data" / "textnorm_vectors.json"


def test_fast_normalize_matches_textnorm_vectors() -> None:
    cases = json.loads(VECTORS.read_text())["normalize"]
    assert cases
    for case in cases:
        assert fast_normalize(case["input"]) == normalize(case["input"]) == case["expected"]


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            list("abcXYZ019 -\n\t\u00ad\ufb01\u2013\u201c\u201d\u2019\u00e9e\u0301\u00c5\u212b_.")
        ),
        max_size=40,
    )
)
def test_fast_normalize_equals_normalize(text: str) -> None:
    # The one documented difference: a soft hyphen carrying a combining mark (not real text).
    pairs = itertools.pairwise(text)
    assume(not any(a == "\u00ad" and unicodedata.combining(b) for a, b in pairs))
    assert fast_normalize(text) == normalize(text)


PLANTED = {
    "exact": "The reef showed clear signs of Coral Bleach-\ning across the survey.",
    "ligature": "Severe coral bleaching was seen; the \ufb01eld notes agree.",
    "garbled": "Observers recorded corai bIeaching along the northern transect.",
    "bm25": "Thermal stress anomaly measured: thermal stress, thermal stress index, "
    "degree heating weeks of thermal stress recorded daily.",
}


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    rng = random.Random(3)
    rows = []
    for d in ("docA", "docB", "docC"):
        texts = [filler(rng, 80) for _ in range(8)]
        if d == "docA":
            texts[1] += " " + PLANTED["exact"]
            texts[3] += " " + PLANTED["ligature"]
            texts[5] += " " + PLANTED["garbled"]
            texts[6] += " " + PLANTED["bm25"]
        rows += [(d, p, t) for p, t in enumerate(texts, start=1)]
    rows.append(("docC", 9, "thermal stress thermal stress"))
    return Corpus.from_rows(rows)


TARGET = Target(
    "q1",
    "docA",
    "c1",
    "coral bleaching",
    requirement="Documents thermal stress on reefs.",
    aliases=("reef bleaching",),
)


def test_lexical_finds_exact_alias_with_hyphenation_and_ligature(corpus: Corpus) -> None:
    ranked = LexicalRoute(corpus).rank(TARGET)
    assert [p for p, _ in ranked] == [2, 4]  # page 6 is OCR-garbled: no exact hit


def test_fuzzy_finds_ocr_garbled_alias_exact_matching_misses(corpus: Corpus) -> None:
    assert "coral bleaching" not in fast_normalize(PLANTED["garbled"])
    ranked = dict(FuzzyRoute(corpus).rank(TARGET))
    assert 6 in ranked and 6 not in dict(LexicalRoute(corpus).rank(TARGET))
    assert ranked[2] == ranked[4] == 100.0
    assert 80.0 <= ranked[6] < 100.0


def test_bm25_ranks_a_page_only_it_finds(corpus: Corpus) -> None:
    route = BM25Route(corpus, BM25Index.from_corpus(corpus))
    ranked = [p for p, _ in route.rank(TARGET)]
    assert 7 in ranked[:3]  # the alias pages 2 and 4 share the top with it
    assert 7 not in dict(LexicalRoute(corpus).rank(TARGET))
    assert 7 not in dict(FuzzyRoute(corpus).rank(TARGET))
    assert set(ranked) <= set(corpus.doc_pages("docA"))  # restricted to the document


def test_bm25_scores_equal_rank_bm25_over_all_pages(corpus: Corpus) -> None:
    tokens = [tokenize(t) for t in corpus.texts]
    ours = BM25Index(tokens)
    ref = BM25Okapi(tokens)
    queries = [
        query_tokens(TARGET),
        ["thermal", "thermal", "stress", "unknownword"],
        tokenize(corpus.texts[0])[:5],
        ["kalo"],
    ]
    for q in queries:
        assert ours.scores(q) == pytest.approx(ref.get_scores(q), rel=1e-12, abs=1e-12)
        rows = corpus.rows("docA")
        assert ours.scores(q, rows) == pytest.approx(
            ref.get_scores(q)[rows.start : rows.stop], rel=1e-12, abs=1e-12
        )


def test_bm25_negative_idf_floor_matches_rank_bm25() -> None:
    docs = [["a", "b"], ["a", "c"], ["a", "b", "d"], ["e"]]
    ours, ref = BM25Index(docs), BM25Okapi(docs)
    for q in (["a"], ["b", "a"], ["d", "e", "a", "a"]):
        assert ours.scores(q) == pytest.approx(ref.get_scores(q), rel=1e-12, abs=1e-12)


def test_construction_route_replays_evidence() -> None:
    route = construction_route([("q1", "docA", "c1", 4), ("q1", "docA", "c1", 2)])
    assert route.rank(TARGET) == [(2, 1.0), (4, 1.0)]


def test_fuse_is_reciprocal_rank_with_page_ties() -> None:
    fused = fuse({"lexical": [(5, 3.0), (2, 1.0)], "bm25": [(2, 9.0), (7, 1.0)], "fuzzy": []})
    scores = {p.page: p.score for p in fused}
    assert scores[2] == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert scores[5] == pytest.approx(1 / (RRF_K + 1))
    assert [p.page for p in fused] == [2, 5, 7]
    assert fused[0].routes == {"lexical": 2, "bm25": 1}
    tie = fuse({"lexical": [(9, 1.0)], "bm25": [(4, 1.0)]})
    assert [p.page for p in tie] == [4, 9]


@pytest.mark.parametrize(
    ("found", "n_pages", "lo", "hi", "size"),
    [
        (12, 20, 6, 9, 9),
        (2, 20, 6, 9, 6),
        (2, 4, 6, 9, 4),
        (0, 3, 3, 3, 3),
        (5, 20, 3, 3, 3),
    ],
)
def test_cap_bounds(found: int, n_pages: int, lo: int, hi: int, size: int) -> None:
    fused = [PoolPage(p, {"bm25": p}, fused_rank=p) for p in range(1, found + 1)]
    pool = cap(fused, list(range(1, n_pages + 1)), lo, hi)
    assert len(pool) == size
    assert len({p.page for p in pool}) == size
    assert all(p.fill == (not p.routes) for p in pool)
