"""Progress reporting as an injected callback.

Library code that loops over long work takes a `Progress` and wraps its
iterable in it; it never creates a bar itself, so the library does not depend
on a front end (the CLI passes a tqdm bar that stays silent under --json, the
app and the tests pass nothing). The default, `no_progress`, yields the items
unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, TypeVar

T = TypeVar("T")


class Progress(Protocol):
    """Wrap `items` (of `total` items when known, labelled `desc`) and yield them all."""

    def __call__(
        self, items: Iterable[T], /, *, total: int | None = None, desc: str = ""
    ) -> Iterator[T]: ...


def no_progress(items: Iterable[T], /, *, total: int | None = None, desc: str = "") -> Iterator[T]:
    """The silent default: the items, untouched."""
    yield from items
