"""`evaudit adjudicate`: majority decisions per condition, overrides, tie-breaks, final grades."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.project import Project
from packet_builder.audit_ops import load_plan, resolve_initial, run_adjudication
from packet_builder.campaign_io import describe_raters, load_packet_info
from policies.adjudication import summary
from vocabulary.tables import table

_COLUMNS = ("item", "condition", "votes", "final", "path")


@dataclass(frozen=True)
class AdjudicationReport:
    """Decisions and final grades of one packet. `body` is the released `--json` object."""

    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.body

    def rows(self) -> list[dict[str, Any]]:
        """One dict per condition the voters did not agree on (item, votes, final, path)."""
        return [
            {
                "item": d["item_id"],
                "condition": d["condition_key"],
                "votes": " ".join(f"{k}={v}" for k, v in d["votes"].items()),
                "final": d["final"],
                "path": d["path"],
            }
            for d in self.body["non_unanimous"]
        ]

    def table(self) -> str:
        out = self.body
        voters = {
            "raters": out["voters"],
            "raters_chosen_by": out["voters_chosen_by"],
            "raters_without_answers": out["voters_without_answers"],
        }
        parts = [
            describe_raters(voters, "voters"),
            f"{out['unanimous']}/{out['conditions']} conditions unanimous",
        ]
        rows = self.rows()
        if rows:
            parts.append(table([[r[c] for c in _COLUMNS] for r in rows], list(_COLUMNS)))
        for o in out["overrides"]:
            parts.append(
                f"override {o['item_id']} {o['condition_key']} -> {o['final']}: {o['reason']}"
            )
        if out.get("gate_blocked"):
            parts.append(f"distinct-page gate kept partial: {', '.join(out['gate_blocked'])}")
        return "\n".join(parts)


def adjudicate(
    project: Project,
    packet_name: str,
    tiebreak: str | None,
    raters: str | None,
    initial: str | None,
    initial_raters: str | None,
) -> AdjudicationReport:
    """Decide PACKET; a packet of partial pairs takes the locked conditions of the
    initial packet's repair plan (`initial`, default: the only one)."""
    packet = load_packet_info(project, packet_name)
    plan = None
    if not all(it.full for it in packet.items):
        init = resolve_initial(project, initial)
        if init is not None:
            plan = load_plan(project, init, initial_raters).plan
    adj = run_adjudication(project, packet_name, tiebreak, raters, plan)
    out: dict[str, Any] = {
        "packet_id": packet_name,
        "kind": adj.packet.kind,
        "voters": adj.voters.names,
        "voters_chosen_by": adj.voters.chosen_by,
        "voters_without_answers": adj.voters.without_answers,
        "duplicate_streams": adj.streams.duplicates,
        "initial_packet": plan.source_packet if plan else None,
        **summary(adj.decisions, tiebreak),
    }
    if adj.finals is None:
        out["pairs"] = None
        out["note"] = (
            "no initial packet found: locked conditions unknown, final grades not computed"
        )
    else:
        out["pairs"] = [f.to_json() for f in adj.finals]
        out["gate_blocked"] = [f.item.item_id for f in adj.finals if f.gate_blocked]
        out["changed_pairs"] = sum(
            1 for f in adj.finals if f.new_grade is not None and f.new_grade != f.old_grade
        )
    return AdjudicationReport(out)
