"""What the `score` services share: the report that wraps a pure scorer's typed report,
and the queries and qrels a command binds before it scores its runs.

`ScorerReport` is the robustness and construct-diagnostic commands' report: the scorer's
`to_json()` and `to_text()` are the command's. (`score nclue | compare | impact` build
their reports from the scorers' typed reports in services/score.py.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from services.score_inputs import ScoreSource, bind, load_qrels, load_queries
from vocabulary.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from scorers.runs import BoundQrels
    from services.score_pages import PageRuns


@dataclass(frozen=True)
class ScorerReport:
    """A report that wraps a scorer's typed report (its JSON, rows and text)."""

    report: Any

    def to_json(self) -> dict[str, Any]:
        return dict(self.report.to_json())

    def rows(self) -> list[dict[str, Any]]:
        return list(self.report.rows())

    def table(self) -> str:
        return str(self.report.to_text())


class Bound(NamedTuple):
    """A command's queries (ids and conditions each), its qrels and their binding at k."""

    qids: list[str]
    n: list[int]
    frame: pd.DataFrame
    qrels: BoundQrels


def bind_source(src: ScoreSource, qrels: Path | None, k: int) -> Bound:
    """The queries of `src` and the --qrels file (or the project's qrels), bound at k."""
    qids, n = load_queries(src.queries, src.project)
    frame, source = load_qrels(qrels, src.project, "--qrels")
    return Bound(qids, n, frame, bind(qids, n, frame, source, k))


def page_runs_for(frame: pd.DataFrame, page_aggregate: str) -> PageRuns:
    """Page-level runs (doc_id#page) scored as document runs, as --page-aggregate says."""
    from scorers.page_aggregate import parse_page_aggregate
    from services.score_pages import PageRuns

    try:
        top = parse_page_aggregate(page_aggregate)
    except ValueError as exc:
        raise InputError(str(exc), hint="e.g. --page-aggregate top3") from exc
    return PageRuns(set(frame["doc_id"]), top)
