"""`score nclue --manifest-out FILE`: the reproduction manifest of the scoring just done.

The printed report is saved as FILE with the suffix .stdout (the command's output in
the manifest); inputs are the files the command read, with the project's store and
project.json when it read a project. Rules in docs/runs.md ("A manifest for finalize
and score").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vocabulary.errors import InputError
from vocabulary.jsonsafe import dumps_indented


@dataclass(frozen=True)
class ManifestRequest:
    """`--manifest-out FILE` as the CLI knows it: the file, the command line that ran
    (`evaudit.commands.reproduce.command_argv`) and whether the report is printed as JSON."""

    path: Path
    argv: list[Any]
    as_json: bool

    def printed(self, report: Any) -> str:
        """What the command prints for `report`, newline included (as click echoes it)."""
        return (dumps_indented(report.to_json()) if self.as_json else report.table()) + "\n"


def stdout_path(manifest_out: Path) -> Path:
    return manifest_out.with_suffix(".stdout")


def manifest_inputs(
    project: Path | None, files: Sequence[Path | None], run_paths: Sequence[Path]
) -> list[Path]:
    """The files a score command read: the given ones, the project's, the runs."""
    ins = [f for f in files if f is not None]
    if project is not None:
        ins += [project / "project.json", project / "audit.duckdb"]
    return ins + list(run_paths)


def check_score_manifest(
    manifest_out: Path, inputs: Sequence[Path], per_query: Path | None
) -> None:
    """Refuse paths the manifest could not name before anything is scored or written."""
    from formats.manifest import require_inside

    outs = [per_query] if per_query is not None else []
    require_inside(manifest_out, [*inputs, *outs])


def write_score_manifest(
    manifest_out: Path, argv: list[str], printed: str, inputs: Sequence[Path],
    per_query: Path | None,
) -> None:  # fmt: skip
    """Save `printed` (what the command printed, newline included) and the manifest."""
    from formats.manifest import write_command_manifest

    out = stdout_path(manifest_out)
    try:
        out.write_text(printed, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the printed report ({exc.strerror})", file=out) from exc
    outs = [per_query] if per_query is not None else []
    write_command_manifest(manifest_out, argv, list(inputs), outs, stdout=out)
