"""Every command and group has help text (sqlite-utils style)."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from evaudit.cli import cli
from tests.conftest import run_cli


def _walk(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        path = (*prefix, name)
        out.append(path)
        if isinstance(cmd, click.Group):
            out.extend(_walk(cmd, path))
    return out


COMMANDS = _walk(cli)


def test_core_commands_exist() -> None:
    names = {c[0] for c in COMMANDS}
    assert {"init", "ingest", "load", "status"} <= names


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_command_has_help(path: tuple[str, ...]) -> None:
    cmd: click.Command = cli
    for part in path:
        assert isinstance(cmd, click.Group)
        cmd = cmd.commands[part]
    assert (cmd.help or "").strip(), f"{' '.join(path)} has no help text"
    for param in cmd.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert (param.help or "").strip(), f"{' '.join(path)} {param.opts} has no help"
    out = run_cli(*path, "--help").stdout
    assert "Usage:" in out


def test_console_script_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "evaudit", "--help"], capture_output=True, text=True, check=True
    )
    assert "Audit the relevance labels" in proc.stdout
