"""The audit agreement tables of "Do Current Retrievers Cover All the Evidence?" (supplement) ("Initial Blind Audit", "Adjudication agreement").

Pure: takes a packet's items and the evaluated response streams, returns the
figures `evaudit agreement audit` prints. Derived grades use docs/architecture.md's
definition (supported conditions, with the distinct-page gate on physical pages).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from scorers.agreement import page_set_agreement
from scorers.kappa import confusion, fleiss_kappa, kappa_from_confusion
from scorers.responses import (
    ItemInfo,
    ItemResponse,
    PacketInfo,
    Responses,
    grade_from_supports,
    supports_of,
)
from scorers.wilson import proportion

STRATA: dict[str, Callable[[ItemInfo], str]] = {
    "n": lambda it: str(it.n),
    "release": lambda it: it.release,
    "source": lambda it: it.source,
}


@dataclass(frozen=True)
class TwoRaterFigures:
    """Grade and condition agreement of two raters (proportions: `{count, total, rate,
    wilson95}` as `scorers.wilson.proportion` gives them)."""

    pairs: int
    conditions: int
    exact_grade_agreement: dict[str, Any]
    grade_kappa_linear: float
    confusion: list[list[int]]  # rows: first rater, columns: second; by derived grade
    condition_agreement: dict[str, Any]
    condition_kappa: float
    page_set_agreement: dict[str, Any]  # `{count, total, rate}`

    def to_json(self, confusion: bool = True) -> dict[str, Any]:
        """The figures; a stratum's leave the confusion matrix out (`confusion` False)."""
        out: dict[str, Any] = {
            "pairs": self.pairs,
            "conditions": self.conditions,
            "exact_grade_agreement": self.exact_grade_agreement,
            "grade_kappa_linear": self.grade_kappa_linear,
            "confusion": self.confusion,
            "condition_agreement": self.condition_agreement,
            "condition_kappa": self.condition_kappa,
            "page_set_agreement": self.page_set_agreement,
        }
        if not confusion:
            del out["confusion"]
        return out


@dataclass(frozen=True)
class MultiRaterFigures:
    """Unanimity and Fleiss of three or more raters; each pair's agreement (`items`: the
    items that pair completed) with its kappa."""

    pairs: int
    conditions: int
    unanimous: dict[str, Any]  # `{count, total, rate}`
    positive_votes: dict[str, Any]  # `{count, total}`
    fleiss_kappa: float
    pairwise_agreement: dict[str, dict[str, Any]]  # "a-b": proportion + kappa + items

    def to_json(self, confusion: bool = True) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "conditions": self.conditions,
            "unanimous": self.unanimous,
            "positive_votes": self.positive_votes,
            "fleiss_kappa": self.fleiss_kappa,
            "pairwise_agreement": self.pairwise_agreement,
        }


Figures = TwoRaterFigures | MultiRaterFigures


@dataclass(frozen=True)
class AuditTable:
    """The agreement table of one packet, with the same figures per stratum."""

    packet_id: str
    kind: str
    raters: list[str]
    items_in_packet: int
    incomplete_pairs: int  # items not finished by every rater
    figures: Figures
    quotes_exact: dict[str, int]  # `{count, total}` over the completed items
    clear_by_all: dict[str, int]  # `{count, total}`
    positives: dict[str, int]  # supported conditions per rater
    strata: dict[str, dict[str, Figures]]  # stratum -> value -> figures
    pair_grades: list[dict[str, Any]]  # one record per full item (`pair_grades`)

    def to_json(self) -> dict[str, Any]:
        return {
            "packet_id": self.packet_id,
            "kind": self.kind,
            "raters": self.raters,
            "items_in_packet": self.items_in_packet,
            "incomplete_pairs": self.incomplete_pairs,
            **self.figures.to_json(),
            "quotes_exact": self.quotes_exact,
            "clear_by_all": self.clear_by_all,
            "positives": self.positives,
            "strata": {
                name: {value: fig.to_json(confusion=False) for value, fig in groups.items()}
                for name, groups in self.strata.items()
            },
            "pair_grades": self.pair_grades,
        }


def derive_grade(item: ItemInfo, resp: ItemResponse) -> int:
    return grade_from_supports(item.n, supports_of(resp))


def completed_items(
    packet: PacketInfo, responses: Responses, raters: Sequence[str]
) -> list[ItemInfo]:
    """Items every rater answered in full (yes/no on every displayed condition)."""
    return _completed(packet.items, responses, raters)


def pair_grades(
    items: Sequence[ItemInfo], responses: Responses, raters: Sequence[str]
) -> list[dict[str, Any]]:
    """Derived grade per rater for every full item (all n conditions displayed)."""
    return [
        {
            "item_id": it.item_id,
            "query_id": it.query_id,
            "doc_id": it.doc_id,
            "n": it.n,
            "grade": it.grade,
            "grades": {r: derive_grade(it, responses[r][it.item_id]) for r in raters},
        }
        for it in items
        if it.full
    ]


def _two_rater(
    items: Sequence[ItemInfo], responses: Responses, first: str, second: str
) -> TwoRaterFigures:
    ra, rb = responses[first], responses[second]
    full = [it for it in items if it.full]
    ga = [derive_grade(it, ra[it.item_id]) for it in full]
    gb = [derive_grade(it, rb[it.item_id]) for it in full]
    top = max((it.n for it in full), default=0)
    _, mat = confusion(ga, gb, labels=list(range(top + 1)))
    ca: list[bool] = []
    cb: list[bool] = []
    pa: list[frozenset[str]] = []
    pb: list[frozenset[str]] = []
    for it in items:
        for c in it.conditions:
            xa, xb = ra[it.item_id].conditions[c.key], rb[it.item_id].conditions[c.key]
            ca.append(xa.supported)
            cb.append(xb.supported)
            pa.append(frozenset(xa.pages) if xa.answer == "yes" else frozenset())
            pb.append(frozenset(xb.pages) if xb.answer == "yes" else frozenset())
    _, cmat = confusion(ca, cb, labels=[False, True])
    agree_grade = sum(1 for x, y in zip(ga, gb, strict=True) if x == y)
    agree_cond = sum(1 for x, y in zip(ca, cb, strict=True) if x == y)
    return TwoRaterFigures(
        pairs=len(items),
        conditions=len(ca),
        exact_grade_agreement=proportion(agree_grade, len(full)),
        grade_kappa_linear=kappa_from_confusion(mat, "linear") if full else math.nan,
        confusion=mat.tolist(),
        condition_agreement=proportion(agree_cond, len(ca)),
        condition_kappa=kappa_from_confusion(cmat) if ca else math.nan,
        page_set_agreement=page_set_agreement(pa, pb),
    )


def _binary_table(
    items: Sequence[ItemInfo], responses: Responses, raters: Sequence[str]
) -> list[list[bool]]:
    return [
        [responses[r][it.item_id].conditions[c.key].supported for r in raters]
        for it in items
        for c in it.conditions
    ]


def _multi_rater(
    items: Sequence[ItemInfo],
    responses: Responses,
    raters: Sequence[str],
    pool: Sequence[ItemInfo],
) -> MultiRaterFigures:
    """Unanimity and Fleiss over the items every rater completed; each pair's agreement
    over the items *that pair* completed (`pool`: the candidate items), with their count."""
    rows = _binary_table(items, responses, raters)
    unanimous = sum(1 for row in rows if len(set(row)) == 1)
    table = [[len(row) - sum(row), sum(row)] for row in rows]
    pairwise = {}
    for a, b in combinations(raters, 2):
        shared = _completed(pool, responses, (a, b))
        both = _binary_table(shared, responses, (a, b))
        agree = sum(1 for x, y in both if x == y)
        _, cmat = confusion([x for x, _ in both], [y for _, y in both], labels=[False, True])
        pairwise[f"{a}-{b}"] = {
            **proportion(agree, len(both)),
            "kappa": kappa_from_confusion(cmat) if both else math.nan,
            "items": len(shared),
        }
    return MultiRaterFigures(
        pairs=len(items),
        conditions=len(rows),
        unanimous={
            "count": unanimous,
            "total": len(rows),
            "rate": unanimous / len(rows) if rows else math.nan,
        },
        positive_votes={"count": sum(sum(r) for r in rows), "total": len(rows) * len(raters)},
        fleiss_kappa=fleiss_kappa(table) if rows else math.nan,
        pairwise_agreement=pairwise,
    )


def _completed(
    pool: Sequence[ItemInfo], responses: Responses, raters: Sequence[str]
) -> list[ItemInfo]:
    out = []
    for item in pool:
        resps = [responses.get(r, {}).get(item.item_id) for r in raters]
        if all(x is not None and x.answered_all(item) for x in resps):
            out.append(item)
    return out


def _figures(
    items: Sequence[ItemInfo],
    responses: Responses,
    raters: Sequence[str],
    pool: Sequence[ItemInfo],
) -> Figures:
    if len(raters) == 2:
        return _two_rater(items, responses, raters[0], raters[1])
    return _multi_rater(items, responses, raters, pool)


def audit_report(packet: PacketInfo, responses: Responses, raters: Sequence[str]) -> AuditTable:
    """The initial-audit (2 raters) or adjudication (3+ raters) agreement table with strata."""
    if len(raters) < 2:
        raise ValueError("agreement needs at least two raters")
    items = completed_items(packet, responses, raters)
    resp_rows = [responses[r][it.item_id] for it in items for r in raters]
    qtot = sum(c.quotes_total for x in resp_rows for c in x.conditions.values())
    qok = sum(c.quotes_exact for x in resp_rows for c in x.conditions.values())
    clear = sum(1 for it in items if not any(responses[r][it.item_id].unclear for r in raters))
    strata: dict[str, dict[str, Figures]] = {}
    for name, keyfn in STRATA.items():
        groups: dict[str, list[ItemInfo]] = {}
        for it in items:
            groups.setdefault(keyfn(it), []).append(it)
        pools: dict[str, list[ItemInfo]] = {}
        for it in packet.items:
            pools.setdefault(keyfn(it), []).append(it)
        strata[name] = {
            value: _figures(group, responses, raters, pools[value])
            for value, group in sorted(groups.items())
        }
    return AuditTable(
        packet_id=packet.packet_id,
        kind=packet.kind,
        raters=list(raters),
        items_in_packet=len(packet.items),
        incomplete_pairs=len(packet.items) - len(items),
        figures=_figures(items, responses, raters, packet.items),
        quotes_exact={"count": qok, "total": qtot},
        clear_by_all={"count": clear, "total": len(items)},
        positives={
            r: sum(
                1
                for it in items
                for c in responses[r][it.item_id].conditions.values()
                if c.supported
            )
            for r in raters
        },
        strata=strata,
        pair_grades=pair_grades(items, responses, raters),
    )
