"""`evaudit repair plan`: the evidence-asymmetric repair policy on the initial packet."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_chain.audit_ops import load_plan
from audit_chain.rater_choice import RaterChoice, describe_raters
from campaign.project import write_json_atomic
from policies.repair import RepairPlan
from services.projects import ProjectRef, project_at
from vocabulary.tables import table


def plan_json(plan: RepairPlan, choice: RaterChoice) -> dict[str, Any]:
    """The released `repair plan --json` object of a plan (without the stream notes)."""
    return {
        "source_packet": plan.source_packet,
        **choice.to_json(),
        **plan.counts(),
        "incomplete": list(plan.incomplete),
        "decisions": [
            {
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
            for p in plan.pairs
        ],
    }


@dataclass(frozen=True)
class RepairPlanReport:
    """The plan's counts and decisions. `body` is the released `--json` object."""

    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.body

    def rows(self) -> list[tuple[str, str]]:
        """(label, count) per figure of the plan, named with the two raters."""
        out = self.body
        a, e = out["raters"]
        un = out["unresolved_conditions"]
        return [
            (f"{a}+{e} consensus increases accepted", str(out["accepted_increases"])),
            (f"{a}/{e} grade split pairs", str(out["split_pairs"])),
            (f"{a}+{e} consensus decrease pairs", str(out["decrease_pairs"])),
            ("queued pairs", str(out["queued_pairs"])),
            (
                "unresolved conditions (split / both negative)",
                f"{un['total']} ({un['split']} / {un['both_negative']})",
            ),
            ("locked conditions", str(out["locked_conditions"])),
            (
                "locked conditions opened for page adjudication",
                str(out["page_adjudication_conditions"]),
            ),
            ("grade splits through the distinct-page gate only", str(out["gate_only_splits"])),
            (
                f"incomplete pairs (not finished by {a} and {e})",
                f"{out['incomplete_pairs']} of {out['pairs'] + out['incomplete_pairs']}",
            ),
        ]

    def table(self) -> str:
        parts = [
            describe_raters(self.body),
            table([list(r) for r in self.rows()], ["repair plan", "count"]),
        ]
        if self.body.get("queue"):
            parts.append(f"queue written to {self.body['queue']}")
        return "\n".join(parts)


def repair_plan(
    project: ProjectRef, packet_name: str, raters: str | None, queue_out: Path | None
) -> RepairPlanReport:
    """The plan of the initial PACKET; with `queue_out`, its adjudication queue is written."""
    project = project_at(project)
    loaded = load_plan(project, packet_name, raters)
    out = plan_json(loaded.plan, loaded.raters)
    out["duplicate_streams"] = loaded.streams.duplicates
    if queue_out is not None:
        write_json_atomic(queue_out, loaded.plan.queue())
        out["queue"] = str(queue_out)
    return RepairPlanReport(out)
