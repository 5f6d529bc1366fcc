"""Qrels, every form the project reads: one parser per syntax, one dispatcher.

Three syntaxes, each parsed by one generator of (line, query id, doc id, grade):
TREC lines `qid iteration docno grade` (blank and `#` comment lines skipped, as
trec_eval reads them; `_trec_rows`), JSON lines `{"query_id", "doc_id", "grade"}`
(`relevance` accepted for `grade`; `_jsonl_rows`) and BEIR's `qrels/<split>.tsv`
(header `query-id corpus-id score`, read with BEIR's csv dialect; `_beir_rows`).

What differs between callers is validation, not syntax, and is an option:
- n-Clue qrels (`read_qrels`, `graded=False` in the entry points below): grades are
  clue counts, so a negative grade is refused, and a repeated (query, document) pair is
  found after the whole file parsed (so the first malformed line is named first; the
  Arrow fast paths, which have no line numbers, decline any file with either);
- graded qrels (`graded=True`): any integer grade (negative grades, as some TREC tracks
  use for spam, are below --relevant-from), a repeat named at its line;
- the classic collections `load` reads (`read_trec_qrels`, `read_beir_qrels`) also
  name the repeat's first line and keep each row's line for later checks.
The errors' wording is each reader's as it was before they shared a parser (`_TREC_*`,
`_beir_rows`'s `load`); `tests/test_qrels_readers.py` pins them.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formats.arrow_jsonl import arrow_jsonl
from formats.trec_lines import (
    _STR,
    QREL_WHAT,
    _arrow_trec,
    _has_duplicate_pairs,
    arrow_qrels,
    first_data_line,
    is_skipped,
)
from vocabulary.errors import InputError
from vocabulary.jsonlines import json_lines, text_lines

if TYPE_CHECKING:  # pandas is imported where a frame is built: Arrow's path needs none
    import pandas as pd

QREL_COLUMNS = ["query_id", "doc_id", "grade"]
QRELS_HEADER = ("query-id", "corpus-id", "score")
Row = tuple[int, str, str, int]  # line, query id, doc id, grade
QrelRows = list[tuple[str, str, int]]

_MISSING_BEIR = "a BEIR folder holds it"
# (wrong field count {n}, grade {v} not an integer): the n-Clue reader's and the TREC
# collection reader's words for the same two faults.
_TREC_CHECKED = (
    f"expected 4 fields for {QREL_WHAT}, found {{n}}",
    "grade {v!r} is not a valid int",
)
_TREC_COLLECTION = (
    "expected 4 fields (qid iteration docno grade), found {n}",
    "grade {v!r} is not an integer",
)


# --- the three parsers ------------------------------------------------------------


def _trec_rows(
    lines: Iterable[tuple[int, str]], path: Path, words: tuple[str, str]
) -> Iterator[Row]:
    """TREC qrels lines: exactly 4 whitespace-separated fields, an integer grade."""
    for lineno, line in lines:
        if is_skipped(line):
            continue
        parts = line.split()
        if len(parts) != 4:
            raise InputError(words[0].format(n=len(parts)), file=path, line=lineno)
        try:
            grade = int(parts[3])
        except ValueError:
            raise InputError(words[1].format(v=parts[3]), file=path, line=lineno) from None
        yield lineno, parts[0], parts[2], grade


def _jsonl_rows(path: Path) -> Iterator[Row]:
    """JSON-lines qrels: string ids, an integer `grade` (or `relevance`)."""
    for lineno, obj in json_lines(path):
        qid, did = obj.get("query_id"), obj.get("doc_id")
        grade = obj.get("grade", obj.get("relevance"))
        if not isinstance(qid, str) or not isinstance(did, str):
            raise InputError("qrel needs string query_id and doc_id", file=path, line=lineno)
        if not isinstance(grade, int) or isinstance(grade, bool):
            raise InputError("qrel grade must be an integer", file=path, line=lineno)
        yield lineno, qid, did, grade


def tsv_rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of each non-blank row of a BEIR TSV, the header included, read
    as `GenericDataLoader._load_qrels` reads it: `open(path, encoding="utf-8")`
    (universal newlines) and `csv.reader(delimiter="\t", quoting=csv.QUOTE_MINIMAL)`;
    fields are not stripped. Blank lines, which stop BEIR's loader, are skipped."""
    if not path.is_file():
        raise InputError("file not found", file=path, hint=_MISSING_BEIR)
    try:
        with path.open(encoding="utf-8") as fh:
            reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
            start = 1
            for row in reader:
                if any(f.strip() for f in row):
                    yield start, row
                start = reader.line_num + 1
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", file=path, hint="save as UTF-8") from exc
    except csv.Error as exc:
        raise InputError(f"unreadable TSV ({exc})", file=path, line=start) from exc


def _beir_rows(path: Path, *, load: bool) -> Iterator[Row]:
    """BEIR qrels rows after the header, ids verbatim, `int(score)` as BEIR's loader.

    `load` checks the header and words each fault apart (`load --beir`); otherwise the
    dispatcher has already matched the header and one message names a short row."""
    rows = tsv_rows(path)
    for lineno, parts in rows:  # the header
        if load and tuple(p.strip() for p in parts) != QRELS_HEADER:
            raise InputError(
                "the first line must be the header 'query-id<TAB>corpus-id<TAB>score'",
                file=path,
                line=lineno,
                hint="BEIR's loader skips the first line, so a data row there is lost",
            )
        break
    for lineno, parts in rows:
        if load:
            if len(parts) != 3:
                raise InputError(
                    f"expected 3 tab-separated fields, found {len(parts)}", file=path, line=lineno
                )
            if not parts[0] or not parts[1]:
                raise InputError("empty query-id or corpus-id", file=path, line=lineno)
        elif len(parts) != 3 or not parts[0] or not parts[1] or not parts[2].strip():
            raise InputError("expected query-id<TAB>corpus-id<TAB>score", file=path, line=lineno)
        try:
            grade = int(parts[2])
        except ValueError:
            raise InputError(
                f"score {parts[2].strip()!r} is not an integer", file=path, line=lineno
            ) from None
        yield lineno, parts[0], parts[1], grade


# --- validation -------------------------------------------------------------------


def _nclue_checked(rows: Iterable[Row], path: Path) -> list[Row]:
    """All rows, then the first repeated pair, then the first negative grade."""
    out = list(rows)
    seen: set[tuple[str, str]] = set()
    for lineno, q, d, _g in out:
        if (q, d) in seen:
            raise InputError(
                f"duplicate qrel for query {q!r} and document {d!r}",
                file=path,
                line=lineno,
                hint="keep one grade per (query, document)",
            )
        seen.add((q, d))
    for lineno, _q, _d, g in out:
        if g < 0:
            raise InputError(f"negative grade {g}", file=path, line=lineno)
    return out


def _graded_checked(rows: Iterable[Row], path: Path) -> list[Row]:
    """Every row; a repeated pair is an error at its line."""
    out: list[Row] = []
    seen: set[tuple[str, str]] = set()
    for row in rows:
        _lineno, q, d, _g = row
        if (q, d) in seen:
            raise InputError(f"duplicate qrel for query {q!r} and document {d!r}", file=path,
                             line=row[0], hint="one grade per (query, document)")  # fmt: skip
        seen.add((q, d))
        out.append(row)
    return out


def claim_qrel(
    seen: dict[tuple[str, str], int], qid: str, did: str, path: Path, lineno: int
) -> None:
    """Record the line of (query, document); a second grade for the pair is an error."""
    if (qid, did) in seen:
        raise InputError(
            f"duplicate qrel for query {qid!r} and document {did!r} "
            f"(first on line {seen[(qid, did)]})",
            file=path,
            line=lineno,
        )
    seen[(qid, did)] = lineno


def _claimed(rows: Iterable[Row], path: Path) -> list[Row]:
    """Every row of a classic collection; a repeat names the pair's first line."""
    out: list[Row] = []
    seen: dict[tuple[str, str], int] = {}
    for row in rows:
        claim_qrel(seen, row[1], row[2], path, row[0])
        out.append(row)
    return out


def _frame(rows: list[Row], *, line: bool) -> pd.DataFrame:
    import pandas as pd

    if line:
        return pd.DataFrame([(q, d, g, n) for n, q, d, g in rows], columns=[*QREL_COLUMNS, "line"])
    return pd.DataFrame([(q, d, g) for _n, q, d, g in rows], columns=QREL_COLUMNS)


# --- one entry point per syntax ---------------------------------------------------


def _arrow_jsonl_qrels(path: Path) -> pd.DataFrame | None:
    """JSONL qrels via pyarrow when every line is clean (no negative grade, no repeat, no
    `relevance`); None sends them down the checked path."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        table = arrow_jsonl(path.read_bytes())
    except OSError:
        return None
    if table is None:
        return None
    schema = table.schema
    if (
        table.num_rows == 0
        or "grade" not in schema.names
        or "relevance" in schema.names
        or not all(n in schema.names for n in ("query_id", "doc_id"))
        or not pa.types.is_string(schema.field("query_id").type)
        or not pa.types.is_string(schema.field("doc_id").type)
        or not pa.types.is_int64(schema.field("grade").type)
    ):
        return None
    cols = [table.column(n) for n in QREL_COLUMNS]
    if any(c.null_count for c in cols) or pc.min(cols[2]).as_py() < 0:
        return None
    if _has_duplicate_pairs(cols[0], cols[1]):
        return None
    return pa.table(dict(zip(QREL_COLUMNS, cols, strict=True))).to_pandas()


def read_jsonl_qrels(path: Path, *, graded: bool = False) -> pd.DataFrame:
    """JSON-lines qrels as (query_id, doc_id, grade), file order."""
    if not graded:
        fast = _arrow_jsonl_qrels(path)
        if fast is not None:
            return fast
        return _frame(_nclue_checked(_jsonl_rows(path), path), line=False)
    return _frame(_graded_checked(_jsonl_rows(path), path), line=False)


def graded_jsonl_rows(path: Path) -> QrelRows:
    """`read_jsonl_qrels(graded=True)` as (query, doc, grade) tuples, without pandas."""
    return [(q, d, g) for _n, q, d, g in _graded_checked(_jsonl_rows(path), path)]


def _arrow_trec_qrels(path: Path) -> pd.DataFrame | None:
    """Clean single-space TREC qrels with no negative grade or repeat through pyarrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    fast = _arrow_trec(path, [_STR, _STR, _STR, pa.int64()])
    if (
        fast is None
        or pc.min(fast.column(3)).as_py() < 0
        or _has_duplicate_pairs(fast.column(0), fast.column(2))
    ):
        return None
    cols = {"query_id": 0, "doc_id": 2, "grade": 3}
    return pa.table({k: fast.column(i) for k, i in cols.items()}).to_pandas()


def read_trec_qrels(path: Path, *, graded: bool = False) -> pd.DataFrame:
    """TREC qrels lines. n-Clue (`graded=False`): strict UTF-8, as (query_id, doc_id,
    grade). Graded: a TREC collection's file (gzip, Latin-1 read as such, which old TREC
    disks are) as (query_id, doc_id, grade, line)."""
    if graded:
        from formats.trec import collection_text

        lines = enumerate(collection_text(path).splitlines(), start=1)
        rows = _claimed(_trec_rows(lines, path, _TREC_COLLECTION), path)
        if not rows:
            raise InputError("qrels file is empty", file=path)
        return _frame(rows, line=True)
    fast = _arrow_trec_qrels(path)
    if fast is not None:
        return fast
    rows = list(_trec_rows(text_lines(path), path, _TREC_CHECKED))
    if not rows:
        raise InputError("qrels file is empty", file=path)
    return _frame(_nclue_checked(rows, path), line=False)


def read_beir_qrels(folder: Path, split: str) -> tuple[pd.DataFrame, Path]:
    """A BEIR folder's `qrels/<split>.tsv` as (query_id, doc_id, grade, line), file order."""
    path = folder / "qrels" / f"{split}.tsv"
    if not path.is_file():
        have = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
        raise InputError(
            f"no qrels for split {split!r}",
            file=path,
            hint=f"splits present: {', '.join(have) or 'none'}",
        )
    rows = _claimed(_beir_rows(path, load=True), path)
    if not rows:
        raise InputError("no qrels rows after the header", file=path)
    return _frame(rows, line=True), path


# --- the dispatchers --------------------------------------------------------------


def read_qrels(path: str | Path) -> pd.DataFrame:
    """n-Clue qrels as (query_id, doc_id, grade): TREC `qid 0 docid grade` or JSONL, told
    by the first line that is not blank or a comment."""
    path = Path(path)
    first = first_data_line(path)
    if not first:
        raise InputError("qrels file is empty", file=path)
    if first.startswith("{"):
        return read_jsonl_qrels(path)
    return read_trec_qrels(path)


def first_line(path: Path) -> str:
    """The first line that is not blank or starts with `#` (a query file too: its
    errors say "qrels", as they always have)."""
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip() and not line.startswith("#"):  # trec_eval's comment lines
                    return line
    except OSError as exc:
        raise InputError(f"cannot read qrels ({exc.strerror})", file=path) from exc
    except UnicodeDecodeError:
        raise InputError("qrels file is not UTF-8", file=path) from None
    raise InputError("qrels file is empty", file=path)


def read_any_qrels(path: str | Path) -> pd.DataFrame:
    """Graded qrels of any classic form, for `evaudit score trec`, as (query_id, doc_id,
    grade) in file order; the form is told by the first line: BEIR `qrels/<split>.tsv`
    (its header), JSON lines (read as n-Clue qrels) or TREC lines (any integer grade)."""
    path = Path(path)
    first = first_line(path)
    if first.lstrip().startswith("{"):
        return read_qrels(path)
    if tuple(p.strip() for p in first.rstrip("\r\n").split("\t")) == QRELS_HEADER:
        return _frame(_claimed(_beir_rows(path, load=False), path), line=False)
    fast = arrow_qrels(path)  # clean TREC lines, negative grades kept
    if fast is not None:
        import pandas as pd

        q, d, g = fast
        return pd.DataFrame({"query_id": q.to_pandas(), "doc_id": d.to_pandas(), "grade": g})
    return read_trec_qrels(path, graded=True)[QREL_COLUMNS]


def qrels_columns(path: Path) -> Any:
    """query_id, doc_id and grade columns of any qrels form (`read_any_qrels`); a clean
    TREC file through Arrow without pandas, whose import a process per run pays for."""
    if path.is_file():
        fast = arrow_qrels(path)
        if fast is not None:
            return dict(zip(QREL_COLUMNS, fast, strict=True))
    return read_any_qrels(path)


def graded_qrels_rows(path: Path) -> QrelRows:
    """(query, doc, grade) of any qrels form with any integer grade (`score impact`):
    JSON lines by `graded_jsonl_rows` (finalize writes a TREC project's -2 grades into
    its qrels.jsonl, which the n-Clue reader refuses), anything else `read_any_qrels`."""
    for _lineno, line in text_lines(path, missing_hint="check the path"):
        if line.strip():
            if line.lstrip().startswith("{"):
                return graded_jsonl_rows(path)
            break
    f = read_any_qrels(path)
    return [(str(q), str(d), int(g)) for q, d, g in zip(f["query_id"], f["doc_id"], f["grade"], strict=True)]  # fmt: skip
