"""Construction controls as runs (the n-Clue supplement, Table S1d and Table S5b
"Construction controls": "oracle ~1.0; single-page AND = 0 ... fact access is leakage;
stored gold evidence is cross-page").

Both read the construction evidence (query, document) -> condition -> pages, so neither
is a fair retriever; they test the instrument:

* fact oracle (the supplement's `surface_form_count`, "gold-defining fact-count oracle"):
  every document with stored evidence for the query, scored by its derived grade from
  that evidence (the number of conditions with evidence, n - 1 when all n lack a
  distinct-page assignment; vocabulary.grades). Against qrels derived from the same
  evidence its n-Clue Score is 100: a gold ranks first wherever the query has one.
* single-page floor (`single_page_surface_and`, "privileged single-page floor"): a document
  is retrieved only when one page carries evidence for every condition of the query,
  scored by the number of such pages. A gold of the instrument needs distinct pages for its
  conditions and the construction keeps no all-condition page, so the floor scores 0.

Rows come out ranked (score descending, document id ascending on ties), rank 1 first per
query, queries in input order. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from vocabulary.grades import derived_grade

Evidence = Mapping[tuple[str, str], Mapping[str, Sequence[int]]]  # (q, d) -> condition -> pages
Row = tuple[str, str, int, float]  # query, document, rank, score

CONTROLS = {
    "fact_oracle": "gold-defining fact-count oracle (construction facts)",
    "single_page_floor": "privileged single-page floor (one page with every condition)",
}


def _ranked(scores: Mapping[str, dict[str, float]], order: Sequence[str]) -> list[Row]:
    rows: list[Row] = []
    for q in order:
        docs = sorted(scores.get(q, {}).items(), key=lambda kv: (-kv[1], kv[0]))
        rows += [(q, d, r, s) for r, (d, s) in enumerate(docs, start=1)]
    return rows


def fact_oracle(conditions: Mapping[str, Sequence[str]], evidence: Evidence) -> list[Row]:
    scores: dict[str, dict[str, float]] = {}
    for (q, d), by_cond in evidence.items():
        if q not in conditions:
            continue
        supports = {c: list(by_cond.get(c, ())) for c in conditions[q]}
        g = derived_grade(len(conditions[q]), supports)
        if g > 0:
            scores.setdefault(q, {})[d] = float(g)
    return _ranked(scores, list(conditions))


def single_page_floor(conditions: Mapping[str, Sequence[str]], evidence: Evidence) -> list[Row]:
    scores: dict[str, dict[str, float]] = {}
    for (q, d), by_cond in evidence.items():
        conds = conditions.get(q)
        if not conds:
            continue
        common = set(by_cond.get(conds[0], ()))
        for c in conds[1:]:
            common &= set(by_cond.get(c, ()))
        if common:
            scores.setdefault(q, {})[d] = float(len(common))
    return _ranked(scores, list(conditions))


def control_runs(
    conditions: Mapping[str, Sequence[str]], evidence: Evidence
) -> dict[str, list[Row]]:
    """{control name: its ranked rows} for both controls."""
    return {
        "fact_oracle": fact_oracle(conditions, evidence),
        "single_page_floor": single_page_floor(conditions, evidence),
    }
