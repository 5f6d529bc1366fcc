"""The BEIR fast path (Arrow) never reads a corpus differently from the per-line reader.

For each corpus below, `beir_fast.read_corpus` either gives exactly the reference's
passages or declines (None), and the reference's verdict stands: its passages, or one
`InputError` naming the file and line. Each case is one Arrow and `json.loads` disagree
on, or once crashed one of the two.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from formats import beir
from packet_builder.beir_fast import read_corpus
from vocabulary.errors import InputError

DEEP = b"[" * 3000 + b"]" * 3000
GOOD = b'{"_id": "a", "text": "x"}\n{"_id": "b", "title": "T", "text": "y"}\n'
CASES = {
    "good": GOOD,
    "crlf": GOOD.replace(b"\n", b"\r\n"),
    "no final newline": GOOD[:-1],
    "blank line": GOOD.replace(b"\n", b"\n\n", 1),
    "two objects on a line": b'{"_id": "a", "text": "x"} {"_id": "b", "text": "y"}\n',
    "invalid utf-8 in the title": b'{"_id": "a", "title": "\xff", "text": "x"}\n',
    "invalid utf-8 in another field": b'{"_id": "a", "text": "x", "m": "\xff"}\n',
    "long integer in another field": b'{"_id": "a", "text": "x", "n": ' + b"1" * 5000 + b"}\n",
    "deep value in another field": b'{"_id": "a", "text": "x", "n": ' + DEEP + b"}\n",
    "lone surrogate in the text": b'{"_id": "a", "text": "x\\ud800y"}\n',
    "surrogate pair in the text": b'{"_id": "a", "text": "x\\ud83d\\ude00y"}\n',
    "duplicate key": b'{"_id": "a", "_id": "b", "text": "x"}\n',
    "NaN in another field": b'{"_id": "a", "text": "x", "s": NaN}\n',
    # Arrow (RapidJSON) reads these three constants; json.loads refuses them
    "Inf in another field": b'{"_id": "a", "text": "x", "s": Inf}\n',
    "-Inf in another field": b'{"_id": "a", "text": "x", "s": [1, -Inf]}\n',
    "-NaN in another field": b'{"_id": "a", "text": "x", "s": -NaN}\n',
    "Infinity in another field": b'{"_id": "a", "text": "x", "s": -Infinity}\n',
    "Inf in a string": b'{"_id": "a", "text": "x: Inf, y"}\n',
    "deep value in a string": b'{"_id": "a", "text": "x", "n": "' + DEEP + b'"}\n',
    "array line": b"[1]\n",
}


def reference(folder: Path) -> list[tuple[str, str]] | str:
    try:
        return [(d, t) for d, t, _ in beir.corpus_pages(folder)]
    except InputError as exc:
        return "error: " + exc.render()


@pytest.mark.parametrize("name", list(CASES))
def test_fast_path_reads_as_the_reference_or_declines(name: str, tmp_path: Path) -> None:
    (tmp_path / "corpus.jsonl").write_bytes(CASES[name])
    ref = reference(tmp_path)  # never a traceback
    fast = read_corpus(tmp_path)
    if fast is not None:
        assert list(zip(fast.doc_ids, fast.texts, strict=True)) == ref
    if isinstance(ref, str):
        assert ref.count("\n") == 0 and str(tmp_path / "corpus.jsonl") in ref


def test_what_the_reference_says() -> None:
    expect = {
        "two objects on a line": ":1: malformed JSON",
        "long integer in another field": ":1: malformed JSON (number too long",
        "deep value in another field": ":1: malformed JSON (nested deeper",
        "lone surrogate in the text": ":1: a string holds half of a UTF-16 surrogate pair",
        "invalid utf-8 in the title": "not UTF-8 text",
        "Inf in another field": ":1: malformed JSON",
    }
    import tempfile

    for name, text in expect.items():
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "corpus.jsonl").write_bytes(CASES[name])
            got = reference(folder)
            assert isinstance(got, str) and text in got, (name, got)


QREL = b'{"query_id": "q1", "doc_id": "d1", "grade": 2}\n{"query_id": "q1", "doc_id": "d2", "grade": 0}\n'
QREL_CASES = {
    "good": QREL,
    "two objects on a line": QREL.replace(b"}\n{", b"} {"),
    "invalid utf-8 in an id": b'{"query_id": "q\xff", "doc_id": "d1", "grade": 1}\n',
    "invalid utf-8 in another field": b'{"query_id": "q1", "doc_id": "d1", "grade": 1, "n": "\xff"}\n',
    "long integer in another field": b'{"query_id": "q1", "doc_id": "d1", "grade": 1, "n": '
    + b"1" * 5000
    + b"}\n",
    "deep value in another field": b'{"query_id": "q1", "doc_id": "d1", "grade": 1, "n": '
    + DEEP
    + b"}\n",
    "blank line": QREL.replace(b"\n", b"\n\n", 1),
    "Inf in another field": b'{"query_id": "q1", "doc_id": "d1", "grade": 1, "n": Inf}\n',
}


def _qrels(path: Path) -> list[tuple[str, str, int]] | str:
    from formats.qrels import read_qrels

    try:
        df = read_qrels(path)
    except InputError as exc:
        return "error: " + exc.render()
    return [
        (q, d, int(g)) for q, d, g in df[["query_id", "doc_id", "grade"]].itertuples(index=False)
    ]


@pytest.mark.parametrize("name", list(QREL_CASES))
def test_jsonl_qrels_read_as_the_checked_reader_reads_them(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from formats import qrels

    path = tmp_path / "qrels.jsonl"
    path.write_bytes(QREL_CASES[name])
    fast = _qrels(path)
    monkeypatch.setattr(qrels, "_arrow_jsonl_qrels", lambda _path: None)
    assert fast == _qrels(path)
