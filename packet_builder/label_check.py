"""`evaudit check`: re-derive every label from the store's construction evidence
(policies.label_validity), as a typed report; `load` runs its cheap part."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from campaign import store
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
        for q, c in con.execute(
            "SELECT query_id, condition_id FROM conditions ORDER BY query_id, position"
        ).fetchall():
            conds.setdefault(q, []).append(c)
        grades = {
            (q, d): int(g)
            for q, d, g in con.execute("SELECT query_id, doc_id, grade FROM qrels").fetchall()
        }
        evidence: dict[tuple[str, str, str], list[int]] = {}
        for q, d, c, p in con.execute(
            "SELECT query_id, doc_id, condition_id, page FROM evidence"
        ).fetchall():
            evidence.setdefault((q, d, c), []).append(int(p))
        n_pages = dict(con.execute("SELECT doc_id, n_pages FROM documents").fetchall())
    if not conds:
        raise InputError("no queries loaded", file=project.store_path, hint="run `evaudit load`")
    findings = check_labels(
        conds, grades, evidence, n_pages, require_cross_page=require_cross_page, cheap=cheap
    )
    pairs = len(set(grades) | {(q, d) for q, d, _c in evidence})
    return CheckReport(pairs, findings, require_cross_page, cheap)
