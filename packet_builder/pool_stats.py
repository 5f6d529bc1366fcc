"""Pool composition (the pool table of "Do Current Retrievers Cover All the Evidence?" (supplement)) and the held-out recall check."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from campaign import store
from campaign.project import Project
from packet_builder import history
from packet_builder.benchmark_view import read_benchmark, read_corpus
from packet_builder.packets import earlier_packets, list_packets, load_packet
from packet_builder.pools import fuse, rank_routes
from packet_builder.routes.base import ROUTE_NAMES, Target
from vocabulary.tables import table

HELD_OUT = ("selected", "construction")
# "locked": only the conditions both initial raters supported in a queued pair (the key's
# `locked` list), as the supplement's held-out check ("the 86 locked positive conditions in
# the same queued documents"); "all-positives": every condition with a known positive page.
RECALL_SCOPES = ("locked", "all-positives")


@dataclass(frozen=True)
class PoolStats:
    """`packet stats`: a packet's pool composition (route memberships are nonexclusive)."""

    pairs: int
    conditions: int
    page_contexts: int  # displayed pages summed over conditions
    pages_min: int  # pages per condition
    pages_mean: float
    pages_max: int
    route_memberships: dict[str, int]  # route -> pages it contributed, in ROUTE_NAMES order

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "conditions": self.conditions,
            "page_contexts": self.page_contexts,
            "pages_per_condition": {
                "min": self.pages_min,
                "mean": self.pages_mean,
                "max": self.pages_max,
            },
            "route_memberships": self.route_memberships,
        }

    def rows(self) -> list[list[Any]]:
        rows: list[list[Any]] = [
            ["Pairs / conditions", f"{self.pairs} / {self.conditions}"],
            ["Displayed page contexts", self.page_contexts],
            [
                "Pages per condition (min / mean / max)",
                f"{self.pages_min} / {self.pages_mean:.2f} / {self.pages_max}",
            ],
        ]
        return rows + [[f"{r} memberships", n] for r, n in self.route_memberships.items()]

    def table(self) -> str:
        return table(self.rows(), ["Candidate-pool statistic", "Count"])


def pool_stats(key: dict[str, Any]) -> PoolStats:
    """Pairs, conditions, page contexts, pages per condition, nonexclusive route memberships."""
    sizes: list[int] = []
    members: Counter[str] = Counter()
    for item in key.get("items", {}).values():
        for cond in item.get("conditions", {}).values():
            pages = cond.get("pages", {})
            sizes.append(len(pages))
            for entry in pages.values():
                members.update(entry.get("routes", {}).keys())
    return PoolStats(
        pairs=len(key.get("items", {})),
        conditions=len(sizes),
        page_contexts=sum(sizes),
        pages_min=min(sizes) if sizes else 0,
        pages_mean=sum(sizes) / len(sizes) if sizes else 0.0,
        pages_max=max(sizes) if sizes else 0,
        route_memberships={r: members.get(r, 0) for r in ROUTE_NAMES},
    )


@dataclass
class RecallResult:
    conditions: int
    recovered_at_6: int
    recovered_at_9: int
    all_positive_pages_at_9: int
    scope: str = "locked"

    def to_json(self) -> dict[str, int]:
        return dict(self.__dict__)


def held_out_recall(project: Project, name: str, scope: str = "locked") -> RecallResult:
    """For every condition of the packet's pairs with known positive pages (pages an evaluator
    selected in any packet, plus construction evidence), rebuild the fused ranking without the
    `selected` and `construction` routes and count how often positives reach ranks 6 and 9.
    scope "locked" keeps only each item's locked conditions (RECALL_SCOPES)."""
    if scope not in RECALL_SCOPES:
        raise ValueError(f"scope must be one of {RECALL_SCOPES}")
    from packet_builder.build import make_routes, target_for

    load_packet(project, name)  # fails clearly on an unknown or modified packet
    key = history.read_key(project, name)
    with store.connect(project.store_path, read_only=True) as con:
        bench = read_benchmark(con)
        corpus = read_corpus(con)
    positives = history.selected_pages(project, [r.name for r in list_packets(project)])
    for q, d, c, page in bench.evidence:
        positives.setdefault((q, d, c), {})[page] = 1.0
    kept = [r for r in ROUTE_NAMES if r not in HELD_OUT]
    routes = make_routes(kept, corpus, bench, project, earlier_packets(project, name))
    result = RecallResult(0, 0, 0, 0, scope)
    for item in key.get("items", {}).values():
        query = bench.queries.get(item["query_id"])
        if query is None:
            continue
        shown = set(corpus.shown_pages(item["doc_id"]))
        locked = set(item.get("locked") or [])
        for cond in query.conditions:
            if scope == "locked" and cond.condition_id not in locked:
                continue
            target: Target = target_for(query, item["doc_id"], cond)
            known = set(positives.get(target.key, {})) & shown
            if not known:
                continue
            ranked = [p.page for p in fuse(rank_routes(target, routes)) if p.page in shown]
            result.conditions += 1
            result.recovered_at_6 += bool(known & set(ranked[:6]))
            result.recovered_at_9 += bool(known & set(ranked[:9]))
            result.all_positive_pages_at_9 += known <= set(ranked[:9])
    return result
