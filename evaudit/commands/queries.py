"""`evaudit queries`: deterministic query forms (raw, clean_v2, natural) and their QA check.

The rules are pure functions in packet_builder.query_forms (docs/runs.md); the reading,
writing and checking is services.query_forms; this file parses options and prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from evaudit.output import emit_json

_path = click.Path(path_type=Path, dir_okay=False)
# services.query_forms.FORMS, written out so that --help imports no service
_FORMS = ("raw", "clean_v2", "natural")


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
    from services.query_forms import render_queries

    report = render_queries(queries_file, form, out)
    emit_json(report.to_json()) if as_json else click.echo(report.table())


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
    from services.query_forms import check_query_forms

    report = check_query_forms(queries_file, forms, files)
    emit_json(report.to_json()) if as_json else click.echo(report.table())
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
    from services.query_labels import query_labels

    rep = query_labels(project, query_id, qrels=qrels)
    emit_json(rep.to_json()) if as_json else click.echo(rep.table())


COMMANDS: list[click.Command] = [queries]
