"""Routes and pools: tokenizer == textnorm, BM25 == rank_bm25, each route finds its planted page."""

from __future__ import annotations

import itertools
import json
import random
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi
from rapidfuzz import fuzz, process

from packet_builder.pools import (
    RRF_K,
    PoolPage,
    build_pool,
    cap,
    expect_targets,
    fuse,
    fuse_and_cap,
)
from packet_builder.routes.base import Corpus, Target, fast_normalize, tokenize
from packet_builder.routes.bm25 import BM25Index, BM25Route, query_tokens
from packet_builder.routes.construction import construction_route
from packet_builder.routes.fuzzy import FuzzyRoute
from packet_builder.routes.fuzzy_filter import (
    Chunks,
    band,
    lcs_bounds,
    min_lcs,
    partial_ratio_matrix,
)
from packet_builder.routes.lexical import LexicalRoute
from tests.test_packet_fixtures import filler
from vocabulary.textnorm import normalize

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


# --- fuzzy prefilter: exactly the unfiltered partial_ratio for everything at or above threshold


@pytest.mark.parametrize("threshold", [60.0, 80.0, 90.0, 100.0])
def test_min_lcs_is_the_rapidfuzz_threshold(threshold: float) -> None:
    # P = a^l b^(L-l), W = a^l c^(m-l): LCS = l, so fuzz.ratio = 200 l / (L + m) exactly as
    # rapidfuzz computes it; the bound must be the least l that rapidfuzz lets through.
    for length in range(1, 25):
        for m in range(1, length + 1):
            passing = [
                lcs
                for lcs in range(0, m + 1)
                if fuzz.ratio("a" * lcs + "b" * (length - lcs), "a" * lcs + "c" * (m - lcs))
                >= threshold
            ]
            if passing:
                assert min_lcs(length, m, threshold) == min(passing)
            else:  # no LCS <= m reaches the threshold for this window length
                assert min_lcs(length, m, threshold) > m
        interior, edge = lcs_bounds(length, threshold)
        assert interior == min_lcs(length, length, threshold)
        assert edge <= interior


def test_chunks_cover_every_window() -> None:
    rng = random.Random(5)
    texts = ["".join(rng.choice("ab c") for _ in range(n)) for n in (0, 5, 40, 41, 97, 300)]
    for lo, hi in [(6, 7), (10, 12), (13, 15), (49, 64)]:
        chunks = Chunks.cut(texts, lo, hi)
        for i, text in enumerate(texts):
            if i in chunks.direct:
                assert len(text) <= 2 * lo + hi - 1
                continue
            mine = [c for c, pg in zip(chunks.texts, chunks.page, strict=True) if pg == i]
            edges = [c for c, pg, e in zip(chunks.texts, chunks.page, chunks.edge, strict=True)
                     if pg == i and e]  # fmt: skip
            for length in range(lo, hi + 1):
                n = len(text)
                windows = [text[s : s + length] for s in range(n - length + 1)]
                assert all(any(w in c for c in mine) for w in windows)
                # prefixes and suffixes shorter than L lie in an edge chunk, at its edge
                assert all(any(c.startswith(text[:j]) for c in edges) for j in range(1, length))
                assert all(any(c.endswith(text[n - j :]) for c in edges) for j in range(1, length))


def garbled_corpus(seed: int, n_pages: int = 24) -> tuple[list[str], list[str]]:
    """Filler pages with phrases planted exactly, with 1-3 OCR-like errors, at page edges."""
    rng = random.Random(seed)
    phrases = [
        "coral bleaching", "reef whitening", "tidal power", "glacier retreat", "city heat",
        "ocean acidification of coastal waters", "peatland burning", "delta sinking",
        "a very long condition name that is longer than sixty-four characters in total",
    ]  # fmt: skip
    swaps = {"m": "rn", "l": "i", "o": "0", "e": "c", "a": "o", "i": "l", "h": "b"}

    def garble(p: str, k: int) -> str:
        chars = list(p)
        for _ in range(k):
            j = rng.randrange(len(chars))
            chars[j] = swaps.get(chars[j], rng.choice("xqz"))
        return "".join(chars)

    texts = []
    for i in range(n_pages):
        body = filler(rng, rng.choice([3, 40, 120]))
        p = fast_normalize(rng.choice(phrases))
        kind = i % 6
        if kind == 1:
            body = f"{body} {garble(p, rng.randint(1, 3))} {filler(rng, 20)}"
        elif kind == 2:
            body = f"{garble(p, rng.randint(0, 2))[2:]} {body}"  # cut at the page start
        elif kind == 3:
            body = f"{body} {garble(p, rng.randint(0, 2))[:-3]}"  # cut at the page end
        elif kind == 4:
            body = garble(p, 1)  # the page is the phrase
        elif kind == 5:
            body = p[: len(p) // 2]  # shorter than the phrase
        texts.append(fast_normalize(body))
    needles = [fast_normalize(p) for p in phrases] + [garble(fast_normalize(phrases[0]), 2)]
    return needles, texts


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("threshold", [30.0, 70.0, 80.0, 90.0])
def test_filtered_partial_ratio_equals_cdist(seed: int, threshold: float) -> None:
    phrases, texts = garbled_corpus(seed)
    expected = process.cdist(phrases, texts, scorer=fuzz.partial_ratio, score_cutoff=threshold)
    got = partial_ratio_matrix(phrases, texts, threshold, min_work=0)
    assert got.dtype == expected.dtype
    assert (got == expected).all()
    assert (expected >= threshold).sum() > len(phrases)  # the corpus does plant matches
    # one phrase at a time with a shared chunk cache: the same numbers
    cache: dict[tuple[int, int], Chunks] = {}
    for i, p in enumerate(phrases):
        assert (
            partial_ratio_matrix([p], texts, threshold, cache, min_work=0)[0] == expected[i]
        ).all()


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet="abc ", min_size=6, max_size=20),
    st.lists(st.text(alphabet="abcd ", max_size=200), min_size=1, max_size=4),
)
def test_filtered_partial_ratio_equals_cdist_small_alphabet(phrase: str, texts: list[str]) -> None:
    # A tiny alphabet puts many windows near the threshold: the bound is tight here.
    expected = process.cdist([phrase], texts, scorer=fuzz.partial_ratio, score_cutoff=80.0)
    assert (partial_ratio_matrix([phrase], texts, 80.0, min_work=0) == expected).all()


def test_band_covers_every_filtered_length() -> None:
    for length in range(1, 65):
        lo, hi = band(length)
        assert lo <= length <= hi and hi <= max(2 * lo, 5)


def test_fuzzy_route_equals_unfiltered_route_on_garbled_corpus() -> None:
    rng = random.Random(11)
    rows, targets = [], []
    for d in range(6):
        phrases, texts = garbled_corpus(100 + d, n_pages=12)
        doc = f"doc{d}"
        rows += [(doc, p, t) for p, t in enumerate(texts, start=1)]
        for j in range(8):
            name, *aliases = rng.sample(phrases, 3)
            targets.append(
                Target(f"q{j}", doc, "c1", name, aliases=tuple(aliases[: rng.randint(0, 2)]))
            )
    corpus = Corpus.from_rows(rows)
    route = FuzzyRoute(corpus, min_filter_work=0)  # always through the prefilter
    expect_targets([route], targets)
    found = 0
    for target in targets:
        rows_ = corpus.rows(target.doc_id)
        texts = corpus.norm[rows_.start : rows_.stop]
        phrases = [p for p in target.phrases() if len(p) >= route.min_chars]
        # The route before the prefilter: plain cdist over the document's pages.
        best = process.cdist(phrases, texts, scorer=fuzz.partial_ratio, score_cutoff=80.0).max(0)
        unfiltered = sorted(
            ((corpus.pages[rows_.start + i], float(s)) for i, s in enumerate(best) if s >= 80.0),
            key=lambda kv: (-kv[1], kv[0]),
        )
        assert route.rank(target) == unfiltered
        assert FuzzyRoute(corpus).rank(target) == unfiltered  # no expect, default: same
        assert FuzzyRoute(corpus, min_filter_work=0).rank(target) == unfiltered
        found += len(unfiltered)
    assert found > len(targets)


def test_fuzzy_worker_processes_give_the_same_rankings() -> None:
    rng = random.Random(12)
    rows, targets = [], []
    for d in range(5):
        phrases, texts = garbled_corpus(200 + d, n_pages=10)
        rows += [(f"doc{d}", p, t) for p, t in enumerate(texts, start=1)]
        for j in range(4):
            name, alias = rng.sample(phrases, 2)
            targets.append(Target(f"q{j}", f"doc{d}", "c1", name, aliases=(alias,)))
    corpus = Corpus.from_rows(rows)
    local = FuzzyRoute(corpus, processes=1, min_filter_work=0)
    forked = FuzzyRoute(corpus, processes=2, parallel_docs=1, min_filter_work=0)
    expect_targets([local, forked], targets)
    assert forked._pending  # the documents went to the worker processes
    # Out of announced order, plus a target nobody announced: still the same rankings.
    extra = Target("qx", "doc1", "c9", targets[0].name)
    for target in [targets[5], *targets, extra]:
        assert forked.rank(target) == local.rank(target)
    assert forked._pool is None and not forked._pending  # workers joined


def test_lexical_route_reuses_rankings_of_repeated_phrases(corpus: Corpus) -> None:
    same = Target("q9", "docA", "c3", TARGET.name, "another requirement", TARGET.aliases)
    other = Target("q2", "docA", "c2", "thermal stress")
    route = LexicalRoute(corpus)
    first = route.rank(TARGET)
    first.append((999, 1.0))  # a caller's change does not reach the next target
    for target in (same, other, TARGET, same):
        assert route.rank(target) == LexicalRoute(corpus).rank(target)
    assert route.rank(same) == LexicalRoute(corpus).rank(TARGET) != []


def test_expect_targets_leaves_pools_unchanged(corpus: Corpus) -> None:
    other = Target("q2", "docA", "c2", "thermal stres", aliases=("coral bleachlng",))
    plain = [FuzzyRoute(corpus), LexicalRoute(corpus)]
    batched = [FuzzyRoute(corpus), LexicalRoute(corpus)]
    expect_targets(batched, [TARGET, other])
    pages = corpus.doc_pages("docA")
    for target in (TARGET, other):
        assert build_pool(target, plain, pages, 6, 9) == build_pool(target, batched, pages, 6, 9)


# --- faster lexical / BM25 / fusion: the same results as the plain definitions


def plain_lexical(corpus: Corpus, target: Target) -> list[tuple[int, float]]:
    """The definition: whole-word regex over every page of the document."""
    phrases = target.phrases()
    if not phrases:
        return []
    alternation = "|".join(re.escape(p) for p in phrases)
    pattern = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)")
    hits = {
        corpus.pages[r]: float(len(pattern.findall(corpus.norm[r])))
        for r in corpus.rows(target.doc_id)
    }
    return sorted(((p, h) for p, h in hits.items() if h), key=lambda kv: (-kv[1], kv[0]))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab -_.é", min_size=1, max_size=6), min_size=1, max_size=3),
    st.lists(st.text(alphabet="ab -_.é\u00ad", max_size=60), min_size=1, max_size=4),
)
def test_lexical_route_equals_plain_regex(names: list[str], texts: list[str]) -> None:
    corpus = Corpus.from_rows([("d", i + 1, t) for i, t in enumerate(texts)] + [("e", 1, "a b")])
    target = Target("q", "d", "c", names[0], aliases=tuple(names[1:]))
    assert LexicalRoute(corpus).rank(target) == plain_lexical(corpus, target)


def test_lexical_route_equals_plain_regex_on_garbled_corpus() -> None:
    rng = random.Random(2)
    rows = []
    for d in range(4):
        phrases, texts = garbled_corpus(200 + d, n_pages=15)
        # plus exact mentions, one inside a word (no whole-word hit) and one in upper case
        texts[7] += f" {phrases[0]} and {phrases[1]}, {phrases[0]}."
        texts[8] += f" x{phrases[2]} {phrases[3].upper()}"
        rows += [(f"doc{d}", p, t) for p, t in enumerate(texts, start=1)]
    corpus = Corpus.from_rows(rows)
    route = LexicalRoute(corpus)
    found = 0
    for d in range(4):
        for _ in range(6):
            name, *aliases = rng.sample(phrases, 3)
            target = Target("q", f"doc{d}", "c", name, aliases=tuple(aliases))
            expected = plain_lexical(corpus, target)
            assert route.rank(target) == expected
            found += len(expected)
    assert found


def test_bm25_batched_scores_are_bit_identical(corpus: Corpus) -> None:
    index = BM25Index.from_corpus(corpus)
    queries = [
        query_tokens(TARGET),
        ["thermal", "thermal", "stress", "unknownword"],
        tokenize(corpus.texts[0])[:7],
        [],
        ["kalo"],
    ]
    for doc in ("docA", "docB", "docC"):
        rows = corpus.rows(doc)
        many = index.scores_many(queries, rows)
        for q, row in zip(queries, many, strict=True):
            assert row.tolist() == index.scores(q, rows).tolist()  # exact, not approx
    other = Target("q2", "docA", "c2", "thermal stress", requirement="reef heat index")
    plain, batched = BM25Route(corpus, index), BM25Route(corpus, index)
    expect_targets([batched], [TARGET, other])
    for target in (TARGET, other):
        assert batched.rank(target) == plain.rank(target)
        scores = index.scores(query_tokens(target), corpus.rows("docA"))
        pages = corpus.doc_pages("docA")
        assert plain.rank(target) == sorted(
            ((p, float(s)) for p, s in zip(pages, scores, strict=True) if s > 0),
            key=lambda kv: (-kv[1], kv[0]),
        )


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["original", "lexical", "bm25", "fuzzy", "construction", "extra"]),
        st.lists(st.integers(1, 15), unique=True, max_size=12),
    ),
    st.lists(st.integers(1, 15), unique=True, max_size=15),
    st.integers(0, 6),
    st.integers(0, 6),
)
def test_fuse_and_cap_equals_cap_of_fuse(
    pages_by_route: dict[str, list[int]], doc_pages: list[int], lo: int, extra: int
) -> None:
    rankings = {r: [(p, 1.0) for p in pages] for r, pages in pages_by_route.items()}
    hi = lo + extra
    assert fuse_and_cap(rankings, doc_pages, lo, hi) == cap(fuse(rankings), doc_pages, lo, hi)


def test_threads_give_the_same_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    import packet_builder.routes.fuzzy_filter as fuzzy_filter

    monkeypatch.setattr(fuzzy_filter, "PARALLEL_CELLS", 0)  # thread every LCS matrix
    phrases, texts = garbled_corpus(4)
    expected = process.cdist(phrases, texts, scorer=fuzz.partial_ratio, score_cutoff=80.0)
    assert (partial_ratio_matrix(phrases, texts, 80.0, workers=2, min_work=0) == expected).all()
