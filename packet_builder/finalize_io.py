"""The revision behind `evaudit finalize` (`services.finalize` writes its files): revised
qrels, transitions, corrections by stratum, the inputs' hashes for the manifest.

Everything is recomputed from the inputs (store qrels, packets, keys,
journals, overrides); the outputs carry no timestamp, so the same inputs give
byte-identical files. All outputs are computed before the first byte is
written, and each file is replaced atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from campaign.overrides import overrides_path
from campaign.project import Project
from packet_builder.audit_ops import load_plan, resolve_initial, run_adjudication
from packet_builder.campaign_io import packet_kinds, sha256_file, store_snapshot
from policies.repair import ACCEPT
from policies.revision import Review, Stage, revise
from vocabulary.errors import InputError


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
    out = {_rel(project, f): sha256_file(f) for f in files}
    out["store:queries+qrels"] = store_sha
    return out


def _path_label(paths: tuple[str, ...], reason: str) -> str:
    kinds = sorted(set(paths))
    return f"{reason}/" + "+".join(kinds)


def compute(
    project: Project,
    initial: str | None,
    initial_raters: str | None,
    adjudication: list[str] | None,
    challenges: list[str] | None,
    tiebreak: str | None,
    allow_pending: bool,
) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    kinds = packet_kinds(project)
    init = resolve_initial(project, initial)
    adj_names = (
        adjudication
        if adjudication is not None
        else sorted(n for n, k in kinds.items() if k == "adjudication")
    )
    ch_names = (
        challenges
        if challenges is not None
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
    if init is not None:
        loaded = load_plan(project, init, initial_raters)
        plan = loaded.plan
        initial_choice = loaded.raters.to_json()
        for item_id in plan.incomplete:
            it = loaded.packet.item(item_id)
            if it is not None:
                pending.append(
                    {
                        "query_id": it.query_id,
                        "doc_id": it.doc_id,
                        "reason": f"initial audit not finished by {' and '.join(plan.raters)}",
                    }
                )
        if plan.incomplete and not allow_pending:
            raise InputError(
                f"{len(plan.incomplete)} pair(s) of packet {init!r} are not complete for both raters "
                f"(first {plan.incomplete[0]})",
                hint="finish them, or pass --allow-pending to keep their grades",
            )
        decided: dict[tuple[str, str], tuple[int, str]] = {}
        for name in adj_names:
            adj = run_adjudication(project, name, None, None, plan)
            undecided = [d for d in adj.decisions if d.final is None]
            if undecided and not allow_pending:
                d = undecided[0]
                raise InputError(
                    f"{len(undecided)} condition(s) of packet {name!r} are undecided "
                    f"(first {d.item.item_id} {d.cond.key}: votes "
                    + " ".join(f"{k}={'yes' if v else 'no'}" for k, v in dict(d.votes).items())
                    + ")",
                    hint="collect the missing responses or record `evaudit override`",
                )
            for f in adj.finals or []:
                if f.new_grade is not None:
                    decided[(f.item.query_id, f.item.doc_id)] = (
                        f.new_grade,
                        "+".join(sorted(set(f.paths))),
                    )
            adj_summary[name] = {
                "conditions": len(adj.decisions),
                "unanimous": sum(1 for d in adj.decisions if d.unanimous),
                "overrides": sum(1 for d in adj.decisions if d.override is not None),
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
                pending.append(
                    {
                        "query_id": key[0],
                        "doc_id": key[1],
                        "reason": f"{p.action}: no adjudication decision",
                    }
                )
                reviews.append(Review(*key, None, "pending"))
            else:
                reviews.append(Review(*key, None, "unchanged"))
        queued_pending = [x for x in pending if x["reason"].endswith("no adjudication decision")]
        if queued_pending and not allow_pending:
            raise InputError(
                f"{len(queued_pending)} queued pair(s) have no adjudication decision "
                f"(first {queued_pending[0]['query_id']} / {queued_pending[0]['doc_id']})",
                hint="build and annotate `packet build --kind adjudication`, or pass --allow-pending",
            )
        stages.append(Stage(f"audit:{init}", tuple(reviews)))
    for name in ch_names:
        adj = run_adjudication(project, name, tiebreak, None, None)
        reviews = [
            Review(
                f.item.query_id,
                f.item.doc_id,
                f.new_grade,
                "+".join(sorted(set(f.paths))),
                f.item.status or "target",
            )
            for f in adj.finals or []
            if f.new_grade is not None or allow_pending
        ]
        stages.append(Stage(f"challenge:{name}", tuple(reviews)))
    missing = sorted({r.query_id for s in stages for r in s.reviews} - set(queries))
    if missing:
        raise InputError(
            f"query {missing[0]} is reviewed in a packet but not in the store",
            file=project.store_path,
            hint="load the benchmark the packets were built from",
        )
    result = revise(qrels, queries, stages)
    # One qrels copy per stage ("Do Current Retrievers Cover All the Evidence?" (supplement) reports both validation stages): the revision
    # applied up to and including that stage, exactly as the final copy is made.
    result["stage_qrels"] = {
        stage_file(stage.name): revise(qrels, queries, stages[: i + 1])["qrels"]
        for i, stage in enumerate(stages)
    }
    result["adjudication"] = adj_summary
    result["pending"] = pending
    result["initial_raters"] = initial_choice
    result["packets"] = {"initial": init, "adjudication": adj_names, "challenge": ch_names}
    return result, _inputs(project, used, store_sha), used


def stage_file(stage: str) -> str:
    """qrels.after_audit.txt for the audit stage, qrels.after_challenge-NAME.txt per challenge."""
    kind, _, name = stage.partition(":")
    return "qrels.after_audit.txt" if kind == "audit" else f"qrels.after_{kind}-{name}.txt"
