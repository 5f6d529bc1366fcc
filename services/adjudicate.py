"""`evaudit adjudicate`: majority decisions per condition, overrides, tie-breaks, final grades."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_chain.audit_ops import load_plan, resolve_initial, run_adjudication
from audit_chain.campaign_io import load_packet_info
from audit_chain.rater_choice import describe_raters
from policies.adjudication import summary
from services.projects import ProjectRef, project_at
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
                "final": d["final"] if d["final"] is not None else "undecided",
                "path": d["path"],
            }
            for d in self.body["non_unanimous"]
        ]

    def table(self) -> str:
        out = self.body
        voters = {
            "raters": out["voters"],
            "raters_chosen_by": out["voters_chosen_by"],
            "raters_stored": out.get("voters_stored"),
            "raters_without_answers": out["voters_without_answers"],
            "streams_left_out": out.get("streams_left_out"),
            "duplicate_streams": out.get("duplicate_streams"),
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
        parts.append(
            f"final: {out['final_positive']} yes, {out['final_negative']} no, "
            f"{len(out['undecided'])} undecided of {out['conditions']} conditions"
        )
        if out["pairs"] is None:
            parts.append(out["note"])
            return "\n".join(parts)
        changed = [
            p
            for p in out["pairs"]
            if p["new_grade"] is not None and p["new_grade"] != p["old_grade"]
        ]
        undecided = [p for p in out["pairs"] if p["new_grade"] is None]
        line = f"{len(changed)} of {len(out['pairs'])} pairs change grade"
        if undecided:
            line += f"; {len(undecided)} undecided (finalize refuses them without --allow-pending)"
        parts.append(line)
        if changed or undecided:
            parts.append(
                table(
                    [
                        [
                            p["item_id"],
                            p["query_id"],
                            p["doc_id"],
                            p["old_grade"],
                            "undecided" if p["new_grade"] is None else p["new_grade"],
                        ]
                        for p in changed + undecided
                    ],
                    ["item", "query", "document", "old grade", "new grade"],
                )
            )
        return "\n".join(parts)


def adjudicate(
    project: ProjectRef,
    packet_name: str,
    tiebreak: str | None,
    raters: str | None,
    initial: str | None,
    initial_raters: str | None,
) -> AdjudicationReport:
    """Decide PACKET; a packet of partial pairs takes the locked conditions of the
    initial packet's repair plan (`initial`, default: the only one)."""
    project = project_at(project)
    packet = load_packet_info(project, packet_name)
    plan = None
    if not all(it.full for it in packet.items):
        init = resolve_initial(project, initial)
        if init is not None:
            plan = load_plan(project, init, initial_raters, flag="--initial-raters").plan
    adj = run_adjudication(project, packet_name, tiebreak, raters, plan)
    out: dict[str, Any] = {
        "packet_id": packet_name,
        "kind": adj.packet.kind,
        "voters": adj.voters.names,
        "voters_chosen_by": adj.voters.chosen_by,
        "voters_without_answers": adj.voters.without_answers,
        "voters_stored": adj.voters.stored,
        "streams_left_out": adj.voters.left_out,
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
