"""Printing helpers shared by every command: one JSON object under --json, tables otherwise."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

import click

from vocabulary.jsonsafe import dumps_indented
from vocabulary.progress import Progress

T = TypeVar("T")


def dumps(obj: Any) -> str:
    """`json.dumps(json_safe(obj), indent=2, ensure_ascii=False)`, as every release printed."""
    return dumps_indented(obj)


def emit_json(obj: Any) -> None:
    click.echo(dumps(obj))


def progress(
    items: Iterable[T], *, total: int | None = None, desc: str = "", quiet: bool = False
) -> Iterator[T]:
    """A tqdm bar on stderr for long work; silent under --json or off a terminal."""
    from tqdm import tqdm  # here, not at import: every command pays for its import otherwise

    disable = quiet or not sys.stderr.isatty()
    yield from tqdm(items, total=total, desc=desc, disable=disable, file=sys.stderr, leave=False)


def progress_bar(quiet: bool) -> Progress:
    """The `Progress` callback the CLI injects into library code (quiet under --json)."""

    def bar(items: Iterable[T], *, total: int | None = None, desc: str = "") -> Iterator[T]:
        return progress(items, total=total, desc=desc, quiet=quiet)

    return bar
