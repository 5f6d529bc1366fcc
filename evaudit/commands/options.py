"""Option parsing shared by several commands: comma-separated cutoffs.

`--run NAME=FILE` values are read by `vocabulary.runspec` (the services read run files
named inside other options the same way).

Only what is the same in every command that uses it lives here; options whose
help texts or defaults differ stay with their commands.
"""

from __future__ import annotations

import click


def int_list(_: click.Context, __: click.Parameter, value: str) -> list[int]:
    """Click callback: comma-separated cutoffs, each an integer >= 1."""
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError as exc:
        raise click.BadParameter("use comma-separated integers, e.g. 1,5,20") from exc
    if not out or any(v < 1 for v in out):
        raise click.BadParameter("cutoffs are integers >= 1, e.g. 1,5,20")
    return out
