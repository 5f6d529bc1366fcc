"""TREC qrels and runs read as trec_eval reads them: `#` comment lines, blank lines, text
after a run line's tag, a `#` inside a docno; every reader of those files agrees."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from formats.qrels import read_any_qrels, read_qrels, read_trec_qrels
from formats.readers import read_run
from formats.run_files import read_run_columns
from vocabulary.errors import InputError

QRELS = "# comment here\n301 0 CR93E-1 0\n\n# and comment here\n301 0 CR#93E-2 1\n302 0 D1 2\n"
RUN = (
    "301\tQ0\tCR93E-1\t1\t  2.5\tSTD more junk at\n"
    "# a comment line with six fields here\n"
    "\n"
    "301 Q0 CR#93E-2 2 1.5 STD end of lines.\n"
    "302 Q0 D1 1 0.5 STD\n"
)


def read_graded_qrels(path: Path) -> pd.DataFrame:
    """A TREC collection's graded qrels, as `load --trec-qrels` reads them."""
    return read_trec_qrels(path, graded=True)


def _files(tmp_path: Path) -> tuple[Path, Path]:
    q, r = tmp_path / "qrels.test", tmp_path / "results.test"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def test_qrels_with_comments_and_blank_lines(tmp_path: Path) -> None:
    q, _ = _files(tmp_path)
    want = [("301", "CR93E-1", 0), ("301", "CR#93E-2", 1), ("302", "D1", 2)]
    for reader in (read_qrels, read_any_qrels, read_graded_qrels):
        df = reader(q)
        got = list(zip(df["query_id"], df["doc_id"], df["grade"], strict=True))
        assert got == want, reader.__name__


def test_run_with_comments_and_text_after_the_tag(tmp_path: Path) -> None:
    _, r = _files(tmp_path)
    df = read_run(r)
    assert list(df["doc_id"]) == ["CR93E-1", "CR#93E-2", "D1"]
    assert list(df["score"]) == [2.5, 1.5, 0.5]
    assert list(df["tag"]) == ["STD", "STD", "STD"]
    _qids, docs, _scores, tag = read_run_columns(r)
    assert docs.to_pylist() == ["CR93E-1", "CR#93E-2", "D1"] and tag == "STD"


def test_a_comment_line_with_four_fields_is_not_a_qrel(tmp_path: Path) -> None:
    q = tmp_path / "q.txt"
    q.write_text("# a b c\nq1 0 d1 1\n")  # the Arrow fast path would read '#' as a qid
    assert list(read_qrels(q)["query_id"]) == ["q1"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("# c\n\nq1 0 d1 1\nq1 0 d2\n", ":4: expected 4 fields"),
        ("# c\nq1 0 d1 1 extra\n", ":2: expected 4 fields"),
        ("# c\nq1 0 d1 x\n", ":2: grade 'x'"),
    ],
)
def test_bad_qrels_lines_are_named_after_comments(tmp_path: Path, text: str, where: str) -> None:
    q = tmp_path / "q.txt"
    q.write_text(text)
    for reader in (read_qrels, read_graded_qrels):
        with pytest.raises(InputError) as exc:
            reader(q)
        assert where in str(exc.value), reader.__name__


def test_bad_run_lines_are_named_after_comments(tmp_path: Path) -> None:
    r = tmp_path / "r.txt"
    r.write_text("# c\n\nq1 Q0 d1 1 0.5 T junk\nq1 Q0 d2 2 T\n")
    with pytest.raises(InputError, match=r"r.txt:4: expected 6 fields"):
        read_run(r)
    r.write_text("# c\nq1 Q0 d1 1 0.5 T\nq1 Q0 d1 2 0.4 T junk\n")
    with pytest.raises(InputError, match=r"r.txt:3: document 'd1' appears twice"):
        read_run(r)
