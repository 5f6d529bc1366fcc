"""`evaudit reproduce MANIFEST --verify`: rerun a release's commands and check every hash.

The manifest format and the rules are in formats.manifest and
docs/runs.md, the run in services.reproduce; this file only parses options and prints.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click


@click.command("reproduce")
@click.argument("manifest", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--verify", is_flag=True,
              help="Exit 1 when an input, a command or any output hash differs.")  # fmt: skip
@click.option("--record", is_flag=True,
              help="Run the commands, copy their outputs beside the manifest and write the "
                   "inputs' and outputs' SHA-256 into it.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def reproduce(manifest: Path, verify: bool, record: bool, as_json: bool) -> None:
    """Run MANIFEST's evaudit commands in a scratch folder and compare output hashes."""
    from evaudit.output import emit_json
    from services.reproduce import reproduce as run

    # each command runs in this interpreter's evaudit, as the release was made
    report = run(manifest, [sys.executable, "-m", "evaudit"], verify=verify, record=record)
    emit_json(report.to_json()) if as_json else click.echo(report.table())
    if report.failed:
        sys.exit(1)


def command_argv(ctx: click.Context, skip: tuple[str, ...] = ("manifest_out",)) -> list[Any]:
    """The command line of the running command, rebuilt from its parsed parameters:
    options left at their default are omitted, path values stay Path objects (made
    relative to the manifest's folder later), a NAME=FILE --run spec becomes a pair."""
    words: list[Any] = []
    names = ctx.command_path.split()[1:]  # "evaudit score nclue" -> ["score", "nclue"]
    args: list[Any] = []
    for p in ctx.command.params:
        if p.name in skip or p.name is None:
            continue
        value = ctx.params.get(p.name)
        if isinstance(p, click.Argument):
            args.append(value)
            continue
        if not isinstance(p, click.Option) or value is None:
            continue
        flag = max(p.opts, key=len)
        if p.is_flag:
            words += [flag] if value else []
            continue
        if value == p.default or (value == () and p.multiple):
            continue
        for v in value if p.multiple else (value,):
            if p.name == "runs" and isinstance(v, str) and "=" in v and not Path(v).exists():
                name, _, file = v.partition("=")
                words += [flag, (f"{name}=", Path(file))]
            elif p.name == "runs":
                words += [flag, Path(v)]
            else:
                words += [flag, v if isinstance(v, Path) else str(v)]
    return [*names, *args, *words]


COMMANDS: list[click.Command] = [reproduce]
