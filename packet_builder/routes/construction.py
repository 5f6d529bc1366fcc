"""`construction`: the benchmark's construction evidence pages P(d, c), when it has them."""

from __future__ import annotations

from collections.abc import Iterable

from packet_builder.routes.base import PageListRoute

NAME = "construction"


def construction_route(rows: Iterable[tuple[str, str, str, int]]) -> PageListRoute:
    """`rows`: (query_id, doc_id, condition_id, page) from the store's `evidence` table."""
    table: dict[tuple[str, str, str], dict[int, float]] = {}
    for query_id, doc_id, condition_id, page in rows:
        table.setdefault((query_id, doc_id, condition_id), {})[int(page)] = 1.0
    return PageListRoute(NAME, table)
