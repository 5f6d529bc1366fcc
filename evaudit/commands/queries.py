"""`evaudit queries`: deterministic query forms (raw, clean_v2, natural) and their QA check.

The rules are pure functions in packet_builder.query_forms (docs/runs.md);
this file reads queries.jsonl, writes the rendered file atomically and prints.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vocabulary.errors import InputError

if TYPE_CHECKING:
    from formats.records import Query
    from packet_builder.query_forms import FormCheck

_path = click.Path(path_type=Path, dir_okay=False)
_FORMS = ("raw", "clean_v2", "natural")


@dataclass(frozen=True)
class RenderReport:
    form: str
    queries: int
    out: str
    check: FormCheck

    def to_json(self) -> dict[str, Any]:
        return {"form": self.form, "queries": self.queries, "out": self.out,
                "contained": self.check.contained, "failures": self.check.to_json()["failures"]}  # fmt: skip


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


def _check_text(checks: tuple[FormCheck, ...]) -> str:
    from vocabulary.tables import table

    rows = [(c.form, c.queries, c.contained, len(c.failures)) for c in checks]
    lines = [table(rows, ["form", "queries", "contain every name", "failures"])]
    for c in checks:
        for f in c.failures:
            lines.append(f"{c.form}: {f.query_id} lacks {', '.join(f.missing)}")
    return "\n".join(lines)


@click.group("queries")
def queries() -> None:
    """Query forms: render raw / clean_v2 / natural texts and check verbatim condition containment;
    `show`: one query's gold and subset labels with their evidence pages (Table S6)."""


@queries.command("render")
@click.option("--queries", "queries_file", type=_path, required=True, help="queries.jsonl.")
@click.option("--form", type=click.Choice(_FORMS), required=True,
              help='raw: text as is; clean_v2: "A"; "B"; natural: Find the document that '
                   'discusses "A" and "B".')  # fmt: skip
@click.option("--out", type=_path, required=True, help="queries.jsonl to write in that form.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def render_cmd(queries_file: Path, form: str, out: Path, as_json: bool) -> None:
    """Write queries.jsonl with the same ids and conditions and the text in FORM ("form" added)."""
    from evaudit.output import emit_json
    from formats.readers import read_queries
    from packet_builder.query_forms import check_texts, render
    from vocabulary.jsonlines import json_lines

    if out.exists() and out.resolve() == queries_file.resolve():
        raise InputError("--out would overwrite --queries", file=out, hint="choose another --out")
    parsed = read_queries(queries_file)
    texts = [render(q, form) for q in parsed]
    rows = []
    for (_, obj), text in zip(json_lines(queries_file), texts, strict=True):
        rows.append({**obj, "text": text, "form": form})
    _write_jsonl(out, rows)
    rep = RenderReport(form, len(parsed), str(out), check_texts(form, parsed, texts))
    if as_json:
        emit_json(rep.to_json())
    else:
        click.echo(f"{form}: {rep.queries} queries written to {out}; "
                   f"{rep.check.contained} contain every condition name")  # fmt: skip


@queries.command("check")
@click.option("--queries", "queries_file", type=_path, required=True, help="queries.jsonl.")
@click.option("--form", "forms", type=click.Choice(_FORMS), multiple=True,
              help="Form to render from the conditions and check (repeatable; default all three).")  # fmt: skip
@click.option("--file", "files", multiple=True, metavar="NAME=FILE",
              help="An already rendered queries file (e.g. a paraphrase cache) to check too.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def check_cmd(
    queries_file: Path, forms: tuple[str, ...], files: tuple[str, ...], as_json: bool
) -> None:
    """Per form, how many queries contain every condition name verbatim; exit 1 on any failure."""
    from evaudit.output import emit_json
    from formats.readers import read_queries
    from packet_builder.query_forms import FormsReport, check_forms, check_texts

    base = read_queries(queries_file)
    report = check_forms(base, forms or (() if files else _FORMS))
    extra = []
    for spec in files:
        name, sep, file = spec.partition("=")
        if not sep or not name or not file:
            raise InputError(f"--file {spec!r} is not NAME=FILE", hint="e.g. --file para=q.jsonl")
        other = read_queries(file)
        _same_structure(base, other, Path(file))
        extra.append(check_texts(name, other, [q.text for q in other]))
    report = FormsReport(report.checks + tuple(extra))
    emit_json(report.to_json()) if as_json else click.echo(_check_text(report.checks))
    if not report.ok:
        sys.exit(1)


@queries.command("show")
@click.argument("project", type=click.Path(path_type=Path, file_okay=False))
@click.argument("query_id", metavar="QUERY")
@click.option("--qrels", type=_path,
              help="Grades from this qrels file (e.g. the revised copy) instead of the store's.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def show_cmd(project: Path, query_id: str, qrels: Path | None, as_json: bool) -> None:
    """Table S6: every gold and subset document of QUERY with the pages that carry each
    condition in the project's evidence inventory."""
    from evaudit.output import emit_json
    from services.query_labels import query_labels

    rep = query_labels(project, query_id, qrels=qrels)
    emit_json(rep.to_json()) if as_json else click.echo(rep.table())


COMMANDS: list[click.Command] = [queries]
