"""`tokenize` over a whole corpus at once: every text's words as integer codes.

`evaudit runs bm25` tokenizes every unit of the corpus; a Python string and a list
entry per word was most of its time. Here the texts are joined with NUL (a character
that is neither a word character nor whitespace, that no normalization step changes
or composes with, so no step reaches across it), folded once, and the words are found
as byte runs with numpy: in ASCII text `\\w` is `[A-Za-z0-9_]`, so one byte table marks
the rest; other text goes through one regex that blanks every non-word character,
after which every byte that is not a space or NUL belongs to a word (UTF-8 bytes of
other characters are >= 0x80). Arrow's dictionary encoding numbers the words in order
of first occurrence, as a dict filled word by word would. A test checks the codes
against `tokenize` text by text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from packet_builder.routes.base import fold

_SEP = "\x00"
# Any character that is not a word character, the separator or a space (Python's \w).
_NON_WORD = re.compile(r"[^\w\x00 ]+")
_ASCII_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_\x00")
_ASCII_BLANK = bytes(c if c in _ASCII_WORD else 0x20 for c in range(256))


@dataclass(frozen=True)
class TokenCodes:
    """Text i's words are `vocab[codes[offsets[i]:offsets[i + 1]]]`, in text order."""

    codes: np.ndarray
    offsets: np.ndarray
    vocab: list[str]


def token_codes(texts: Sequence[str]) -> TokenCodes:
    """`tokenize(t)` for every text, as codes into one vocabulary."""
    import pyarrow as pa

    if not texts:
        return TokenCodes(np.empty(0, np.int64), np.zeros(1, np.int64), [])
    joined = _SEP.join(texts)
    if joined.count(_SEP) != len(texts) - 1:
        # NUL inside a text: \x01 tokenizes the same (neither word nor space) and no
        # normalization step changes it.
        joined = _SEP.join(t.replace(_SEP, "\x01") for t in texts)
    folded = fold(joined)
    if folded.isascii():
        raw = folded.encode("ascii").translate(_ASCII_BLANK)
    else:
        raw = _NON_WORD.sub(" ", folded).encode("utf-8")
    data = np.frombuffer(raw, dtype=np.uint8)
    word = (data != 0x20) & (data != 0)
    # Word runs start at a +1 step of the mask and end at the next -1 step: they alternate.
    steps = np.flatnonzero(np.diff(np.concatenate(([False], word, [False])).view(np.int8)))
    starts = steps[0::2]
    offsets = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(steps[1::2] - starts, out=offsets[1:])
    words = pa.LargeStringArray.from_buffers(
        len(starts), pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data[word]))
    )
    encoded = words.dictionary_encode()
    # Text i's words are those that start before its closing separator.
    per_text = np.empty(len(texts) + 1, dtype=np.int64)
    per_text[0], per_text[-1] = 0, len(starts)
    per_text[1:-1] = np.searchsorted(starts, np.flatnonzero(data == 0))
    # Read from the buffer: Array.to_numpy imports pandas (0.7 s).
    indices = encoded.indices
    codes = np.frombuffer(indices.buffers()[1], dtype=f"<i{indices.type.bit_width // 8}",
                          count=len(indices),
                          offset=4 * indices.offset).astype(np.int64)  # fmt: skip
    return TokenCodes(codes, per_text, encoded.dictionary.to_pylist())
