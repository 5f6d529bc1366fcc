"""Derived grades with the distinct-page gate (docs/architecture.md, "Shared definitions").

grade = number of supported conditions; when all n are supported but no
assignment of a distinct selected page to every condition exists (Hall's
condition fails), the pair stays partial at n-1.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

# Generic so callers keep their own id types (Mapping is invariant in its key type).
C = TypeVar("C", bound=Hashable)  # a condition id
P = TypeVar("P", bound=Hashable)  # a page id


def distinct_page_assignment(supports: Mapping[C, Iterable[P]]) -> dict[C, P] | None:
    """A condition -> page matching using each page once, or None if none exists.

    Maximum bipartite matching by augmenting paths (Kuhn); conditions are few.
    """
    options = {c: sorted(set(p), key=repr) for c, p in supports.items()}
    owner: dict[P, C] = {}

    def augment(cond: C, seen: set[P]) -> bool:
        for page in options[cond]:
            if page in seen:
                continue
            seen.add(page)
            if page not in owner or augment(owner[page], seen):
                owner[page] = cond
                return True
        return False

    for cond in sorted(options, key=repr):
        if not augment(cond, set()):
            return None
    return {c: p for p, c in owner.items()}


def derived_grade(n: int, supports: Mapping[C, Iterable[P]]) -> int:
    """Supported-condition count, capped at n-1 when all n lack distinct pages.

    `supports` maps each *supported* condition to the physical pages that support it.
    """
    supported = {c: list(p) for c, p in supports.items() if list(p)}
    grade = len(supported)
    if n > 0 and grade == n and distinct_page_assignment(supported) is None:
        return n - 1
    return grade
