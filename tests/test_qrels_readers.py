"""formats.qrels: one parser per syntax, the n-Clue/graded/collection validation as an
option; each entry point keeps the words it had before the readers were shared (these
pin them, so a change of wording is a decision, not an accident of the refactor)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from formats.qrels import (
    graded_qrels_rows,
    qrels_columns,
    read_any_qrels,
    read_beir_qrels,
    read_qrels,
    read_trec_qrels,
)
from vocabulary.errors import InputError


def _graded(path: Path) -> Any:
    return read_trec_qrels(path, graded=True)


def _error(reader: Callable[[Path], Any], path: Path) -> str:
    with pytest.raises(InputError) as exc:
        reader(path)
    return exc.value.render().replace(str(path), "F")


TREC_CASES = [
    # text, n-Clue read_qrels, TREC collection reader (load --trec-qrels)
    ("q1 0 d1\n", "F:1: expected 4 fields for a TREC qrel (qid 0 docid grade), found 3",
     "F:1: expected 4 fields (qid iteration docno grade), found 3"),
    ("q1 0 d1 x\n", "F:1: grade 'x' is not a valid int", "F:1: grade 'x' is not an integer"),
    ("q1 0 d1 1\nq1 0 d1 2\n",
     "F:2: duplicate qrel for query 'q1' and document 'd1' (keep one grade per (query, document))",
     "F:2: duplicate qrel for query 'q1' and document 'd1' (first on line 1)"),
    ("q1 0 d1 1\nq1 0 d2 -1\n", "F:2: negative grade -1", None),
    # n-Clue: a repeat found after the whole file parsed, so a later bad line wins
    ("q1 0 d1 1\nq1 0 d1 1\nq1 0 d2 x\n", "F:3: grade 'x' is not a valid int",
     "F:2: duplicate qrel for query 'q1' and document 'd1' (first on line 1)"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "nclue", "collection"), TREC_CASES)
def test_trec_lines_words(tmp_path: Path, text: str, nclue: str, collection: str | None) -> None:
    path = tmp_path / "q.txt"
    path.write_text(text)
    assert _error(read_qrels, path) == nclue
    if collection is None:
        assert _graded(path)["grade"].tolist() == [1, -1]
        assert graded_qrels_rows(path) == [("q1", "d1", 1), ("q1", "d2", -1)]
    else:
        assert _error(_graded, path) == collection


def test_jsonl_graded_is_an_option(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"query_id": "q", "doc_id": "d", "grade": -2}\n')
    assert _error(read_qrels, path) == "F:1: negative grade -2"
    assert graded_qrels_rows(path) == [("q", "d", -2)]
    path.write_text('{"query_id": "q", "doc_id": "d", "grade": 1}\n' * 2)
    want = "F:2: duplicate qrel for query 'q' and document 'd'"
    assert _error(read_qrels, path) == want + " (keep one grade per (query, document))"
    assert _error(graded_qrels_rows, path) == want + " (one grade per (query, document))"


def test_beir_tsv_load_and_score_words(tmp_path: Path) -> None:
    (tmp_path / "qrels").mkdir()
    path = tmp_path / "qrels" / "test.tsv"
    head = "query-id\tcorpus-id\tscore\n"
    for body, load, score in [
        ("q1\td1\n", "F:2: expected 3 tab-separated fields, found 2",
         "F:2: expected query-id<TAB>corpus-id<TAB>score"),
        ("q1\t\t1\n", "F:2: empty query-id or corpus-id",
         "F:2: expected query-id<TAB>corpus-id<TAB>score"),
        ("q1\td1\thigh\n", "F:2: score 'high' is not an integer",
         "F:2: score 'high' is not an integer"),
    ]:  # fmt: skip
        path.write_text(head + body)
        assert _error(lambda p: read_beir_qrels(p.parent.parent, "test"), path) == load
        assert _error(read_any_qrels, path) == score
    path.write_text(head)
    assert _error(lambda p: read_beir_qrels(p.parent.parent, "test"), path) == (
        "F: no qrels rows after the header"
    )
    assert read_any_qrels(path).empty


def test_columns_take_arrow_and_keep_negative_grades(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 -1\nq1 0 d2 2\n")
    cols = qrels_columns(path)
    assert isinstance(cols, dict)  # Arrow's columns, no pandas frame
    assert cols["doc_id"].to_pylist() == ["d1", "d2"] and cols["grade"].tolist() == [-1, 2]
    assert read_any_qrels(path)["grade"].tolist() == [-1, 2]
