"""Run scoring: n-Clue Score, Gold Hit, Gold-NDCG, graded NDCG, family bootstrap, paired tests.

Pure and vectorised: `bind_qrels` once, then `rank_run` + `measure` for each run
(or `score_runs`); reports in `report`. Specification: "Do Current Retrievers Cover All the Evidence?" (supplement) and docs/architecture.md.
"""

from scorers.runs.bind import TIE_MODES, BoundQrels, TopK, bind_qrels, families, rank_run
from scorers.runs.bootstrap import draw_family_counts, family_bootstrap, query_weights
from scorers.runs.measures import METRICS, OUTCOMES, PerQuery, measure, summarize
from scorers.runs.paired import common_support, holm, sign_flip_pvalues
from scorers.runs.report import (
    RunInput,
    compare_report,
    impact_report,
    label_changes,
    nclue_report,
    removed_queries,
    score_runs,
)

__all__ = [
    "METRICS",
    "OUTCOMES",
    "TIE_MODES",
    "BoundQrels",
    "PerQuery",
    "RunInput",
    "TopK",
    "bind_qrels",
    "common_support",
    "compare_report",
    "draw_family_counts",
    "families",
    "family_bootstrap",
    "holm",
    "impact_report",
    "label_changes",
    "measure",
    "nclue_report",
    "query_weights",
    "rank_run",
    "removed_queries",
    "score_runs",
    "sign_flip_pvalues",
    "summarize",
]
