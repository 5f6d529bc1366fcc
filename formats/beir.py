"""BEIR folders: `corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`.

The layout and field names are those `beir.datasets.data_loader.GenericDataLoader`
reads: corpus lines `{"_id", "title", "text"}`, query lines `{"_id", "text"}`, and a
tab-separated qrels file whose first line is the header `query-id corpus-id score`.
Each corpus entry becomes one document of one page whose text is title and text
joined the way BEIR's models join them (`(title + " " + text).strip()`). As in BEIR's
loader, a split's queries are those its qrels name, ids are kept verbatim (any
non-empty string: spaces, slashes, colons, angle brackets, any Unicode, as in
dbpedia-entity's `<dbpedia:AC/DC>`) and a qrels file is read by Python's `csv` module
with BEIR's dialect (tab, minimal quoting), so a quoted field may hold a tab or a quote.
Unlike it, a repeated id, an empty id, a qrels row for an unknown query or a missing
field is an error naming its line. The qrels are read by `formats.qrels.read_beir_qrels`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vocabulary.errors import InputError
from vocabulary.jsonlines import json_lines

_MISSING = "a BEIR folder holds it"


def _objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    return json_lines(path, missing_hint=_MISSING, json_hint=None)


def _id(obj: dict[str, Any], path: Path, lineno: int) -> str:
    # Verbatim, as BEIR's loader keeps it; json_lines has refused lone surrogates.
    value = obj.get("_id")
    if not isinstance(value, str) or not value:
        raise InputError("missing or empty string '_id'", file=path, line=lineno)
    return value


def _text(obj: dict[str, Any], key: str, path: Path, lineno: int, required: bool) -> str:
    value = obj.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InputError(f"missing string {key!r}", file=path, line=lineno)
    return value


def _claim_id(seen: dict[str, int], key: str, path: Path, lineno: int) -> None:
    """Record the line of an entry's _id; one seen before is an error naming its first line."""
    if key in seen:
        raise InputError(
            f"duplicate _id {key!r} (first on line {seen[key]})", file=path, line=lineno
        )
    seen[key] = lineno


def page_text(title: str, text: str) -> str:
    """A BEIR entry's text as BEIR's models see it (beir.retrieval.models.util)."""
    return (title + " " + text).strip()


def corpus_pages(folder: Path) -> Iterator[tuple[str, str, str]]:
    """(doc_id, page text, sha256 of the text) per corpus entry, in file order."""
    path = folder / "corpus.jsonl"
    seen: dict[str, int] = {}
    for lineno, obj in _objects(path):
        doc_id = _id(obj, path, lineno)
        _claim_id(seen, doc_id, path, lineno)
        text = page_text(
            _text(obj, "title", path, lineno, False), _text(obj, "text", path, lineno, True)
        )
        yield doc_id, text, hashlib.sha256(text.encode()).hexdigest()
    if not seen:
        raise InputError("no corpus entries", file=path)


def read_queries(folder: Path) -> tuple[dict[str, str], Path]:
    """query id -> text of `queries.jsonl` (every split's queries)."""
    path = folder / "queries.jsonl"
    out: dict[str, str] = {}
    lines: dict[str, int] = {}
    for lineno, obj in _objects(path):
        qid = _id(obj, path, lineno)
        _claim_id(lines, qid, path, lineno)
        text = _text(obj, "text", path, lineno, True)
        if not text.strip():
            raise InputError(f"query {qid!r} has an empty text", file=path, line=lineno)
        out[qid] = text
    return out, path
