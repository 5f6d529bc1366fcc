"""Readers for benchmark files: queries.jsonl, evidence, TREC runs (qrels: `formats.qrels`,
whose n-Clue `read_qrels` is re-exported here).

Every reader validates line by line in meaning and reports the first bad line
as ``file:line: what is wrong (fix)`` via InputError. TREC runs take a
fast path through pyarrow's CSV reader (single-space separated, the common
case); anything it cannot take cleanly (tabs, runs of spaces, `#` comment lines,
run lines with text after the tag, bad numbers, duplicates) goes through
`formats.trec_lines`, which reads lines as trec_eval does and names the
first bad line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from formats.qrels import read_qrels
from formats.records import Condition, Evidence, Query
from formats.trec_lines import (
    _STR,
    RUN_WHAT,
    _arrow_trec,
    _has_duplicate_pairs,
    data_line_of,
    first_data_line,
    trec_fields,
)
from vocabulary.errors import InputError
from vocabulary.jsonlines import json_lines

RUN_COLUMNS = ["query_id", "doc_id", "rank", "score", "tag"]
__all__ = ["read_evidence", "read_qrels", "read_queries", "read_run", "row_line"]


def _req_str(obj: dict[str, Any], key: str, path: Path, lineno: int, where: str = "") -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}missing or empty string field {key!r}", file=path, line=lineno)
    return value


def _str_list(
    obj: dict[str, Any], key: str, path: Path, lineno: int, where: str
) -> tuple[str, ...]:
    value = obj.get(key, [])
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}field {key!r} must be a list of strings", file=path, line=lineno)
    return tuple(value)


def read_queries(path: str | Path) -> list[Query]:
    """queries.jsonl: one query per line with its conditions (docs/formats.md)."""
    path = Path(path)
    queries: list[Query] = []
    seen: dict[str, int] = {}
    for lineno, obj in json_lines(path):
        qid = _req_str(obj, "query_id", path, lineno)
        if qid in seen:
            raise InputError(
                f"duplicate query_id {qid!r} (first on line {seen[qid]})", file=path, line=lineno
            )
        seen[qid] = lineno
        text = _req_str(obj, "text", path, lineno)
        raw_conds = obj.get("conditions")
        if not isinstance(raw_conds, list) or not raw_conds:
            raise InputError(
                f"query {qid!r} needs a non-empty list 'conditions'", file=path, line=lineno
            )
        conds: list[Condition] = []
        cids: set[str] = set()
        for i, rc in enumerate(raw_conds, start=1):
            where = f"query {qid!r} condition {i}: "
            if not isinstance(rc, dict):
                raise InputError(f"{where}expected an object", file=path, line=lineno)
            cid = _req_str(rc, "condition_id", path, lineno, where)
            if cid in cids:
                raise InputError(f"{where}duplicate condition_id {cid!r}", file=path, line=lineno)
            cids.add(cid)
            note = rc.get("note") or ""
            if not isinstance(note, str):
                raise InputError(f"{where}'note' must be a string", file=path, line=lineno)
            conds.append(
                Condition(
                    condition_id=cid,
                    name=_req_str(rc, "name", path, lineno, where),
                    requirement=_req_str(rc, "requirement", path, lineno, where),
                    counts=_str_list(rc, "counts", path, lineno, where),
                    does_not_count=_str_list(rc, "does_not_count", path, lineno, where),
                    note=note,
                    aliases=_str_list(rc, "aliases", path, lineno, where),
                )
            )
        for opt in ("release", "source"):
            if opt in obj and obj[opt] is not None and not isinstance(obj[opt], str):
                raise InputError(f"{opt!r} must be a string", file=path, line=lineno)
        extra = {
            k: v
            for k, v in obj.items()
            if k not in {"query_id", "text", "conditions", "release", "source"}
        }
        queries.append(
            Query(qid, text, tuple(conds), obj.get("release") or "", obj.get("source") or "", extra)
        )
    if not queries:
        raise InputError("no queries in file", file=path, hint="one JSON query object per line")
    return queries


def _first_nonblank(path: Path) -> str:
    return first_data_line(path)


def _line_of(path: Path, row_index: int) -> int:
    """1-based file line of the row_index-th (0-based) line that is not blank or a comment."""
    return data_line_of(path, row_index)


def _refuse_duplicate_pairs(df: pd.DataFrame, path: Path, message: str, hint: str) -> None:
    """InputError at the first repeated (query_id, doc_id); message uses {q} and {d}."""
    dup = df.duplicated(["query_id", "doc_id"], keep="first")
    if dup.any():
        i = int(dup.to_numpy().nonzero()[0][0])
        row = df.iloc[i]
        raise InputError(
            message.format(q=row["query_id"], d=row["doc_id"]),
            file=path,
            line=_line_of(path, i),
            hint=hint,
        )


def row_line(path: str | Path, row_index: int) -> int:
    """The file line of the row_index-th row of a qrels/run/JSONL file (for later cross-checks)."""
    return _line_of(Path(path), row_index)


def read_run(path: str | Path) -> pd.DataFrame:
    """A TREC run (qid Q0 docid rank score tag) as a DataFrame in file order."""
    path = Path(path)
    if not _first_nonblank(path):
        raise InputError("run file is empty", file=path)
    fast = _arrow_trec(path, [_STR, _STR, _STR, pa.int64(), pa.float64(), _STR])
    if fast is not None and not _has_duplicate_pairs(fast.column(0), fast.column(2)):
        cols = {"query_id": 0, "doc_id": 2, "rank": 3, "score": 4, "tag": 5}
        return pa.table({k: fast.column(i) for k, i in cols.items()}).to_pandas()
    checks = ((3, int, "rank"), (4, float, "score"))
    rows = [
        (p[0], p[2], int(p[3]), float(p[4]), p[5])
        for _, p in trec_fields(path, 6, RUN_WHAT, extra_ok=True, checks=checks)
    ]
    df = pd.DataFrame(rows, columns=RUN_COLUMNS).astype({"rank": "int64", "score": "float64"})
    _refuse_duplicate_pairs(
        df, path, "document {d!r} appears twice for query {q!r}",
        "a run lists each document once per query",
    )  # fmt: skip
    return df


def read_evidence(path: str | Path) -> list[tuple[int, Evidence]]:
    """Construction evidence lines with their line numbers (for later cross-checks)."""
    path = Path(path)
    out: list[tuple[int, Evidence]] = []
    for lineno, obj in json_lines(path):
        qid = _req_str(obj, "query_id", path, lineno)
        did = _req_str(obj, "doc_id", path, lineno)
        cid = _req_str(obj, "condition_id", path, lineno)
        pages = obj.get("pages")
        if (
            not isinstance(pages, list)
            or not pages
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in pages)
        ):
            raise InputError(
                "'pages' must be a non-empty list of page numbers", file=path, line=lineno
            )
        out.append((lineno, Evidence(qid, did, cid, tuple(pages))))
    return out
