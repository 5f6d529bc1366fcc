"""`evaudit check`: re-derive every label from the store's construction evidence
(policies.label_validity), as a typed report. `load` runs the same check on what it
stored, with the same requirement, so the two report the same counts.

A benchmark's cross-page requirement is recorded at load (`load --require-cross-page`,
the store's meta table) and used here unless the caller overrides it. When it is off,
the report also counts the grade mismatches that the requirement would explain (pairs
graded n-1 whose n evidenced conditions share one page), so the fix can be suggested.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campaign import store, store_load
from campaign.project import Project
from policies.label_validity import KINDS, Finding, check_labels, counts
from vocabulary.errors import InputError


@dataclass
class CheckReport:
    pairs: int
    findings: list[Finding] = field(default_factory=list)
    require_cross_page: bool = False
    requirement_from: str = "load"  # "load" (recorded) or "flag" (this call overrode it)
    explained_by_cross_page: int = 0  # grade mismatches the requirement would explain

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "require_cross_page": self.require_cross_page,
            "requirement_from": self.requirement_from,
            "checks": list(KINDS),
            "counts": counts(self.findings),
            "explained_by_cross_page": self.explained_by_cross_page,
            "findings": [f.to_json() for f in self.findings],
        }

    def hint(self, directory: str) -> str | None:
        """The suggestion when the requirement would explain some grade mismatches."""
        if not self.explained_by_cross_page:
            return None
        return (
            f"{self.explained_by_cross_page} grade_mismatch finding(s) are pairs graded n-1 "
            "whose conditions share one evidence page: if the benchmark requires cross-page "
            f"golds, record it with `evaudit load {directory} --require-cross-page`"
        )


def _mismatches(findings: Sequence[Finding]) -> int:
    return sum(1 for f in findings if f.kind == "grade_mismatch")


def explained_by_cross_page(
    conds: Mapping[str, Sequence[str]],
    grades: Mapping[tuple[str, str], int],
    evidence: Mapping[tuple[str, str, str], Sequence[int]],
    n_pages: Mapping[str, int],
    findings: Sequence[Finding],
) -> int:
    """How many grade_mismatch findings (of a check without the requirement) the
    cross-page requirement would explain. Only those pairs can change, so only they are
    checked again (a second pass over the whole benchmark would double load's check)."""
    pairs = {(f.query_id, f.doc_id) for f in findings if f.kind == "grade_mismatch"}
    if not pairs:
        return 0
    sub_grades = {k: g for k, g in grades.items() if k in pairs}
    sub_ev = {k: p for k, p in evidence.items() if (k[0], k[1]) in pairs}
    strict = check_labels(conds, sub_grades, sub_ev, n_pages, require_cross_page=True)
    return len(pairs) - _mismatches(strict)


def check(project: Project, *, require_cross_page: bool | None = None) -> CheckReport:
    """Every finding; `require_cross_page` None = the requirement recorded at load."""
    with store.connect(project.store_path, read_only=True) as con:
        conds: dict[str, list[str]] = {}
        for q, c in store_load.condition_ids(con):
            conds.setdefault(q, []).append(c)
        grades = {(q, d): int(g) for q, d, g in store.grade_rows(con)}
        evidence: dict[tuple[str, str, str], list[int]] = {}
        for q, d, c, p in store_load.evidence_page_rows(con):
            evidence.setdefault((q, d, c), []).append(int(p))
        n_pages = store_load.page_counts(con)
        recorded = store_load.require_cross_page(con)
    if not conds:
        raise InputError("no queries loaded", file=project.store_path, hint="run `evaudit load`")
    required = recorded if require_cross_page is None else require_cross_page
    findings = check_labels(conds, grades, evidence, n_pages, require_cross_page=required)
    explained = (
        0 if required else explained_by_cross_page(conds, grades, evidence, n_pages, findings)
    )
    pairs = len(set(grades) | {(q, d) for q, d, _c in evidence})
    source = "load" if require_cross_page is None or require_cross_page == recorded else "flag"
    return CheckReport(pairs, findings, required, source, explained)
