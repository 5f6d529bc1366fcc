"""Clue counts with the two gold gates of "Do Current Retrievers Cover All the Evidence?" (supplement) (pure).

grade = number of conditions with a nonempty page set; when all n have pages,
the pair is gold only if a distinct-page assignment exists AND no single page
holds every condition ("zero single-page-solvable golds"); otherwise it stays
partial at n-1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from vocabulary.grades import distinct_page_assignment


def single_page_solvable(pages: Sequence[Sequence[int]]) -> bool:
    common = set(pages[0])
    for p in pages[1:]:
        common &= set(p)
    return bool(common)


def clue_grade(n: int, pages_by_condition: Mapping[str, Sequence[int]]) -> int:
    supported = {c: tuple(p) for c, p in pages_by_condition.items() if p}
    grade = len(supported)
    if grade == n and (
        single_page_solvable(list(supported.values()))
        or distinct_page_assignment(supported) is None
    ):
        return n - 1
    return grade
