"""`evaudit score sensitivity | bound | drop-condition`: robustness of a contrast.

Each service binds the qrels, scores the runs (progress injected) and calls one pure
function of `scorers.runs` (sensitivity, qrel_bound, drop_condition); its report wraps
the scorer's typed report, whose `to_json()` is the released `--json` object.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from services.score_inputs import (
    ScoreSource,
    conditions,
    evidence_by_pair,
    score_run_files,
)
from services.score_reports import ScorerReport, bind_source
from services.score_specs import parse_budgets, parse_drops, parse_pairs
from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress
from vocabulary.runspec import parse_run_spec

if TYPE_CHECKING:
    from scorers.runs import BoundQrels
    from scorers.runs.drop_condition import DropReport
    from scorers.runs.qrel_bound import BoundReport
    from scorers.runs.sensitivity import SensitivityReport


@dataclass(frozen=True)
class ScoreSensitivityReport(ScorerReport):
    """Shared-document sensitivity of VARIANT - BASE (wraps the scorer's report)."""

    report: SensitivityReport

    def rows(self) -> list[dict[str, Any]]:
        """One row: every figure of the report (fractions, intervals as [lo, hi])."""
        return [self.to_json()]


def score_sensitivity(
    src: ScoreSource, *, qrels: Path | None, k: int, seed: int, membership: str, draws: int,
    remove_top: int, metric: str, progress: Progress = no_progress,
) -> ScoreSensitivityReport:  # fmt: skip
    """`score sensitivity`: the first run is BASE, the second VARIANT."""
    from scorers.runs import METRICS
    from scorers.runs.sensitivity import sensitivity_report

    if len(src.runs) != 2:
        raise InputError(
            f"score sensitivity takes exactly two runs, got {len(src.runs)}",
            hint="pass --run BASE --run VARIANT",
        )
    bound = bind_source(src, qrels, k).qrels
    (scored,) = score_run_files(src.runs, [bound], src.ties, progress)
    base, variant = list(scored)
    j = METRICS.index(metric)
    d = scored[variant].values()[j] - scored[base].values()[j]
    rep = sensitivity_report(
        bound, d, base=base, variant=variant, metric=metric, membership=membership,
        draws=draws, seed=seed, remove_top=remove_top,
    )  # fmt: skip
    return ScoreSensitivityReport(rep)


@dataclass(frozen=True)
class ScoreBoundReport(ScorerReport):
    """Exact min and max of each contrast after promoting judged subsets to gold."""

    report: BoundReport

    def rows(self) -> list[dict[str, Any]]:
        """One dict per contrast (observed, min and max per budget, fractions)."""
        return [asdict(c) for c in self.report.contrasts]


def score_bound(
    src: ScoreSource, *, qrels: Path | None, pairs: tuple[str, ...],
    budgets: str | Sequence[int], cutoff: int, progress: Progress = no_progress,
) -> ScoreBoundReport:  # fmt: skip
    """`score bound`: `budgets` are the promotion budgets, a list or the CLI's --k text
    (`K1,K2,...`, checked before anything is read)."""
    from scorers.runs.qrel_bound import bound_report

    ks = parse_budgets(budgets) if isinstance(budgets, str) else list(budgets)
    bound = bind_source(src, qrels, cutoff).qrels
    (scored,) = score_run_files(src.runs, [bound], src.ties, progress)
    return ScoreBoundReport(bound_report(bound, scored, parse_pairs(pairs, list(scored)), ks))


@dataclass(frozen=True)
class ScoreDropReport(ScorerReport):
    """Gold-NDCG@k change of each system after dropping one condition."""

    report: DropReport

    def rows(self) -> list[dict[str, Any]]:
        """One dict per (system, dropped position)."""
        return [asdict(r) for r in self.report.rows]


def score_drop_condition(
    src: ScoreSource, *, qrels: Path | None, evidence: Path | None, drops: tuple[str, ...],
    k: int, bootstrap: int, seed: int, progress: Progress = no_progress,
) -> ScoreDropReport:  # fmt: skip
    """`score drop-condition`: grades recomputed from the evidence without one condition."""
    from scorers.runs.bind import bind_qrels
    from scorers.runs.drop_condition import drop_report, dropped_qrels

    qids, _, _, full = bind_source(src, qrels, k)
    (scored,) = score_run_files(src.runs, [full], src.ties, progress)
    conds = conditions(src.queries, src.project)
    ev = evidence_by_pair(evidence, src.project)
    specs = parse_drops(drops, list(scored))
    bounds: dict[int, BoundQrels] = {}
    dropped = []
    for system, pos, file in specs:
        if pos not in bounds:
            eq, en, rows = dropped_qrels({q: conds[q] for q in qids}, ev, pos)
            if not eq:
                raise InputError(f"no query has {max(pos, 2)} or more conditions for --drop {pos}")
            bounds[pos] = bind_qrels(
                eq, en, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], k=k
            )
        (pq,) = score_run_files((parse_run_spec(file),), [bounds[pos]], src.ties, progress)
        dropped.append((system, pos, bounds[pos], next(iter(pq.values()))))
    return ScoreDropReport(drop_report(full, scored, dropped, bootstrap=bootstrap, seed=seed))
