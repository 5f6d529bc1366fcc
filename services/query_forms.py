"""`evaudit queries render|check`: the deterministic query forms and their QA check.

The rules are pure functions in `packet_builder.query_forms` (docs/runs.md); this use
case reads queries.jsonl, writes the rendered file atomically and returns the reports.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formats.readers import json_lines, read_queries
from formats.records import Query
from packet_builder.query_forms import FormCheck, FormsReport, check_forms, check_texts, render
from vocabulary.errors import InputError
from vocabulary.tables import table

FORMS = ("raw", "clean_v2", "natural")


@dataclass(frozen=True)
class RenderReport:
    form: str
    queries: int
    out: str
    check: FormCheck

    def to_json(self) -> dict[str, Any]:
        return {"form": self.form, "queries": self.queries, "out": self.out,
                "contained": self.check.contained, "failures": self.check.to_json()["failures"]}  # fmt: skip

    def table(self) -> str:
        return (f"{self.form}: {self.queries} queries written to {self.out}; "
                f"{self.check.contained} contain every condition name")  # fmt: skip


@dataclass(frozen=True)
class FormsCheckReport:
    """Per form, how many queries contain every condition name verbatim."""

    result: FormsReport

    @property
    def ok(self) -> bool:
        return self.result.ok

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        checks = self.result.checks
        rows = [(c.form, c.queries, c.contained, len(c.failures)) for c in checks]
        lines = [table(rows, ["form", "queries", "contain every name", "failures"])]
        for c in checks:
            for f in c.failures:
                lines.append(f"{c.form}: {f.query_id} lacks {', '.join(f.missing)}")
        return "\n".join(lines)


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write the queries ({exc.strerror})", file=path) from exc


def _same_structure(base: list[Query], other: list[Query], path: Path) -> None:
    """A rendered file must keep the query ids and condition ids of the base file."""
    want = {q.query_id: [c.condition_id for c in q.conditions] for q in base}
    got = {q.query_id: [c.condition_id for c in q.conditions] for q in other}
    for qid in want:
        if qid not in got:
            raise InputError(f"query {qid!r} of --queries is missing", file=path,
                             hint="a query form keeps every query id")  # fmt: skip
        if got[qid] != want[qid]:
            raise InputError(f"query {qid!r} has conditions {got[qid]}, expected {want[qid]}",
                             file=path, hint="a query form keeps the conditions")  # fmt: skip
    extra = sorted(set(got) - set(want))
    if extra:
        raise InputError(f"query {extra[0]!r} is not in --queries", file=path,
                         hint="a query form keeps the same query ids")  # fmt: skip


def render_queries(queries_file: Path, form: str, out: Path) -> RenderReport:
    """Write `out` with the same ids and conditions and the text in `form` ("form" added)."""
    if out.exists() and out.resolve() == queries_file.resolve():
        raise InputError("--out would overwrite --queries", file=out, hint="choose another --out")
    parsed = read_queries(queries_file)
    texts = [render(q, form) for q in parsed]
    rows = []
    for (_, obj), text in zip(json_lines(queries_file), texts, strict=True):
        rows.append({**obj, "text": text, "form": form})
    _write_jsonl(out, rows)
    return RenderReport(form, len(parsed), str(out), check_texts(form, parsed, texts))


def check_query_forms(
    queries_file: Path, forms: Sequence[str] = (), files: Sequence[str] = ()
) -> FormsCheckReport:
    """Check `forms` rendered from the conditions (default: all three, or none when
    `files` are given) and each already rendered NAME=FILE of `files`."""
    base = read_queries(queries_file)
    report = check_forms(base, forms or (() if files else FORMS))
    extra = []
    for spec in files:
        name, sep, file = spec.partition("=")
        if not sep or not name or not file:
            raise InputError(f"--file {spec!r} is not NAME=FILE", hint="e.g. --file para=q.jsonl")
        other = read_queries(file)
        _same_structure(base, other, Path(file))
        extra.append(check_texts(name, other, [q.text for q in other]))
    return FormsCheckReport(FormsReport(report.checks + tuple(extra)))
