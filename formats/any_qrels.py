"""Graded qrels of any classic form, for `evaudit score trec`: BEIR `qrels/<split>.tsv`
(header `query-id corpus-id score`), TREC `qid iteration docno grade` (negative grades
kept, as trec_eval reads them) or the project's graded_qrels JSONL."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from formats.beir import QRELS_HEADER, tsv_rows
from formats.classic import claim_qrel
from vocabulary.errors import InputError


def _first_line(path: Path) -> str:
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


def _beir_tsv(path: Path) -> pd.DataFrame:
    # BEIR's reading (formats.beir.tsv_rows): csv quoting, ids verbatim.
    rows: list[tuple[str, str, int]] = []
    seen: dict[tuple[str, str], int] = {}
    lines = tsv_rows(path)
    next(lines)  # the header, checked by the caller
    for lineno, parts in lines:
        if len(parts) != 3 or not parts[0] or not parts[1] or not parts[2].strip():
            raise InputError("expected query-id<TAB>corpus-id<TAB>score", file=path, line=lineno)
        try:
            grade = int(parts[2])
        except ValueError:
            raise InputError(
                f"score {parts[2].strip()!r} is not an integer", file=path, line=lineno
            ) from None
        claim_qrel(seen, parts[0], parts[1], path, lineno)
        rows.append((parts[0], parts[1], grade))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"])


def read_any_qrels(path: str | Path) -> pd.DataFrame:
    """(query_id, doc_id, grade) in file order; the form is told by the first line."""
    path = Path(path)
    first = _first_line(path)
    if first.lstrip().startswith("{"):
        from formats.readers import read_qrels

        return read_qrels(path)
    if tuple(p.strip() for p in first.rstrip("\r\n").split("\t")) == QRELS_HEADER:
        return _beir_tsv(path)
    fast = _arrow_qrels(path)
    if fast is not None:
        return fast
    from formats.trec import read_graded_qrels

    return read_graded_qrels(path)[["query_id", "doc_id", "grade"]]


def _arrow_qrels(path: Path) -> pd.DataFrame | None:
    """Clean single-space TREC qrels through pyarrow (negative grades kept); None sends
    anything else (comments, tabs, duplicates, Latin-1) to the line reader."""
    from formats.trec_lines import arrow_qrels

    fast = arrow_qrels(path)
    if fast is None:
        return None
    q, d, g = fast
    return pd.DataFrame({"query_id": q.to_pandas(), "doc_id": d.to_pandas(), "grade": g})


def read_query_ids(path: str | Path) -> set[str]:
    """Query ids of a BEIR queries.jsonl (`_id`), an n-Clue queries.jsonl (`query_id`)
    or TREC topics (SGML/XML or TSV)."""
    path = Path(path)
    if _first_line(path).lstrip().startswith("{"):
        from vocabulary.jsonlines import json_lines

        ids: set[str] = set()
        for lineno, obj in json_lines(path):
            qid = obj.get("_id", obj.get("query_id"))
            if not isinstance(qid, str | int) or isinstance(qid, bool) or str(qid) == "":
                raise InputError(
                    "a query needs an `_id` (BEIR) or `query_id`", file=path, line=lineno
                )
            ids.add(str(qid))
        return ids
    from formats.trec import read_topics

    return {t.query_id for t in read_topics(path)}
