"""`evaudit adjudicate`: majority decisions per condition, overrides, tie-breaks, final grades."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_chain.audit_ops import load_plan, resolve_initial, run_adjudication
from audit_chain.campaign_io import load_packet_info
from audit_chain.rater_choice import RaterChoice, describe_raters
from policies.adjudication import AdjudicationSummary, PairFinal, summary
from services.projects import ProjectRef, project_at
from vocabulary.tables import table

_COLUMNS = ("item", "condition", "votes", "final", "path")


# The final grades are unknown without the initial packet's locked conditions.
_NO_INITIAL = "no initial packet found: locked conditions unknown, final grades not computed"


@dataclass(frozen=True)
class AdjudicationReport:
    """Decisions and final grades of one packet: the voters and why, the decisions'
    summary (`policies.adjudication.AdjudicationSummary`) and each pair's final grade
    (None without an initial packet)."""

    packet_id: str
    kind: str
    voters: RaterChoice
    duplicate_streams: list[list[str]]
    initial_packet: str | None
    summary: AdjudicationSummary
    finals: list[PairFinal] | None

    @property
    def changed(self) -> list[PairFinal]:
        return [
            f for f in self.finals or [] if f.new_grade is not None and f.new_grade != f.old_grade
        ]

    def to_json(self) -> dict[str, Any]:
        """The released `--json` object, key for key (`pairs`: the summary's count, then
        the final grades in its place)."""
        v = self.voters
        out: dict[str, Any] = {
            "packet_id": self.packet_id,
            "kind": self.kind,
            "voters": v.names,
            "voters_chosen_by": v.chosen_by,
            "voters_without_answers": v.without_answers,
            "voters_stored": v.stored,
            "streams_left_out": v.left_out,
            "duplicate_streams": self.duplicate_streams,
            "initial_packet": self.initial_packet,
            **self.summary.to_json(),
        }
        if self.finals is None:
            out["pairs"] = None
            out["note"] = _NO_INITIAL
        else:
            out["pairs"] = [f.to_json() for f in self.finals]
            out["gate_blocked"] = [f.item.item_id for f in self.finals if f.gate_blocked]
            out["changed_pairs"] = len(self.changed)
        return out

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
            for d in (x.to_json() for x in self.summary.non_unanimous)
        ]

    def table(self) -> str:
        s, v = self.summary, self.voters
        voters = {
            "raters": v.names,
            "raters_chosen_by": v.chosen_by,
            "raters_stored": v.stored,
            "raters_without_answers": v.without_answers,
            "streams_left_out": v.left_out,
            "duplicate_streams": self.duplicate_streams,
        }
        conditions = len(s.decisions)
        parts = [
            describe_raters(voters, "voters"),
            f"{s.unanimous}/{conditions} conditions unanimous",
        ]
        rows = self.rows()
        if rows:
            parts.append(table([[r[c] for c in _COLUMNS] for r in rows], list(_COLUMNS)))
        for d in s.overrides:
            assert d.override is not None
            final = None if d.final is None else ("yes" if d.final else "no")
            parts.append(f"override {d.item.item_id} {d.cond.key} -> {final}: {d.override.reason}")
        blocked = [f.item.item_id for f in self.finals or [] if f.gate_blocked]
        if blocked:
            parts.append(f"distinct-page gate kept partial: {', '.join(blocked)}")
        parts.append(
            f"final: {s.final_positive} yes, {s.final_negative} no, "
            f"{len(s.undecided)} undecided of {conditions} conditions"
        )
        if self.finals is None:
            parts.append(_NO_INITIAL)
            return "\n".join(parts)
        changed = self.changed
        undecided = [f for f in self.finals if f.new_grade is None]
        line = f"{len(changed)} of {len(self.finals)} pairs change grade"
        if undecided:
            line += f"; {len(undecided)} undecided (finalize refuses them without --allow-pending)"
        parts.append(line)
        if changed or undecided:
            parts.append(
                table(
                    [
                        [
                            f.item.item_id,
                            f.item.query_id,
                            f.item.doc_id,
                            f.old_grade,
                            "undecided" if f.new_grade is None else f.new_grade,
                        ]
                        for f in changed + undecided
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
    return AdjudicationReport(
        packet_id=packet_name,
        kind=adj.packet.kind,
        voters=adj.voters,
        duplicate_streams=adj.streams.duplicates,
        initial_packet=plan.source_packet if plan else None,
        summary=summary(adj.decisions, tiebreak),
        finals=adj.finals,
    )
