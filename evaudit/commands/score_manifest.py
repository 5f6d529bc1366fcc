"""`score nclue --manifest-out FILE`: the command line and the printed text of the manifest.

The manifest itself (inputs, the .stdout file, the checks) is services/score_manifest.py;
this edge adds what only the CLI knows: its argv and the exact text it printed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from services.score_inputs import ScoreReport, ScoreSource


def _inputs(src: ScoreSource, files: Sequence[Path | None]) -> list[Path]:
    from services.score_manifest import manifest_inputs

    return manifest_inputs(src.project, files, [path for _, path in src.runs])


def check_score_manifest(
    manifest_out: Path, src: ScoreSource, files: Sequence[Path | None], per_query: Path | None
) -> None:
    """Refuse paths the manifest could not name before anything is scored or written."""
    from services.score_manifest import check_score_manifest as check

    check(manifest_out, _inputs(src, files), per_query)


def write_score_manifest(
    manifest_out: Path, report: ScoreReport, as_json: bool, src: ScoreSource,
    files: Sequence[Path | None], per_query: Path | None,
) -> None:  # fmt: skip
    from evaudit.commands.reproduce import command_argv
    from evaudit.output import dumps
    from services.score_manifest import write_score_manifest as write

    printed = (dumps(report.to_json()) if as_json else report.table()) + "\n"  # as echoed
    argv = command_argv(click.get_current_context())
    write(manifest_out, argv, printed, _inputs(src, files), per_query)
