"""Option parsing shared by several commands: comma-separated cutoffs and --run specs.

Only what is the same in every command that uses it lives here; options whose
help texts or defaults differ stay with their commands.
"""

from __future__ import annotations

from pathlib import Path

import click

from vocabulary.errors import InputError


def int_list(_: click.Context, __: click.Parameter, value: str) -> list[int]:
    """Click callback: comma-separated cutoffs, each an integer >= 1."""
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError as exc:
        raise click.BadParameter("use comma-separated integers, e.g. 1,5,20") from exc
    if not out or any(v < 1 for v in out):
        raise click.BadParameter("cutoffs are integers >= 1, e.g. 1,5,20")
    return out


def parse_run_spec(spec: str) -> tuple[str | None, Path]:
    """A --run value: NAME=FILE or FILE (a file whose name holds '=' is taken as a file)."""
    if "=" in spec and not Path(spec).exists():
        name, _, file = spec.partition("=")
        if not name:
            raise InputError(f"empty run name in {spec!r}", hint="use NAME=FILE or FILE")
        return name, Path(file)
    return None, Path(spec)


def claim_run_name(seen: dict[str, Path], name: str, path: Path) -> None:
    """Record that run `name` comes from `path`; a name given twice is an error."""
    if name in seen:
        raise InputError(
            f"run name {name!r} is also used by {seen[name]}",
            file=path,
            hint="name runs explicitly with --run NAME=FILE",
        )
    seen[name] = path
