"""Whether each label can be established from its construction evidence. Pure.

For every judged pair (and every pair with evidence) the construction evidence
P(d, c) is re-read: the grade must equal the number of conditions with an evidence
page inside the document, and a gold (grade n) must have evidence for every condition
and a distinct-page assignment (the distinct-page gate, vocabulary.grades; a pair
whose n conditions all have evidence but no distinct pages agrees at grade n-1). With
`require_cross_page`, a gold of n >= 2 conditions must not be solvable on one page
(one page that is evidence for every condition), and such a pair agrees at grade n-1.
The cheap check (`load`) skips the matching: it accepts n-1 for a fully evidenced pair
and leaves golds' page gates to the full check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vocabulary.grades import distinct_page_assignment

KINDS = (
    "page_outside_document",
    "no_evidence",
    "grade_mismatch",
    "no_distinct_pages",
    "single_page",
)
CHEAP = ("page_outside_document", "no_evidence", "grade_mismatch")  # what `load` runs

PairKey = tuple[str, str]


@dataclass(frozen=True)
class Finding:
    kind: str
    query_id: str
    doc_id: str
    condition_id: str | None
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "query_id": self.query_id,
            "doc_id": self.doc_id,
            "condition_id": self.condition_id,
            "detail": self.detail,
        }


def _shared_page(inside: Mapping[str, Sequence[int]]) -> set[int]:
    return set.intersection(*(set(p) for p in inside.values())) if inside else set()


def _gated(
    inside: Mapping[str, Sequence[int]], n: int, grade: int, cross_page: bool, cheap: bool
) -> bool:
    """Whether a gate explains grade n-1 for a pair whose n conditions all have evidence:
    no distinct-page assignment, or (when the benchmark requires it) one page holding
    every condition. The cheap check leaves that question to the full one."""
    if len(inside) != n or grade != n - 1 or n == 0:
        return False
    if cheap:
        return True
    if distinct_page_assignment(inside) is None:
        return True
    return cross_page and n >= 2 and bool(_shared_page(inside))


def check_labels(
    conditions: Mapping[str, Sequence[str]],  # query -> condition ids in order
    grades: Mapping[PairKey, int],
    evidence: Mapping[tuple[str, str, str], Sequence[int]],  # (q, d, c) -> pages
    n_pages: Mapping[str, int],
    *,
    require_cross_page: bool = False,
    cheap: bool = False,
) -> list[Finding]:
    """Every finding, ordered by query, document, kind, condition."""
    by_pair: dict[PairKey, dict[str, list[int]]] = {}
    for (q, d, c), pages in evidence.items():
        by_pair.setdefault((q, d), {})[c] = list(pages)
    out: list[Finding] = []
    for q, d in sorted(set(grades) | set(by_pair)):
        conds = list(conditions.get(q, ()))
        n, grade, ev = len(conds), grades.get((q, d), 0), by_pair.get((q, d), {})
        limit = n_pages.get(d, 0)
        inside: dict[str, list[int]] = {}
        for c in conds:
            pages = sorted(set(ev.get(c, ())))
            outside = [p for p in pages if not 1 <= p <= limit]
            if outside:
                out.append(
                    Finding(
                        "page_outside_document",
                        q,
                        d,
                        c,
                        f"evidence page(s) {outside} outside pages 1..{limit}",
                    )
                )
            kept = [p for p in pages if 1 <= p <= limit]
            if kept:
                inside[c] = kept
            elif grade == n and n > 0:
                out.append(Finding("no_evidence", q, d, c, "a gold condition has no evidence page"))
        if len(inside) != grade and not _gated(inside, n, grade, require_cross_page, cheap):
            out.append(
                Finding(
                    "grade_mismatch",
                    q,
                    d,
                    None,
                    f"grade {grade} but {len(inside)} of {n} conditions have evidence"
                    + (" (no gate explains n-1)" if len(inside) == n == grade + 1 else ""),
                )
            )
        if cheap or grade != n or len(inside) != n or n == 0:
            continue
        if distinct_page_assignment(inside) is None:
            out.append(
                Finding(
                    "no_distinct_pages",
                    q,
                    d,
                    None,
                    "no distinct evidence page for every condition: "
                    + ", ".join(f"{c}: {inside[c]}" for c in conds),
                )
            )
        if require_cross_page and n >= 2:
            shared = _shared_page(inside)
            if shared:
                out.append(
                    Finding(
                        "single_page",
                        q,
                        d,
                        None,
                        f"page {min(shared)} is evidence for all {n} conditions",
                    )
                )
    return out


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    return {k: sum(1 for f in findings if f.kind == k) for k in KINDS}
