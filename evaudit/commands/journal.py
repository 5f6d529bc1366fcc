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
    from services.journal_backend import migrate_journals

    report = migrate_journals(directory, to)
    emit_json(report.to_json()) if as_json else click.echo(report.table())


@journal.command("verify")
@_DIR
@_JSON
def verify(directory: Path, as_json: bool) -> None:
    """Compare the journal files in DIRECTORY with the campaign's rows in PostgreSQL
    (line counts and SHA-256 per stream, registry, overrides). Exit 1 when they differ."""
    from services.journal_backend import verify_journals

    report = verify_journals(directory)
    emit_json(report.to_json()) if as_json else click.echo(report.table())
    if not report.same:
        sys.exit(1)


COMMANDS = [journal]
