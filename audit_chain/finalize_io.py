"""The revision behind `evaudit finalize` (`services.finalize` writes its files): revised
qrels, transitions, corrections by stratum, the inputs' hashes for the manifest.

Everything is recomputed from the inputs (store qrels, packets, keys,
journals, overrides); the outputs carry no timestamp, so the same inputs give
byte-identical files. All outputs are computed before the first byte is
written, and each file is replaced atomically.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_chain.audit_ops import load_plan, resolve_initial, run_adjudication
from audit_chain.campaign_io import load_packet_info, packet_kinds, store_snapshot
from audit_chain.rater_choice import NoRaters
from campaign.overrides import overrides_path
from campaign.project import Project
from campaign.raters import raters_path
from policies.adjudication import ConditionDecision
from policies.repair import ACCEPT
from policies.revision import Review, Stage, revise
from vocabulary.digest import file_sha256
from vocabulary.errors import InputError, InputErrors


def _rel(project: Project, path: Path) -> str:
    return str(path.relative_to(project.root))


def _inputs(project: Project, packets: list[str], store_sha: str) -> dict[str, str]:
    files: list[Path] = []
    for name in packets:
        files += [project.packet_path(name), project.key_path(name)]
        jdir = project.journal_dir(name)
        files += sorted(jdir.glob("*.jsonl")) if jdir.is_dir() else []
    overrides = overrides_path(project)
    if overrides.is_file():
        files.append(overrides)
    chosen = raters_path(project)  # which streams voted (docs/formats.md, "Rater choices")
    if chosen.is_file():
        files.append(chosen)
    out = {_rel(project, f): file_sha256(f) for f in files}
    out["store:queries+qrels"] = store_sha
    return out


def _path_label(paths: tuple[str, ...], reason: str) -> str:
    kinds = sorted(set(paths))
    return f"{reason}/" + "+".join(kinds)


@dataclass(frozen=True)
class Stages:
    """Which packets of the chain a revision counts, and whose votes: the initial packet
    (None: the only one) and its two streams, the adjudication and challenge packets
    (None: every one) with the adjudication voters and the challenges' tie-break stream;
    `allow_pending` keeps the old grade of pairs not yet decided instead of refusing."""

    initial: str | None = None
    initial_raters: str | None = None
    adjudication: list[str] | None = None
    challenges: list[str] | None = None
    tiebreak: str | None = None
    allow_pending: bool = False
    adjudication_raters: str | None = None


def compute(
    project: Project, chosen: Stages = Stages()
) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    kinds = packet_kinds(project)
    init = resolve_initial(project, chosen.initial)
    adj_names = (
        chosen.adjudication
        if chosen.adjudication is not None
        else sorted(n for n, k in kinds.items() if k == "adjudication")
    )
    ch_names = (
        chosen.challenges
        if chosen.challenges is not None
        else sorted(n for n, k in kinds.items() if k == "challenge")
    )
    qrels, queries, store_sha = store_snapshot(project)
    stages: list[Stage] = []
    adj_summary: dict[str, Any] = {}
    used = [n for n in [init, *adj_names, *ch_names] if n]
    if init is None and not ch_names:
        raise InputError(
            "no initial or challenge packet to finalize", hint="build and annotate a packet first"
        )
    pending: list[dict[str, Any]] = []
    initial_choice: dict[str, Any] | None = None
    voters: dict[str, dict[str, Any]] = {}
    if init is not None:
        loaded = load_plan(project, init, chosen.initial_raters, flag="--initial-raters")
        plan = loaded.plan
        initial_choice = loaded.raters.to_json()
        for item_id in plan.incomplete:
            it = loaded.packet.item(item_id)
            if it is not None:
                pending.append(
                    _pending(
                        f"audit:{init}",
                        it.query_id,
                        it.doc_id,
                        f"initial audit not finished by {' and '.join(plan.raters)}",
                        item_id,
                    )
                )
        decided: dict[tuple[str, str], tuple[int, str]] = {}
        undecided_why: dict[tuple[str, str], str] = {}
        for name in adj_names:
            try:
                adj = run_adjudication(
                    project,
                    name,
                    None,
                    chosen.adjudication_raters,
                    plan,
                    flag="--adjudication-raters",
                )
            except NoRaters as exc:  # nobody to count yet: its pairs stay undecided
                for it in load_packet_info(project, name).items:
                    undecided_why[(it.query_id, it.doc_id)] = f"adjudication {name}: {exc.render()}"
                continue
            voters[name] = adj.voters.to_json()
            for f in adj.finals or []:
                key = (f.item.query_id, f.item.doc_id)
                if f.new_grade is not None:
                    decided[key] = (f.new_grade, "+".join(sorted(set(f.paths))))
                else:
                    undecided_why[key] = f"adjudication {name}: " + _undecided(
                        adj.decisions, f.item.item_id
                    )
            adj_summary[name] = {
                "conditions": len(adj.decisions),
                "unanimous": sum(1 for d in adj.decisions if d.unanimous),
                "overrides": sum(1 for d in adj.decisions if d.override is not None),
                "undecided": sum(1 for d in adj.decisions if d.final is None),
                "gate_blocked": [f.item.item_id for f in adj.finals or [] if f.gate_blocked],
            }
        reviews = []
        for p in plan.pairs:
            key = (p.item.query_id, p.item.doc_id)
            if p.action == ACCEPT:
                reviews.append(Review(*key, p.new_grade, "consensus_increase"))
            elif p.queued and key in decided:
                grade, how = decided[key]
                reviews.append(Review(*key, grade, f"{p.action}/adjudication:{how}"))
            elif p.queued:
                why = undecided_why.get(key, "no adjudication decision")
                pending.append(
                    _pending(f"audit:{init}", *key, f"{p.action}: {why}", p.item.item_id)
                )
                reviews.append(Review(*key, None, "pending"))
            else:
                reviews.append(Review(*key, None, "unchanged"))
        stages.append(Stage(f"audit:{init}", tuple(reviews)))
    for name in ch_names:
        try:
            adj = run_adjudication(project, name, chosen.tiebreak, None, None)
        except NoRaters as exc:  # nobody to count yet: every pair of the stage is pending
            items = load_packet_info(project, name).items
            for it in items:
                why = f"challenge {name}: {exc.render()}"
                pending.append(
                    _pending(f"challenge:{name}", it.query_id, it.doc_id, why, it.item_id)
                )
            reviews = [
                Review(it.query_id, it.doc_id, None, "pending", it.status or "target")
                for it in items
            ]
            stages.append(Stage(f"challenge:{name}", tuple(reviews)))
            continue
        voters[name] = adj.voters.to_json()
        reviews = []
        for f in adj.finals or []:
            if f.new_grade is None:  # a tie or an unanswered condition: never dropped
                why = f"challenge {name}: " + _undecided(adj.decisions, f.item.item_id)
                pending.append(
                    _pending(
                        f"challenge:{name}", f.item.query_id, f.item.doc_id, why, f.item.item_id
                    )
                )
            reviews.append(
                Review(
                    f.item.query_id,
                    f.item.doc_id,
                    f.new_grade,
                    "+".join(sorted(set(f.paths))) if f.new_grade is not None else "pending",
                    f.item.status or "target",
                )
            )
        stages.append(Stage(f"challenge:{name}", tuple(reviews)))
    if pending and not chosen.allow_pending:
        raise _refuse(pending)
    missing = sorted({r.query_id for s in stages for r in s.reviews} - set(queries))
    if missing:
        raise InputError(
            f"query {missing[0]} is reviewed in a packet but not in the store",
            file=project.store_path,
            hint="load the benchmark the packets were built from",
        )
    result = revise(qrels, queries, stages).to_json()
    # One qrels copy per stage ("Do Current Retrievers Cover All the Evidence?" (supplement) reports both validation stages): the revision
    # applied up to and including that stage, exactly as the final copy is made.
    result["stage_qrels"] = {
        stage_file(stage.name): revise(qrels, queries, stages[: i + 1]).qrels
        for i, stage in enumerate(stages)
    }
    result["adjudication"] = adj_summary
    result["pending"] = pending
    result["initial_raters"] = initial_choice
    result["voters"] = voters
    result["packets"] = {"initial": init, "adjudication": adj_names, "challenge": ch_names}
    return result, _inputs(project, used, store_sha), used


def _pending(stage: str, query_id: str, doc_id: str, reason: str, item_id: str) -> dict[str, Any]:
    return {
        "stage": stage,
        "item_id": item_id,
        "query_id": query_id,
        "doc_id": doc_id,
        "reason": reason,
    }


def _undecided(decisions: list[ConditionDecision], item_id: str) -> str:
    """Why a pair has no grade: each undecided condition with its votes."""
    parts = []
    for d in decisions:
        if d.item.item_id != item_id or d.final is not None:
            continue
        votes = " ".join(f"{k}={'yes' if v else 'no'}" for k, v in sorted(d.votes.items()))
        what = "tie" if d.majority == "tie" else "no votes"
        parts.append(f"{d.cond.key} undecided ({what}{': ' + votes if votes else ''})")
    return "; ".join(parts) or "undecided"


def _refuse(pending: list[dict[str, Any]]) -> InputErrors:
    """One error per undecided pair, after a line that counts them by why."""
    no_decision = sum(1 for p in pending if p["reason"].endswith("no adjudication decision"))
    not_finished = sum(1 for p in pending if p["reason"].startswith("initial audit not finished"))
    undecided = len(pending) - no_decision - not_finished
    counts = []
    if no_decision:
        counts.append(f"{no_decision} queued pair(s) have no adjudication decision")
    if not_finished:
        counts.append(f"{not_finished} pair(s) are not complete for both initial raters")
    if undecided:
        counts.append(f"{undecided} pair(s) have undecided conditions")
    head = InputError(
        f"finalize refuses {len(pending)} undecided pair(s): {', '.join(counts)}",
        hint="decide each (the missing responses, a tie-break stream, or an admin decision with "
        "evaudit override), or pass --allow-pending to keep their grades; they are then listed "
        "in the output and the manifest",
    )
    return InputErrors(
        [
            head,
            *(
                InputError(
                    f"{p['stage']}: {p['query_id']} / {p['doc_id']} ({p['item_id']}): {p['reason']}"
                )
                for p in pending
            ),
        ]
    )


def stage_file(stage: str) -> str:
    """qrels.after_audit.txt for the audit stage, qrels.after_challenge-NAME.txt per challenge."""
    kind, _, name = stage.partition(":")
    return "qrels.after_audit.txt" if kind == "audit" else f"qrels.after_{kind}-{name}.txt"
