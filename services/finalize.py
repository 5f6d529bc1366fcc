"""`evaudit finalize`: write the revised qrels (TREC + JSONL), report and manifest.

The revision is `audit_chain.finalize_io.compute`; this use case maps it to the
project's grade scale and writes the files. The outputs carry no timestamp, so the same
inputs give byte-identical files; all of them are computed before the first byte is
written, and each file is replaced atomically.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from audit_chain.finalize_io import Stages, compute
from audit_chain.grade_scale import classic_scale
from audit_chain.rater_choice import describe_raters
from campaign.project import Project, private_dir, write_bytes_atomic
from formats.manifest import (
    ArgvItem,
    project_files,
    require_inside,
    write_command_manifest,
)
from formats.qrels_export import describe_ids, revised_texts
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError
from vocabulary.tables import table

# queries.jsonl holds the kept queries, so scoring the revised copy never counts a
# removed query as a miss.
OUTPUTS = ("qrels.txt", "qrels.jsonl", "queries.jsonl", "report.json")


def _dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _write(path: Path, text: str) -> None:
    # 0600, atomic: revised qrels and the manifest hold unblinded labels and decisions.
    write_bytes_atomic(path, text.encode("utf-8"))


def _kept_queries_jsonl(project: Project, removed: set[str]) -> str:
    from packet_builder.query_store import stored_queries

    return "".join(
        json.dumps(q.to_json(), sort_keys=True, ensure_ascii=False) + "\n"
        for q in stored_queries(project)
        if q.query_id not in removed
    )


_STRATUM_COLUMNS = ("stage", "set", "release", "source", "reviewed", "corrected")


def stage_stratum_table(rows: list[dict[str, Any]]) -> str:
    """Corrections by audit stratum per stage (the stratified sample; a challenge's targets
    and controls apart): counts, not a population error estimate."""
    body = table([[r[c] for c in _STRATUM_COLUMNS] for r in rows], list(_STRATUM_COLUMNS))
    return "corrections by audit stratum, per stage (counts, not reweighted):\n" + body


_COLUMNS = ("transition", "count", "to gold", "stays partial", "left gold")


@dataclass(frozen=True)
class FinalizeReport:
    """What finalize wrote and changed: the revision's figures (`policies.revision`), the
    raters and packets behind it, the files written with their SHA-256."""

    out: Path
    transitions: dict[str, int]
    transition_detail: dict[str, dict[str, int]]
    changed: int
    reviewed_pairs: int
    became_gold: int
    left_gold: int
    removed_queries: list[dict[str, Any]]
    corrections_by_stratum: list[dict[str, Any]]
    corrections_by_stage: list[dict[str, Any]]
    stages: list[dict[str, Any]]
    pending: list[dict[str, Any]]  # pairs kept at their grade (--allow-pending)
    initial_raters: dict[str, Any] | None  # the initial packet's rater choice, as JSON
    voters: dict[str, Any]
    packets: dict[str, Any]  # initial, adjudication, challenge packet names
    qrels_rows: int
    grade_scale: dict[str, Any] | None  # a classic benchmark's grade scale mapping
    outputs: dict[str, str]  # file name -> SHA-256
    trec_unwritable_ids: list[str]
    extra: tuple[tuple[str, Any], ...] = ()  # keys the CLI adds (`manifest_out`)

    def to_json(self) -> dict[str, Any]:
        """The released `--json` object, key for key."""
        out: dict[str, Any] = {
            "out": str(self.out),
            "transitions": self.transitions,
            "transition_detail": self.transition_detail,
            "changed": self.changed,
            "reviewed_pairs": self.reviewed_pairs,
            "became_gold": self.became_gold,
            "left_gold": self.left_gold,
            "removed_queries": self.removed_queries,
            "corrections_by_stratum": self.corrections_by_stratum,
            "corrections_by_stage": self.corrections_by_stage,
            "stages": self.stages,
            "pending": self.pending,
            "initial_raters": self.initial_raters,
            "voters": self.voters,
            "packets": self.packets,
            "qrels_rows": self.qrels_rows,
            "grade_scale": self.grade_scale,
            "outputs": self.outputs,
            "trec_unwritable_ids": self.trec_unwritable_ids,
        }
        out.update(self.extra)
        return out

    def with_entry(self, key: str, value: Any) -> FinalizeReport:
        """The report with one more key (the CLI's `manifest_out`)."""
        return replace(self, extra=(*self.extra, (key, value)))

    def rows(self) -> list[dict[str, Any]]:
        """One dict per grade transition (count, to gold, stays partial, left gold)."""
        return [
            {
                "transition": t,
                "count": d["count"],
                "to gold": d["became_gold"],
                "stays partial": d["stayed_partial"],
                "left gold": d["left_gold"],
            }
            for t, d in self.transition_detail.items()
        ]

    def table(self) -> str:
        parts = []
        if self.initial_raters:
            init = self.packets["initial"]
            parts.append(f"initial packet {init}: " + describe_raters(self.initial_raters))
        parts.append(table([[r[c] for c in _COLUMNS] for r in self.rows()], list(_COLUMNS)))
        parts.append(
            f"{self.changed}/{self.reviewed_pairs} reviewed grades changed; "
            f"{self.qrels_rows} qrels rows"
        )
        if self.corrections_by_stage:
            parts.append(stage_stratum_table(self.corrections_by_stage))
        parts += [f"removed query {r['query_id']} (no gold left)" for r in self.removed_queries]
        if self.pending:
            parts.append(f"{len(self.pending)} pending pair(s) kept their grade (--allow-pending):")
            parts.append(
                table(
                    [[p["query_id"], p["doc_id"], p["reason"]] for p in self.pending],
                    ["query", "document", "why pending"],
                )
            )
        if self.trec_unwritable_ids:
            parts.append(
                "no TREC copy (qrels.txt): ids a TREC file cannot carry: "
                + describe_ids(self.trec_unwritable_ids)
                + "; the revised qrels are BEIR TSV (qrels.tsv)"
            )
        parts.append(f"wrote {self.out}")
        return "\n".join(parts)


def finalize(
    project: ProjectRef,
    out_dir: Path,
    stages: Stages | None = None,
    promote_to: int | None = None,
    *,
    manifest_out: Path | None = None,
    argv: Sequence[ArgvItem] = (),
) -> FinalizeReport:
    """Write the revised qrels of `stages` (default: every packet, the stored raters). A
    BEIR/TREC project's qrels copies carry its original grade scale (and BEIR's also
    qrels.tsv); the audit-scale changes stay in report.json.
    With `manifest_out`, also the reproduction manifest of `argv` (the command line that
    ran), refused before anything is written when the project or `out_dir` lie outside
    its folder."""
    ins: list[Path] = []
    if manifest_out is not None:
        root = project.root if isinstance(project, Project) else Path(project)
        require_inside(manifest_out, [root, out_dir])
        ins = project_files(root, exclude=[out_dir, manifest_out])
    report = _finalize(project_at(project), out_dir, stages or Stages(), promote_to)
    if manifest_out is None:
        return report
    made = [out_dir / name for name in report.outputs]
    write_command_manifest(manifest_out, argv, ins, made)
    return report.with_entry("manifest_out", str(manifest_out))


def _finalize(
    project: Project, out_dir: Path, stages: Stages, promote_to: int | None
) -> FinalizeReport:
    classic = classic_scale(project, promote_to)  # checks --promote-to before the work
    result, inputs, _used = compute(project, stages)
    stage_qrels = result.pop("stage_qrels")
    qrel_rows = result["qrels"]
    classic_info: dict[str, Any] | None = None
    if classic is not None:
        qrel_rows, changes = classic.apply(result["qrels"])
        stage_qrels = {name: classic.apply(rows)[0] for name, rows in stage_qrels.items()}
        classic_info = classic.manifest(changes)
        inputs["store:graded_qrels"] = classic.graded_sha256()
    # qrels.txt and the stage copies; a BEIR benchmark's ids a TREC file cannot carry
    # make them BEIR TSV only (formats.qrels_export).
    beir = classic_info is not None and classic_info["format"] == "beir"
    qrels_texts, stage_names, unwritable = revised_texts(qrel_rows, stage_qrels, beir)
    texts = {
        **qrels_texts,
        "qrels.jsonl": "".join(
            json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in qrel_rows
        ),
        "queries.jsonl": _kept_queries_jsonl(
            project, {r["query_id"] for r in result["removed_queries"]}
        ),
        "report.json": _dumps({k: v for k, v in result.items() if k != "qrels"}),
    }
    written = [name for name in OUTPUTS if name in texts]
    outputs = {
        name: hashlib.sha256(texts[name].encode()).hexdigest() for name in (*written, *stage_names)
    }
    manifest = {
        "format": "evaudit-revision-manifest",
        "version": 1,
        "packets": result["packets"],
        "inputs": inputs,
        "outputs": outputs,
        "changes": result["changes"],
        "removed_queries": result["removed_queries"],
        "pending": result["pending"],
    }
    if classic_info is not None:
        manifest["grade_scale"] = classic_info
    texts["manifest.json"] = _dumps(manifest)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError("--out is a file", file=out_dir, hint="give a folder")
    private_dir(out_dir)  # folders this creates are 0700; an existing --out is left as is
    for name in (*written, *stage_names, "manifest.json"):
        _write(out_dir / name, texts[name])
    outputs["manifest.json"] = hashlib.sha256(texts["manifest.json"].encode()).hexdigest()
    return FinalizeReport(
        out=out_dir,
        transitions=result["transitions"],
        transition_detail=result["transition_detail"],
        changed=len(result["changes"]),
        reviewed_pairs=result["reviewed_pairs"],
        became_gold=result["became_gold"],
        left_gold=result["left_gold"],
        removed_queries=result["removed_queries"],
        corrections_by_stratum=result["corrections_by_stratum"],
        corrections_by_stage=result["corrections_by_stage"],
        stages=result["stages"],
        pending=result["pending"],
        initial_raters=result["initial_raters"],
        voters=result["voters"],
        packets=result["packets"],
        qrels_rows=len(qrel_rows),
        grade_scale=classic_info,
        outputs=outputs,
        trec_unwritable_ids=unwritable,
    )
