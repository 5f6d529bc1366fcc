"""finalize's qrels in a classic (BEIR/TREC) project's original grade scale.

The audit revises labels on its own scale (one relevance condition: gold = 1);
policies.revision.original_scale maps every revised copy back onto the grades the
benchmark came with, and this holds what it needs from the store.
"""

from __future__ import annotations

import hashlib
from typing import Any

from audit_chain.campaign_io import store_snapshot
from campaign.project import Project
from formats.classic import stored_scale
from policies.revision import original_scale
from vocabulary.errors import InputError


class _NotClassic(Exception):
    """The project has no grade scale (an n-Clue benchmark)."""


class ScaleWriter:
    """A classic project's original grade scale, applied to every qrels copy finalize writes."""

    def __init__(self, project: Project, promote_to: int | None) -> None:
        stored = stored_scale(project.store_path)
        if stored is None:
            if promote_to is not None:
                raise InputError(
                    "--promote-to applies to a BEIR or TREC project",
                    hint="this project's grades are clue counts",
                )
            raise _NotClassic
        self.scale, self.graded = stored
        self.before, self.queries, _sha = store_snapshot(project)
        self.promote_to = promote_to
        if promote_to is not None and promote_to < self.scale.relevant_from:
            raise InputError(
                f"--promote-to {promote_to} is below --relevant-from {self.scale.relevant_from}",
                hint="a promoted pair must count as relevant in the original scale",
            )

    def apply(self, audit_rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
        after = {(r["query_id"], r["doc_id"]): int(r["grade"]) for r in audit_rows}
        n = {q: info.n for q, info in self.queries.items()}
        promoted = [k for k, g in after.items() if g == n[k[0]] and self.before.get(k) != g]
        if promoted and self.promote_to is None:
            raise InputError(
                f"{len(promoted)} pair(s) became relevant "
                f"(first {promoted[0][0]} / {promoted[0][1]})",
                hint=f"pass --promote-to GRADE, the original-scale grade they get "
                f"(>= {self.scale.relevant_from}; grades present {list(self.scale.grades)})",
            )
        # The queries revise() removed: gold before, none in this copy.
        gold_after = {q for (q, _d), g in after.items() if g == n[q]}
        removed = {q for (q, _d), g in self.before.items() if g == n[q]} - gold_after
        return original_scale(
            self.graded, self.before, after, self.queries, removed, self.promote_to
        )

    def manifest(self, changes: list[Any]) -> dict[str, Any]:
        return {**self.scale.to_json(), "promote_to": self.promote_to, "changes": changes}

    def graded_sha256(self) -> str:
        text = "".join(f"{q}\t{d}\t{g}\n" for (q, d), g in sorted(self.graded.items()))
        return hashlib.sha256(text.encode()).hexdigest()


def classic_scale(project: Project, promote_to: int | None) -> ScaleWriter | None:
    """The writer for a BEIR/TREC project; None for an n-Clue one (where --promote-to is
    an error)."""
    try:
        return ScaleWriter(project, promote_to)
    except _NotClassic:
        return None
