"""`evaudit journal migrate|verify`: move journals between files and PostgreSQL, compare."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from evaudit.output import emit_json

_DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")


@click.group("journal")
def journal() -> None:
    """Where the journals, the annotator registry and overrides live (files or PostgreSQL)."""


@journal.command("migrate")
@_DIR
@click.option(
    "--to",
    "to",
    required=True,
    metavar="postgresql://USER@HOST:PORT/DB|file",
    help="Target: a PostgreSQL database (password from PGPASSWORD, ~/.pgpass or "
    "EVAUDIT_JOURNAL_URL) or 'file' (back into the project folder).",
)
@_JSON
def migrate(directory: Path, to: str, as_json: bool) -> None:
    """Copy journals, registry and overrides to the target, verify line counts and
    SHA-256 per stream, then switch the project to it. Safe to run again: copies only
    what the target lacks and never overwrites."""
    from campaign.journal_migrate import migrate as run
    from campaign.project import open_project

    report = run(open_project(directory), to)
    if as_json:
        emit_json(report.to_json())
        return
    n = sum(report.copied_lines.values())
    click.echo(
        f"journals now in {report.to}: copied {n} lines in {len(report.copied_lines)} "
        f"streams and {report.copied_overrides} overrides"
    )
    if report.comparison is not None:
        click.echo(f"verified {len(report.comparison.streams)} streams: identical")


@journal.command("verify")
@_DIR
@_JSON
def verify(directory: Path, as_json: bool) -> None:
    """Compare the journal files in DIRECTORY with the campaign's rows in PostgreSQL
    (line counts and SHA-256 per stream, registry, overrides). Exit 1 when they differ."""
    from campaign.journal_migrate import compare
    from campaign.project import open_project

    comp = compare(open_project(directory))
    if as_json:
        emit_json(comp.to_json())
    else:
        for s in comp.streams:
            mark = "same" if s.same else "DIFFERENT"
            click.echo(
                f"{s.packet}/{s.annotator}: files {s.file_lines} lines, "
                f"database {s.db_lines} lines: {mark}"
            )
        click.echo(f"registry: {'same' if comp.registry_same else 'DIFFERENT'}")
        click.echo(f"overrides: {'same' if comp.overrides_same else 'DIFFERENT'}")
    if not comp.same:
        sys.exit(1)


COMMANDS = [journal]
