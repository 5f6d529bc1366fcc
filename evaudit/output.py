"""Printing helpers shared by every command: one JSON object under --json, tables otherwise."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

import click
from tqdm import tqdm

T = TypeVar("T")


def _clean(value: Any) -> Any:
    """Make numpy scalars, NaN and tuples JSON-safe (NaN becomes null)."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (ValueError, TypeError):
            return value
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def dumps(obj: Any) -> str:
    return json.dumps(_clean(obj), indent=2, sort_keys=False, ensure_ascii=False)


def emit_json(obj: Any) -> None:
    click.echo(dumps(obj))


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """A plain aligned text table (right-aligned numbers)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for idx, r in enumerate(cells):
        parts = []
        for i, c in enumerate(r):
            numeric = idx > 0 and _is_number(c)
            parts.append(c.rjust(widths[i]) if numeric else c.ljust(widths[i]))
        out.append("  ".join(parts).rstrip())
        if idx == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return False
    return True


def progress(
    items: Iterable[T], *, total: int | None = None, desc: str = "", quiet: bool = False
) -> Iterator[T]:
    """A tqdm bar on stderr for long work; silent under --json or off a terminal."""
    disable = quiet or not sys.stderr.isatty()
    yield from tqdm(items, total=total, desc=desc, disable=disable, file=sys.stderr, leave=False)
