"""`score nclue --manifest-out FILE`: the reproduction manifest of the scoring just done.

The printed report is saved as FILE with the suffix .stdout (the command's output in
the manifest); inputs are the files the command read, with the project's store and
project.json when it read a project. Rules in docs/runs.md ("A manifest for finalize
and score").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click


def stdout_path(manifest_out: Path) -> Path:
    return manifest_out.with_suffix(".stdout")


def _inputs(project: Path | None, files: Sequence[Path | None], runs: Sequence[str]) -> list[Path]:
    from evaudit.commands.options import parse_run_spec

    ins = [f for f in files if f is not None]
    if project is not None:
        ins += [project / "project.json", project / "audit.duckdb"]
    return ins + [parse_run_spec(r)[1] for r in runs]


def check_score_manifest(
    manifest_out: Path, project: Path | None, files: Sequence[Path | None], runs: Sequence[str],
    per_query: Path | None,
) -> None:  # fmt: skip
    """Refuse paths the manifest could not name before anything is scored or written."""
    from packet_builder.reproduce import require_inside

    outs = [per_query] if per_query is not None else []
    require_inside(manifest_out, [*_inputs(project, files, runs), *outs])


def write_score_manifest(
    manifest_out: Path, printed: Any, as_json: bool, *, project: Path | None,
    files: Sequence[Path | None], runs: Sequence[str], per_query: Path | None,
) -> None:  # fmt: skip
    from evaudit.commands.reproduce import command_argv
    from evaudit.output import dumps
    from packet_builder.reproduce import write_command_manifest
    from vocabulary.errors import InputError

    out = stdout_path(manifest_out)
    text = (dumps(printed) if as_json else printed) + "\n"  # as click.echo printed it
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the printed report ({exc.strerror})", file=out) from exc
    outs = [per_query] if per_query is not None else []
    argv = command_argv(click.get_current_context())
    write_command_manifest(manifest_out, argv, _inputs(project, files, runs), outs, stdout=out)
