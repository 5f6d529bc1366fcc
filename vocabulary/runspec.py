"""A run named on the command line: `--run NAME=FILE` or `--run FILE`, one name per run.

The CLI reads `--run` values with these, and the score services read the run files named
inside other options (`--drop NAME:POS=[NAME=]FILE`) the same way.
"""

from __future__ import annotations

from pathlib import Path

from vocabulary.errors import InputError

RunSpec = tuple[str | None, Path]


def parse_run_spec(spec: str) -> RunSpec:
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
