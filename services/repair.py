"""`evaudit repair plan`: the evidence-asymmetric repair policy on the initial packet."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_chain.audit_ops import load_plan
from audit_chain.rater_choice import RaterChoice, describe_raters
from campaign.project import write_json_atomic
from policies.repair import PairPlan, PlanCounts, RepairPlan
from services.projects import ProjectRef, project_at
from vocabulary.tables import table


def _decision(plan: RepairPlan, p: PairPlan) -> dict[str, Any]:
    """One pair's record of the plan's `decisions`."""
    return {
        "item_id": p.item.item_id,
        "query_id": p.item.query_id,
        "doc_id": p.item.doc_id,
        "n": p.item.n,
        "grade": p.item.grade,
        "grades": dict(zip(plan.raters, p.grades, strict=True)),
        "action": p.action,
        "new_grade": p.new_grade,
        "unresolved": list(p.unresolved),
        "locked": sorted(p.locked) if p.queued else [],
        "page_adjudication": list(p.page_adjudication),
        "consensus_grade": p.consensus_grade,
    }


@dataclass(frozen=True)
class RepairPlanReport:
    """The plan of the initial packet (`policies.repair.RepairPlan`), the raters it reads
    and why, the identical streams collapsed, and where its queue was written."""

    plan: RepairPlan
    choice: RaterChoice
    duplicate_streams: list[list[str]]
    queue: Path | None = None  # `--queue-out`

    @property
    def counts(self) -> PlanCounts:
        return self.plan.counts()

    def to_json(self) -> dict[str, Any]:
        """The released `--json` object, key for key."""
        plan = self.plan
        out: dict[str, Any] = {
            "source_packet": plan.source_packet,
            **self.choice.to_json(),
            **self.counts.to_json(),
            "incomplete": list(plan.incomplete),
            "decisions": [_decision(plan, p) for p in plan.pairs],
            "duplicate_streams": self.duplicate_streams,
        }
        if self.queue is not None:
            out["queue"] = str(self.queue)
        return out

    def rows(self) -> list[tuple[str, str]]:
        """(label, count) per figure of the plan, named with the two raters."""
        c = self.counts
        a, e = self.choice.names
        return [
            (f"{a}+{e} consensus increases accepted", str(c.accepted_increases)),
            (f"{a}/{e} grade split pairs", str(c.split_pairs)),
            (f"{a}+{e} consensus decrease pairs", str(c.decrease_pairs)),
            ("queued pairs", str(c.queued_pairs)),
            (
                "unresolved conditions (split / both negative)",
                f"{c.unresolved} ({c.unresolved_split} / {c.unresolved_both_negative})",
            ),
            ("locked conditions", str(c.locked_conditions)),
            (
                "locked conditions opened for page adjudication",
                str(c.page_adjudication_conditions),
            ),
            ("grade splits through the distinct-page gate only", str(c.gate_only_splits)),
            (
                f"incomplete pairs (not finished by {a} and {e})",
                f"{c.incomplete_pairs} of {c.pairs + c.incomplete_pairs}",
            ),
        ]

    def table(self) -> str:
        parts = [
            describe_raters({**self.choice.to_json(), "duplicate_streams": self.duplicate_streams}),
            table([list(r) for r in self.rows()], ["repair plan", "count"]),
        ]
        if self.queue is not None:
            parts.append(f"queue written to {self.queue}")
        return "\n".join(parts)


def repair_plan(
    project: ProjectRef, packet_name: str, raters: str | None, queue_out: Path | None
) -> RepairPlanReport:
    """The plan of the initial PACKET; with `queue_out`, its adjudication queue is written."""
    project = project_at(project)
    loaded = load_plan(project, packet_name, raters)
    if queue_out is not None:
        write_json_atomic(queue_out, loaded.plan.queue())
    return RepairPlanReport(loaded.plan, loaded.raters, loaded.streams.duplicates, queue_out)
