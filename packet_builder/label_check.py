"""`evaudit check`: re-derive every label from the store's construction evidence
(policies.label_validity), as a typed report; `load` runs its cheap part."""

from __future__ import annotations

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
    cheap: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "require_cross_page": self.require_cross_page,
            "checks": list(KINDS[:3] if self.cheap else KINDS),
            "counts": counts(self.findings),
            "findings": [f.to_json() for f in self.findings],
        }


def check(
    project: Project, *, require_cross_page: bool = False, cheap: bool = False
) -> CheckReport:
    with store.connect(project.store_path, read_only=True) as con:
        conds: dict[str, list[str]] = {}
        for q, c in store_load.condition_ids(con):
            conds.setdefault(q, []).append(c)
        grades = {(q, d): int(g) for q, d, g in store.grade_rows(con)}
        evidence: dict[tuple[str, str, str], list[int]] = {}
        for q, d, c, p in store_load.evidence_page_rows(con):
            evidence.setdefault((q, d, c), []).append(int(p))
        n_pages = store_load.page_counts(con)
    if not conds:
        raise InputError("no queries loaded", file=project.store_path, hint="run `evaudit load`")
    findings = check_labels(
        conds, grades, evidence, n_pages, require_cross_page=require_cross_page, cheap=cheap
    )
    pairs = len(set(grades) | {(q, d) for q, d, _c in evidence})
    return CheckReport(pairs, findings, require_cross_page, cheap)
