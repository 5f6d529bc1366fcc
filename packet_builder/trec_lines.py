"""TREC qrels and run lines as trec_eval reads them: the one line reader every TREC
qrels/run parser shares.

trec_eval (version 10) skips lines whose first character is `#` and lines that are
blank, reads exactly 4 whitespace-separated fields from a qrels line
(`qid iteration docno grade`) and the first 6 from a run line
(`qid Q0 docno rank score tag`), ignoring any text after the tag. A `#` inside a
field (`CR#93E-1860`) is part of the field. Everything else is a malformed line,
reported as `file:line: what is wrong`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from vocabulary.errors import InputError

QREL_WHAT = "a TREC qrel (qid 0 docid grade)"
RUN_WHAT = "a TREC run line (qid Q0 docid rank score tag)"


def is_skipped(line: str) -> bool:
    """A blank line or a `#` comment line (trec_eval skips both)."""
    stripped = line.lstrip()
    return not stripped or stripped.startswith("#")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    if not path.is_file():
        raise InputError("file not found", file=path, hint="check the path")
    try:
        with path.open(encoding="utf-8") as fh:
            yield from enumerate(fh, start=1)
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", file=path, hint="save as UTF-8") from exc


def trec_fields(
    path: Path,
    nfields: int,
    what: str,
    *,
    extra_ok: bool,
    checks: tuple[tuple[int, type, str], ...] = (),
) -> Iterator[tuple[int, list[str]]]:
    """(line number, first `nfields` fields) of every line that is not blank or a comment.

    `extra_ok` accepts text after the last field (trec_eval's run lines); `checks`
    are (field index, int or float, label) conversions a line must pass.
    """
    for lineno, line in _lines(path):
        if is_skipped(line):
            continue
        parts = line.split()
        if len(parts) < nfields or (len(parts) > nfields and not extra_ok):
            raise InputError(
                f"expected {nfields} fields for {what}, found {len(parts)}",
                file=path,
                line=lineno,
            )
        for idx, typ, label in checks:
            try:
                typ(parts[idx])
            except ValueError:
                raise InputError(
                    f"{label} {parts[idx]!r} is not a valid {typ.__name__}", file=path, line=lineno
                ) from None
        yield lineno, parts[:nfields]


def data_line_of(path: Path, row_index: int) -> int:
    """1-based file line of the row_index-th (0-based) line that is not blank or a comment."""
    seen = -1
    for lineno, line in _lines(path):
        if not is_skipped(line):
            seen += 1
            if seen == row_index:
                return lineno
    return 0


def first_data_line(path: Path) -> str:
    """The first line that is not blank or a comment, stripped ('' when there is none)."""
    for _, line in _lines(path):
        if not is_skipped(line):
            return line.strip()
    return ""
