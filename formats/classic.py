"""Classic benchmarks (BEIR, TREC): graded qrels with no conditions, audited as one condition.

A classic query becomes a query with one relevance condition whose rubric comes from
a guideline file (or, for TREC, the topic's narrative). `--relevant-from R` maps the
original grades to the audit's scale: grade >= R is relevant (audit grade 1 = gold),
anything below is not (audit grade 0, dropped from `qrels` as every zero row is). The
original grades are kept in the store (`graded_qrels`, with the scale in `meta`) so
that `finalize` can write the revised qrels back in the original scale.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from formats.records import Condition, Query
from vocabulary.errors import InputError
from vocabulary.jsonread import json_document, json_loads

CONDITION_ID = "relevant"
_RUBRIC_KEYS = {"name", "requirement", "counts", "does_not_count", "note", "aliases"}


@dataclass(frozen=True)
class Rubric:
    """The guideline of the single relevance condition."""

    requirement: str
    name: str = "Relevance"
    counts: tuple[str, ...] = ()
    does_not_count: tuple[str, ...] = ()
    note: str = ""
    aliases: tuple[str, ...] = ()

    def condition(self) -> Condition:
        return Condition(
            CONDITION_ID,
            self.name,
            self.requirement,
            self.counts,
            self.does_not_count,
            self.note,
            self.aliases,
        )


@dataclass(frozen=True)
class Guideline:
    default: Rubric | None
    per_query: dict[str, Rubric] = field(default_factory=dict)

    def rubric(self, query_id: str) -> Rubric | None:
        return self.per_query.get(query_id, self.default)


@dataclass(frozen=True)
class GradeScale:
    """How the original grades map to the audit: grade >= relevant_from is relevant."""

    format: str  # "beir" or "trec"
    relevant_from: int
    grades: tuple[int, ...]  # the distinct original grades, ascending
    qrels_file: str
    split: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "relevant_from": self.relevant_from,
            "grades": list(self.grades),
            "qrels_file": self.qrels_file,
            "split": self.split,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> GradeScale:
        return GradeScale(
            str(obj["format"]),
            int(obj["relevant_from"]),
            tuple(int(g) for g in obj["grades"]),
            str(obj["qrels_file"]),
            str(obj.get("split", "")),
        )


def _rubric(obj: Any, path: Path, where: str) -> Rubric:
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected an object with 'requirement'", file=path)
    unknown = sorted(set(obj) - _RUBRIC_KEYS)
    if unknown:
        raise InputError(
            f"{where}: unknown field {unknown[0]!r}",
            file=path,
            hint=f"a rubric has {', '.join(sorted(_RUBRIC_KEYS))}",
        )
    req = obj.get("requirement")
    if not isinstance(req, str) or not req.strip():
        raise InputError(f"{where}: missing or empty string 'requirement'", file=path)
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("counts", "does_not_count", "aliases"):
        value = obj.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"{where}: {key!r} must be a list of strings", file=path)
        lists[key] = tuple(value)
    for key in ("name", "note"):
        if key in obj and not isinstance(obj[key], str):
            raise InputError(f"{where}: {key!r} must be a string", file=path)
    return Rubric(
        requirement=req,
        name=obj.get("name") or "Relevance",
        note=obj.get("note", ""),
        **lists,
    )


def _guideline_json(path: Path) -> Any:
    """The guideline file's JSON value; a missing, malformed or non-UTF-8 file is one
    file:line error."""
    if not path.is_file():
        raise InputError("guideline file not found", file=path, hint="check the path")
    try:
        obj = json_document(path.read_text(encoding="utf-8"), "malformed JSON", path)
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text", file=path, hint="save as UTF-8") from exc
    return obj


def read_guideline(path: Path) -> Guideline:
    """One rubric `{"requirement", "counts", "does_not_count", "note", "name"?}`, or
    `{"default": rubric?, "queries": {"<query_id>": rubric}}` (a query's rubric takes the
    default's fields it does not give)."""
    obj = _guideline_json(path)
    if isinstance(obj, dict):
        obj = {k: v for k, v in obj.items() if k != "labels"}  # guideline_labels reads it
    if isinstance(obj, dict) and "requirement" in obj:
        return Guideline(_rubric(obj, path, "guideline"))
    if not isinstance(obj, dict) or not isinstance(obj.get("queries", {}), dict):
        raise InputError(
            "expected a rubric object or {'default': rubric, 'queries': {query_id: rubric}}",
            file=path,
        )
    extra = sorted(set(obj) - {"default", "queries"})
    if extra:
        raise InputError(f"unknown field {extra[0]!r}", file=path, hint="use default and queries")
    default = _rubric(obj["default"], path, "default") if "default" in obj else None
    raw_default = obj.get("default")
    base: dict[str, Any] = raw_default if isinstance(raw_default, dict) else {}
    # A per-query rubric fills in what it leaves out from the default one.
    per_query = {
        str(q): _rubric({**base, **r} if isinstance(r, dict) else r, path, f"queries.{q}")
        for q, r in obj.get("queries", {}).items()
    }
    if default is None and not per_query:
        raise InputError("the guideline has no rubric", file=path)
    return Guideline(default, per_query)


def guideline_labels(path: Path) -> list[str] | None:
    """The guideline's declared rating labels, lowest first (`"labels": ["low", "mid",
    "high"]`, beside the rubric or `default`/`queries`), or None when it declares none."""
    obj = _guideline_json(path)
    labels = obj.get("labels") if isinstance(obj, dict) else None
    if labels is None:
        return None
    if (
        not isinstance(labels, list)
        or not labels
        or not all(isinstance(x, str) and x.strip() for x in labels)
    ):
        raise InputError(
            "'labels' must be a non-empty list of label strings, lowest first", file=path
        )
    return [x.strip() for x in labels]


def relevance_conditions(
    query_ids: list[str],
    guideline: Guideline | None,
    fallback: dict[str, Rubric],
    guideline_path: Path | None,
    known: set[str] | None = None,
    notes: dict[str, str] | None = None,
) -> dict[str, Condition]:
    """query_id -> its one condition: the guideline's rubric, else `fallback` (a TREC
    narrative); a query with neither is an error naming it. A rubric for a query of
    `known` (the queries file) outside this split is ignored; any other is an error.
    `notes` (a TREC topic's description) becomes the note of a rubric that has none, so
    annotators see the description whichever rubric they judge by."""
    out: dict[str, Condition] = {}
    for qid in query_ids:
        rubric = guideline.rubric(qid) if guideline is not None else None
        rubric = rubric or fallback.get(qid)
        if rubric is not None and not rubric.note and notes and notes.get(qid):
            rubric = replace(rubric, note=notes[qid])
        if rubric is None:
            raise InputError(
                f"query {qid!r} has no relevance rubric",
                file=guideline_path,
                hint="pass --guideline G.json with a default rubric or one for this query",
            )
        out[qid] = rubric.condition()
    if guideline is not None and guideline_path is not None:
        unknown = sorted(set(guideline.per_query) - set(query_ids) - (known or set()))
        if unknown:
            raise InputError(
                f"guideline rubric for unknown query {unknown[0]!r}",
                file=guideline_path,
                hint="it is not in the queries file",
            )
    return out


def audit_grades(graded: pd.DataFrame, relevant_from: int, path: Path) -> pd.DataFrame:
    """(query_id, doc_id, grade) in the audit's scale: 1 where grade >= relevant_from."""
    if relevant_from < 1:
        raise InputError(
            f"--relevant-from {relevant_from} must be at least 1",
            hint="0 is the non-relevant grade of BEIR and TREC qrels",
        )
    rel = graded[graded["grade"] >= relevant_from]
    if rel.empty:
        raise InputError(
            f"no qrels row has a grade >= {relevant_from}",
            file=path,
            hint=f"the grades present are {sorted(set(graded['grade'].tolist()))}",
        )
    return pd.DataFrame(
        {"query_id": rel["query_id"], "doc_id": rel["doc_id"], "grade": 1}
    ).reset_index(drop=True)


@dataclass(frozen=True)
class ClassicBenchmark:
    """A classic benchmark ready for `load_benchmark`: queries with their one condition,
    the original graded qrels (with file lines) and the grade scale."""

    queries: list[Query]
    graded: pd.DataFrame  # query_id, doc_id, grade, line
    qrels_path: Path
    scale: GradeScale


def classic_benchmark(
    texts: dict[str, str],
    queries_path: Path,
    graded: pd.DataFrame,
    qrels_path: Path,
    relevant_from: int,
    *,
    fmt: str,
    guideline_path: Path | None = None,
    fallback: dict[str, Rubric] | None = None,
    split: str = "",
    notes: dict[str, str] | None = None,
) -> ClassicBenchmark:
    """The queries the qrels name (in qrels order, as BEIR's loader keeps them)."""
    unknown = ~graded["query_id"].isin(list(texts))
    if unknown.any():
        row = graded[unknown].iloc[0]
        raise InputError(
            f"unknown query id {row['query_id']!r}",
            file=qrels_path,
            line=int(row["line"]),
            hint=f"it is not in {queries_path.name}",
        )
    audit_grades(graded, relevant_from, qrels_path)  # refuses a scale with no relevant row
    qids = list(dict.fromkeys(graded["query_id"].tolist()))
    guideline = read_guideline(guideline_path) if guideline_path is not None else None
    conds = relevance_conditions(qids, guideline, fallback or {}, guideline_path, set(texts), notes)
    queries = [Query(q, texts[q], (conds[q],)) for q in qids]
    scale = GradeScale(
        fmt,
        relevant_from,
        tuple(sorted(set(int(g) for g in graded["grade"]))),
        str(qrels_path),
        split,
    )
    return ClassicBenchmark(queries, graded, qrels_path, scale)


def stored_scale(store_path: Path) -> tuple[GradeScale, dict[tuple[str, str], int]] | None:
    """The grade scale and original grades of a classic project; None for n-Clue."""
    from campaign import store, store_load

    with store.connect(store_path, read_only=True) as con:
        found = store_load.graded_scale(con)
    if found is None:
        return None
    value, graded = found
    return GradeScale.from_json(json_loads(value)), {(q, d): int(g) for q, d, g in graded}
