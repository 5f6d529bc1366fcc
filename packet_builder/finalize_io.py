"""`evaudit finalize`: revised qrels, transitions, corrections by stratum, manifest with hashes.

Everything is recomputed from the inputs (store qrels, packets, keys,
journals, overrides); the outputs carry no timestamp, so the same inputs give
byte-identical files. All outputs are computed before the first byte is
written, and each file is replaced atomically.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from campaign.overrides import overrides_path
from campaign.project import Project, open_project, private_dir, write_bytes_atomic
from packet_builder.audit_ops import load_plan, resolve_initial, run_adjudication
from packet_builder.campaign_io import packet_kinds, sha256_file, store_snapshot
from packet_builder.grade_scale import classic_scale
from policies.repair import ACCEPT
from policies.revision import Review, Stage, revise
from vocabulary.errors import InputError

# queries.jsonl holds the kept queries, so scoring the revised copy never counts a
# removed query as a miss.
OUTPUTS = ("qrels.txt", "qrels.jsonl", "queries.jsonl", "report.json")


def _dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


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
                    f"(first {d.item.item_id} {d.cond.key}: votes {dict(d.votes)})",
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


def _trec(rows: list[dict[str, Any]]) -> str:
    return "".join(f"{r['query_id']} 0 {r['doc_id']} {r['grade']}\n" for r in rows)


def _write(path: Path, text: str) -> None:
    # 0600, atomic: revised qrels and the manifest hold unblinded labels and decisions.
    write_bytes_atomic(path, text.encode("utf-8"))


def _kept_queries_jsonl(project: Project, removed: set[str]) -> str:
    from packet_builder.loader import stored_queries

    return "".join(
        json.dumps(q.to_json(), sort_keys=True, ensure_ascii=False) + "\n"
        for q in stored_queries(project)
        if q.query_id not in removed
    )


def finalize(
    root: Path,
    out_dir: Path,
    initial: str | None = None,
    initial_raters: str | None = None,
    adjudication: list[str] | None = None,
    challenges: list[str] | None = None,
    tiebreak: str | None = None,
    allow_pending: bool = False,
    promote_to: int | None = None,
) -> dict[str, Any]:
    """Write the revised qrels. A BEIR/TREC project's qrels copies carry its original
    grade scale (and BEIR's also qrels.tsv); the audit-scale changes stay in report.json."""
    project = open_project(root)
    classic = classic_scale(project, promote_to)  # checks --promote-to before the work
    result, inputs, _used = compute(
        project, initial, initial_raters, adjudication, challenges, tiebreak, allow_pending
    )
    stage_qrels = result.pop("stage_qrels")
    qrel_rows = result["qrels"]
    classic_info: dict[str, Any] | None = None
    if classic is not None:
        qrel_rows, changes = classic.apply(result["qrels"])
        stage_qrels = {name: classic.apply(rows)[0] for name, rows in stage_qrels.items()}
        classic_info = classic.manifest(changes)
        inputs["store:graded_qrels"] = classic.graded_sha256()
    texts = {
        "qrels.txt": _trec(qrel_rows),
        "qrels.jsonl": "".join(
            json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in qrel_rows
        ),
        "queries.jsonl": _kept_queries_jsonl(
            project, {r["query_id"] for r in result["removed_queries"]}
        ),
        "report.json": _dumps({k: v for k, v in result.items() if k != "qrels"}),
    }
    stage_names = list(stage_qrels)
    texts.update({name: _trec(rows) for name, rows in stage_qrels.items()})
    if classic_info is not None and classic_info["format"] == "beir":
        # BEIR's own layout, so GenericDataLoader(qrels_file=...) reads the revised copy.
        texts["qrels.tsv"] = "query-id\tcorpus-id\tscore\n" + "".join(
            f"{r['query_id']}\t{r['doc_id']}\t{r['grade']}\n" for r in qrel_rows
        )
        stage_names.append("qrels.tsv")
    outputs = {
        name: hashlib.sha256(texts[name].encode()).hexdigest() for name in (*OUTPUTS, *stage_names)
    }
    manifest = {
        "format": "evaudit-revision-manifest",
        "version": 1,
        "packets": result["packets"],
        "inputs": inputs,
        "outputs": outputs,
        "changes": result["changes"],
        "removed_queries": result["removed_queries"],
    }
    if classic_info is not None:
        manifest["grade_scale"] = classic_info
    texts["manifest.json"] = _dumps(manifest)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError("--out is a file", file=out_dir, hint="give a folder")
    private_dir(out_dir)  # folders this creates are 0700; an existing --out is left as is
    for name in (*OUTPUTS, *stage_names, "manifest.json"):
        _write(out_dir / name, texts[name])
    outputs["manifest.json"] = hashlib.sha256(texts["manifest.json"].encode()).hexdigest()
    return {
        "out": str(out_dir),
        "transitions": result["transitions"],
        "transition_detail": result["transition_detail"],
        "changed": len(result["changes"]),
        "reviewed_pairs": result["reviewed_pairs"],
        "became_gold": result["became_gold"],
        "left_gold": result["left_gold"],
        "removed_queries": result["removed_queries"],
        "corrections_by_stratum": result["corrections_by_stratum"],
        "stages": result["stages"],
        "pending": result["pending"],
        "initial_raters": result["initial_raters"],
        "packets": result["packets"],
        "qrels_rows": len(qrel_rows),
        "grade_scale": classic_info,
        "outputs": outputs,
    }
