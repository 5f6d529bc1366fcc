"""Readers for benchmark files: queries.jsonl, qrels (TREC or JSONL), evidence, TREC runs.

Every reader validates line by line in meaning and reports the first bad line
as ``file:line: what is wrong (fix)`` via InputError. TREC qrels and runs take a
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
import pyarrow.compute as pc

from formats.arrow_jsonl import arrow_jsonl
from formats.records import Condition, Evidence, Query
from formats.trec_lines import (
    _STR,
    QREL_WHAT,
    RUN_WHAT,
    _arrow_trec,
    _has_duplicate_pairs,
    data_line_of,
    first_data_line,
    trec_fields,
)
from vocabulary.errors import InputError
from vocabulary.jsonlines import json_lines

QREL_COLUMNS = ["query_id", "doc_id", "grade"]
RUN_COLUMNS = ["query_id", "doc_id", "rank", "score", "tag"]


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


def _arrow_jsonl_qrels(path: Path) -> pd.DataFrame | None:
    """JSONL qrels via pyarrow when every line is clean; None sends them down the checked path."""
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
    cols = [table.column(n) for n in ("query_id", "doc_id", "grade")]
    if any(c.null_count for c in cols) or pc.min(cols[2]).as_py() < 0:
        return None
    if _has_duplicate_pairs(cols[0], cols[1]):
        return None
    return pa.table(dict(zip(QREL_COLUMNS, cols, strict=True))).to_pandas()


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


def read_qrels(path: str | Path) -> pd.DataFrame:
    """Qrels as a DataFrame (query_id, doc_id, grade); TREC `qid 0 docid grade` or JSONL."""
    path = Path(path)
    first = _first_nonblank(path)
    if not first:
        raise InputError("qrels file is empty", file=path)
    if first.startswith("{"):
        fast_json = _arrow_jsonl_qrels(path)
        if fast_json is not None:
            return fast_json
        rows = []
        for lineno, obj in json_lines(path):
            qid = obj.get("query_id")
            did = obj.get("doc_id")
            grade = obj.get("grade", obj.get("relevance"))
            if not isinstance(qid, str) or not isinstance(did, str):
                raise InputError("qrel needs string query_id and doc_id", file=path, line=lineno)
            if not isinstance(grade, int) or isinstance(grade, bool):
                raise InputError("qrel grade must be an integer", file=path, line=lineno)
            rows.append((qid, did, grade))
        df = pd.DataFrame(rows, columns=QREL_COLUMNS)
    else:
        fast = _arrow_trec(path, [_STR, _STR, _STR, pa.int64()])
        if (
            fast is not None
            and pc.min(fast.column(3)).as_py() >= 0
            and not _has_duplicate_pairs(fast.column(0), fast.column(2))
        ):
            cols = {"query_id": 0, "doc_id": 2, "grade": 3}
            return pa.table({k: fast.column(i) for k, i in cols.items()}).to_pandas()
        rows = [
            (p[0], p[2], int(p[3]))
            for _, p in trec_fields(path, 4, QREL_WHAT, extra_ok=False, checks=((3, int, "grade"),))
        ]
        if not rows:
            raise InputError("qrels file is empty", file=path)
        df = pd.DataFrame(rows, columns=QREL_COLUMNS)
    _refuse_duplicate_pairs(
        df, path, "duplicate qrel for query {q!r} and document {d!r}",
        "keep one grade per (query, document)",
    )  # fmt: skip
    neg = df["grade"] < 0
    if neg.any():
        i = int(neg.to_numpy().nonzero()[0][0])
        row = df.iloc[i]
        raise InputError(f"negative grade {row['grade']}", file=path, line=_line_of(path, i))
    return df.reset_index(drop=True)


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
