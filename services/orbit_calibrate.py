"""`evaudit orbit calibrate`: the BM25 calibration grid of the orbit paper on a project.

Ranks the project's documents for every query with BM25 at each (k1, b) of the grid,
once to the deepest K, and reads each K's complete-evidence coverage from the rank of
each query's deepest evidence document (a query's evidence: its documents of grade >=
`relevant_from`). The selection rule is `scorers.orbit.calibration.select`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from campaign import store
from packet_builder.routes.base import tokenize
from scorers.lexical import BM25Index
from scorers.orbit.calibration import Cell, deepest_ranks, grid_cells, select
from services.baseline_runs import corpus_units, query_texts
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress
from vocabulary.tables import table


@dataclass(frozen=True)
class CalibrationReport:
    target: float
    form: str
    method: str
    relevant_from: int
    queries: int
    without_evidence: int
    cells: list[Cell]
    chosen: Cell | None

    def to_json(self) -> dict[str, Any]:
        def cell(c: Cell) -> dict[str, Any]:
            return {"depth": c.depth, "k1": c.k1, "b": c.b, "covered": c.covered,
                    "queries": c.queries, "coverage": c.coverage}  # fmt: skip

        return {
            "target": self.target, "form": self.form, "method": self.method,
            "relevant_from": self.relevant_from, "queries": self.queries,
            "queries_without_evidence": self.without_evidence,
            "grid": [cell(c) for c in self.cells],
            "chosen": cell(self.chosen) if self.chosen else None,
            "met": self.chosen is not None,
        }  # fmt: skip

    def rows(self) -> list[dict[str, object]]:
        return [{"K": c.depth, "k1": f"{c.k1:g}", "b": f"{c.b:g}", "covered": f"{c.covered}/{c.queries}",
                 "coverage": f"{100 * c.coverage:.1f}%",
                 "meets": "yes" if c.coverage >= self.target else "no"} for c in self.cells]  # fmt: skip

    def table(self) -> str:
        rows = self.rows()
        body = table([list(r.values()) for r in rows], list(rows[0])) if rows else ""
        head = (f"BM25 calibration ({self.method}, form {self.form}): complete-evidence "
                f"coverage over {self.queries} queries with evidence (grade >= "
                f"{self.relevant_from}); target {100 * self.target:.1f}%")  # fmt: skip
        if self.without_evidence:
            head += f"; {self.without_evidence} queries without evidence left out"
        c = self.chosen
        tail = ("no setting of the grid meets the target" if c is None else
                f"chosen: K={c.depth}, k1={c.k1}, b={c.b} ({100 * c.coverage:.1f}%), the "
                "shallowest K meeting the target, then the highest coverage, then grid order")  # fmt: skip
        return f"{head}\n{body}\n{tail}"


def calibrate(
    project: ProjectRef, *, depths: Sequence[int], k1s: Sequence[float], bs: Sequence[float],
    target: float, form: str = "raw", method: str = "lucene", relevant_from: int = 1,
    progress: Progress = no_progress,
) -> CalibrationReport:  # fmt: skip
    """Coverage of every grid cell and the chosen setting (None where none meets it)."""
    project = project_at(project)
    if not depths or not k1s or not bs:
        raise InputError("the grid is empty", hint="pass --depth, --k1 and --b values")
    queries = query_texts(project, form)
    unit_ids, texts = corpus_units(project, "document")
    evidence: dict[str, set[str]] = {}
    for q, d, g in store.qrels_rows(project.store_path):
        if g >= relevant_from:
            evidence.setdefault(q, set()).add(d)
    asked = {q for q, _ in queries}
    evidence = {q: e for q, e in evidence.items() if q in asked}
    if not evidence:
        raise InputError(f"no query has a document of grade >= {relevant_from}",
                         hint="load qrels, or lower --relevant-from")  # fmt: skip
    tokens = [tokenize(t) for t in texts]
    qtokens = [(q, tokenize(t)) for q, t in queries if q in evidence]
    names = np.asarray(unit_ids, dtype=object)
    deepest: dict[tuple[float, float], np.ndarray] = {}
    grid = [(k1, b) for k1 in k1s for b in bs]
    for k1, b in progress(grid, total=len(grid), desc="calibrate"):
        index = BM25Index(tokens, k1=k1, b=b, method=method)
        ranked = {q: names[index.rank(t, max(depths)).units].tolist() for q, t in qtokens}
        deepest[(k1, b)] = deepest_ranks(ranked, evidence)
    cells = grid_cells(deepest, depths)
    return CalibrationReport(target, form, method, relevant_from, len(evidence),
                             len(asked) - len(evidence), cells, select(cells, target))  # fmt: skip
