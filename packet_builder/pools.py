"""Candidate pools: the deduplicated union of the routes, fused and capped per condition.

Fusion is reciprocal-rank fusion: a page's fused score is the sum over the
routes that retrieved it of 1 / (RRF_K + rank in that route), rank 1-based.
Ties go to the lower page number. The pool is the top `max_pages` of the fused
list; when the routes find fewer than `min_pages`, the document's remaining
pages are added in page order (marked `fill`, no route) until `min_pages` or
the document runs out. A page's routes and ranks go to the admin key only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from packet_builder.routes.base import ROUTE_NAMES, Ranking, Route, Target

RRF_K = 60


@dataclass
class PoolPage:
    page: int
    routes: dict[str, int] = field(default_factory=dict)  # route name -> 1-based rank
    score: float = 0.0
    fused_rank: int = 0
    fill: bool = False

    def key_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "page": self.page,
            "routes": dict(self.routes),
            "fused_rank": self.fused_rank,
        }
        if self.fill:
            out["fill"] = True
        return out


def fuse(rankings: Mapping[str, Ranking], rrf_k: int = RRF_K) -> list[PoolPage]:
    """Reciprocal-rank fusion of route rankings; every page once, best first."""
    pages: dict[int, PoolPage] = {}
    for route in sorted(rankings, key=_route_order):
        for rank, (page, _score) in enumerate(rankings[route], start=1):
            entry = pages.setdefault(page, PoolPage(page))
            entry.routes[route] = rank
            entry.score += 1.0 / (rrf_k + rank)
    fused = sorted(pages.values(), key=lambda p: (-p.score, p.page))
    for i, entry in enumerate(fused, start=1):
        entry.fused_rank = i
    return fused


def cap(
    fused: list[PoolPage], doc_pages: Sequence[int], min_pages: int, max_pages: int
) -> list[PoolPage]:
    """Top `max_pages`, topped up to `min_pages` from the document's other pages in page order."""
    if min_pages > max_pages:
        raise ValueError(f"min_pages {min_pages} > max_pages {max_pages}")
    valid = set(doc_pages)
    pool = [p for p in fused if p.page in valid][:max_pages]
    return _top_up(pool, valid, min_pages)


def _top_up(pool: list[PoolPage], valid: set[int], min_pages: int) -> list[PoolPage]:
    """The pool topped up to `min_pages` from the document's other pages, in page order."""
    if len(pool) < min_pages:
        taken = {p.page for p in pool}
        for page in sorted(valid - taken):
            if len(pool) >= min_pages:
                break
            pool.append(PoolPage(page, fused_rank=len(pool) + 1, fill=True))
    return pool


def expect_targets(routes: Sequence[Route], targets: Iterable[Target]) -> None:
    """Tell routes that batch work per document (`fuzzy`) which targets are coming.

    Optional: pools are the same without it, only slower when many targets
    share a document. Call it once, then build the pools in document order.
    """
    targets = list(targets)
    for route in routes:
        expect = getattr(route, "expect", None)
        if callable(expect):
            expect(targets)


def rank_routes(target: Target, routes: Sequence[Route]) -> dict[str, Ranking]:
    return {route.name: route.rank(target) for route in routes}


def build_pool(
    target: Target,
    routes: Sequence[Route],
    doc_pages: Sequence[int],
    min_pages: int,
    max_pages: int,
) -> list[PoolPage]:
    """`cap(fuse(rank_routes(...)), ...)`, without building entries for pages past the cap."""
    return fuse_and_cap(rank_routes(target, routes), doc_pages, min_pages, max_pages)


def fuse_and_cap(
    rankings: Mapping[str, Ranking],
    doc_pages: Sequence[int],
    min_pages: int,
    max_pages: int,
    rrf_k: int = RRF_K,
) -> list[PoolPage]:
    """Exactly `cap(fuse(rankings, rrf_k), doc_pages, min_pages, max_pages)`.

    Same float sums in the same route order, the same (score, page) order and
    fused ranks over all fused pages; PoolPage entries only for the kept pages
    (BM25 alone often ranks every page of a long document).
    """
    if min_pages > max_pages:
        raise ValueError(f"min_pages {min_pages} > max_pages {max_pages}")
    order = sorted(rankings, key=_route_order)
    score: dict[int, float] = {}
    for route in order:
        for rank, (page, _s) in enumerate(rankings[route], start=1):
            score[page] = score.get(page, 0.0) + 1.0 / (rrf_k + rank)
    valid = set(doc_pages)
    # (-score, page) tuples sort in C: best score first, ties by page number
    ranked = sorted([(-s, page) for page, s in score.items()])
    kept: list[tuple[int, int]] = []
    for i, (_, page) in enumerate(ranked, start=1):
        if len(kept) >= max_pages:
            break
        if page in valid:
            kept.append((i, page))
    positions: dict[int, dict[str, int]] = {page: {} for _, page in kept}
    for route in order:
        for rank, (page, _s) in enumerate(rankings[route], start=1):
            if page in positions:
                positions[page][route] = rank
    pool = [PoolPage(page, positions[page], score[page], i) for i, page in kept]
    return _top_up(pool, valid, min_pages)


def _route_order(name: str) -> tuple[int, str]:
    return (ROUTE_NAMES.index(name) if name in ROUTE_NAMES else len(ROUTE_NAMES), name)
