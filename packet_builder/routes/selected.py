"""`selected`: pages any earlier evaluator selected (answer yes) for this condition."""

from __future__ import annotations

from collections.abc import Mapping

from packet_builder.routes.base import PageListRoute

NAME = "selected"


def selected_route(chosen: Mapping[tuple[str, str, str], Mapping[int, float]]) -> PageListRoute:
    """`chosen`: (query, doc, condition) -> {page: number of evaluators who selected it}.

    Built by `packet_builder.history.selected_pages` from the journals and keys.
    """
    return PageListRoute(NAME, chosen)
