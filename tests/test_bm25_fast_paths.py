"""`runs bm25`'s fast paths give what the plain code gives, exactly.

The corpus tokenizer (`token_codes`) against `tokenize` text by text, on ASCII text and
on text that takes every normalization step; the index built from one array of codes
against bm25s's own build, bit for bit, for every method; the run written from index
columns against `write_run`'s bytes; and the command's process imports neither numba,
scipy nor pandas while a later import of them still works.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import bm25s
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.run_files import write_coded_run, write_run
from packet_builder.routes.base import tokenize
from packet_builder.token_codes import token_codes
from scorers.lexical import METHODS, BM25Index

ROOT = Path(__file__).resolve().parents[1]

# Characters that each exercise a step: NUL and \x01 (the separator and its stand-in),
# soft hyphen, hyphenated line breaks, a combining mark, NFKC ligatures and fractions,
# case folding (ß, İ), curly quotes and dashes, Unicode spaces and line breaks, digits
# of other scripts, CJK.
CHARS = [*"ab Z9_-\n\t.,'", "\x00", "\x01", "\u00ad", "\u0301", "ß", "İ", "\ufb01", "½",
         "\u0661", "\u2019", "\u2014", "\u2028", "\x1c", "\u3000", "語", "Ǆ", "\u00a0"]  # fmt: skip
TRICKY = st.text(st.sampled_from(CHARS), max_size=25)
ASCII = st.text(st.sampled_from(list("abc XYZ 019_-\n.,;'\"")), max_size=25)


def _check_codes(texts: list[str]) -> None:
    got = token_codes(texts)
    assert len(got.offsets) == len(texts) + 1
    for i, text in enumerate(texts):
        codes = got.codes[got.offsets[i] : got.offsets[i + 1]]
        assert [got.vocab[c] for c in codes] == tokenize(text)
    first_seen: dict[str, int] = {}
    for text in texts:
        for word in tokenize(text):
            first_seen.setdefault(word, len(first_seen))
    assert got.vocab == list(first_seen)


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, max_size=8))
def test_token_codes_are_tokenize_on_any_text(texts: list[str]) -> None:
    _check_codes(texts)


@settings(max_examples=150, deadline=None)
@given(st.lists(ASCII, max_size=8))
def test_token_codes_are_tokenize_on_ascii_text(texts: list[str]) -> None:
    _check_codes(texts)


def test_token_codes_edge_cases() -> None:
    for texts in ([], [""], ["", ""], ["evi-\n dence", "-\nx", "x-", "\nb"], ["a\x00b", "c"]):
        _check_codes(texts)


WORDS = st.sampled_from([f"t{i}" for i in range(12)])


# A corpus of empty units has an average length of 0: bm25s's own non-occurrence scores
# divide by it (nan in both builds, compared as bytes).
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=15), min_size=1, max_size=15),
       st.sampled_from([(1.5, 0.75), (0.9, 0.4), (1.2, 1.0), (0.5, 0.0)]))  # fmt: skip
def test_index_is_bm25s_own_build_bit_for_bit(docs: list[list[str]], params: tuple) -> None:
    k1, b = params
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in d] for d in docs]
    if not vocab:
        vocab[""] = 0
    for method in METHODS:
        ours = BM25Index(docs, k1=k1, b=b, method=method)._bm25
        ref = bm25s.BM25(k1=k1, b=b, method=method, dtype="float64")
        ref.index(bm25s.tokenization.Tokenized(ids=ids, vocab=dict(vocab)), show_progress=False)
        for key in ("data", "indices", "indptr"):
            assert ours.scores[key].dtype == ref.scores[key].dtype, (method, key)
            assert ours.scores[key].tobytes() == ref.scores[key].tobytes(), (method, key)
        assert ours.scores["num_docs"] == ref.scores["num_docs"]
        assert ours.vocab_dict == ref.vocab_dict
        if ref.nonoccurrence_array is None:
            assert ours.nonoccurrence_array is None
        else:
            assert ours.nonoccurrence_array.tobytes() == ref.nonoccurrence_array.tobytes()


def test_coded_run_is_write_run_byte_for_byte(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    queries = ["q1", "q-é", "Q 3".replace(" ", "_"), "語"]
    docs = [f"d{i}#{i % 3 + 1}" for i in range(30)] + ["Straße#2"]
    n = 500
    q_of = np.sort(rng.integers(0, len(queries), n))
    d_of = rng.integers(0, len(docs), n)
    ranks = rng.integers(1, 1000, n)
    scores = np.concatenate([rng.random(n - 4) * 10.0 ** rng.integers(-8, 8, n - 4),
                             [0.0, -1.5, 1e-300, 12.0]])  # fmt: skip
    a, b = tmp_path / "a.trec", tmp_path / "b.trec"
    lines = write_run(a, [queries[i] for i in q_of], [docs[i] for i in d_of], ranks, scores, "t")
    assert write_coded_run(b, queries, q_of, docs, d_of, ranks, scores, "t") == lines == n
    assert a.read_bytes() == b.read_bytes()
    empty = np.empty(0, np.int64)
    write_coded_run(b, [], empty, docs, empty, empty, np.empty(0), "t")
    assert b.read_bytes() == b""


_PROBE = r"""
import sys
from scorers.lexical import BM25Index
from packet_builder.token_codes import token_codes
c = token_codes(["alpha beta", "beta gamma"])
index = BM25Index.from_codes(c.codes, c.offsets, c.vocab, k1=1.5, b=0.75)
assert index.scores(["beta"]).tolist() == BM25Index(
    [["alpha", "beta"], ["beta", "gamma"]], k1=1.5, b=0.75).scores(["beta"]).tolist()
loaded = [m for m in ("numba", "scipy", "pandas") if m in sys.modules]
import numba, scipy.sparse  # still importable afterwards
print(",".join(loaded) or "none")
"""


def test_bm25_imports_neither_numba_scipy_nor_pandas() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                          cwd=ROOT, check=True)  # fmt: skip
    assert done.stdout.strip() == "none", done.stdout
