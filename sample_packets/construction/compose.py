"""Compose 2- and 3-condition queries: rare conjunctions with >= 1 gold and several subsets.

Anchor-first ("Do Current Retrievers Cover All the Evidence?" (supplement), "compose P0"): pick an anchor document, pick n eligible
conditions it holds on distinct pages with no page holding all of them, then
keep the query only if, over the whole corpus, its golds are few and its
subsets several. The rng is seeded; every candidate list is sorted first, so
the same inventory always gives the same queries.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from sample_packets.construction.aliases import compile_matcher
from sample_packets.construction.config import ConstructionConfig
from sample_packets.construction.extract import DocText
from sample_packets.construction.grading import clue_grade
from sample_packets.construction.inventory import Concept


@dataclass(frozen=True)
class Composed:
    concepts: tuple[Concept, ...]
    anchor: int  # doc index whose pages guaranteed a gold
    grades: dict[int, int]  # doc index -> nonzero clue count (after the gold gates)


@cache
def _matcher(forms: tuple[str, ...], tex_names: bool) -> re.Pattern[str]:
    return compile_matcher(forms, tex_names)


def _overlap(a: Concept, b: Concept, tex_names: bool = True) -> bool:
    """True when one condition's form occurs inside the other's (e.g. "font" in "font size")."""
    ma, mb = _matcher(a.forms, tex_names), _matcher(b.forms, tex_names)
    return any(ma.search(f) for f in b.forms) or any(mb.search(f) for f in a.forms)


def grades_for(concepts: Sequence[Concept]) -> dict[int, int]:
    n = len(concepts)
    union = sorted(set().union(*(c.postings for c in concepts)))
    out: dict[int, int] = {}
    for d in union:
        pages = {str(i): c.postings.get(d, ()) for i, c in enumerate(concepts)}
        out[d] = clue_grade(n, pages)
    return out


def compose_queries(
    concepts: Sequence[Concept], docs: Sequence[DocText], cfg: ConstructionConfig
) -> list[Composed]:
    rng = random.Random(cfg.seed)
    by_doc: dict[int, list[Concept]] = {}
    for c in sorted(concepts, key=lambda c: c.key):
        for d in c.postings:
            by_doc.setdefault(d, []).append(c)
    anchors = sorted(by_doc)
    rng.shuffle(anchors)
    if not anchors:
        return []
    uses: Counter[str] = Counter()
    seen: set[frozenset[str]] = set()
    out: list[Composed] = []
    for attempt in range(cfg.max_attempts):
        if len(out) >= cfg.n_queries:
            break
        anchor = anchors[attempt % len(anchors)]
        n = 3 if rng.random() < cfg.p_three else 2
        pool = [c for c in by_doc[anchor] if uses[c.key] < cfg.max_uses]
        if len(pool) < n:
            continue
        chosen = rng.sample(pool, n)
        keys = frozenset(c.key for c in chosen)
        if keys in seen:
            continue
        if any(
            _overlap(a, b, cfg.tex_names) for i, a in enumerate(chosen) for b in chosen[i + 1 :]
        ):
            continue
        if clue_grade(n, {str(i): c.postings[anchor] for i, c in enumerate(chosen)}) != n:
            continue
        grades = grades_for(chosen)
        golds = sum(1 for g in grades.values() if g == n)
        subsets = len(grades) - golds
        if golds > cfg.max_gold or golds > cfg.max_gold_frac * len(grades):
            continue
        if subsets < cfg.min_subsets:
            continue
        seen.add(keys)
        uses.update(keys)
        out.append(Composed(tuple(chosen), anchor, grades))
    return out
