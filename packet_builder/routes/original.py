"""`original`: pages shown for this condition in earlier packets of the project."""

from __future__ import annotations

from collections.abc import Mapping

from packet_builder.routes.base import PageListRoute

NAME = "original"


def original_route(shown: Mapping[tuple[str, str, str], Mapping[int, float]]) -> PageListRoute:
    """`shown`: (query, doc, condition) -> {page: number of earlier packets that showed it}.

    Built by `packet_builder.history.shown_pages` from the earlier admin keys.
    """
    return PageListRoute(NAME, shown)
