"""`evaudit finalize`: write the revised qrels (TREC + JSONL), report and manifest.

The revision is `packet_builder.finalize_io.compute`; this use case maps it to the
project's grade scale and writes the files. The outputs carry no timestamp, so the same
inputs give byte-identical files; all of them are computed before the first byte is
written, and each file is replaced atomically.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign.project import Project, private_dir, write_bytes_atomic
from packet_builder.finalize_io import compute
from packet_builder.grade_scale import classic_scale
from packet_builder.qrels_export import describe_ids, revised_texts
from packet_builder.rater_choice import describe_raters
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
    """What finalize wrote and changed. `body` is the released `--json` object."""

    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.body

    def with_entry(self, key: str, value: Any) -> FinalizeReport:
        """The report with one more key (the CLI's `manifest_out`)."""
        return FinalizeReport({**self.body, key: value})

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
            for t, d in self.body["transition_detail"].items()
        ]

    def table(self) -> str:
        out = self.body
        parts = []
        if out.get("initial_raters"):
            init = out["packets"]["initial"]
            parts.append(f"initial packet {init}: " + describe_raters(out["initial_raters"]))
        parts.append(table([[r[c] for c in _COLUMNS] for r in self.rows()], list(_COLUMNS)))
        parts.append(
            f"{out['changed']}/{out['reviewed_pairs']} reviewed grades changed; "
            f"{out['qrels_rows']} qrels rows"
        )
        if out.get("corrections_by_stage"):
            parts.append(stage_stratum_table(out["corrections_by_stage"]))
        parts += [f"removed query {r['query_id']} (no gold left)" for r in out["removed_queries"]]
        if out["pending"]:
            parts.append(
                f"{len(out['pending'])} pending pair(s) kept their grade (--allow-pending):"
            )
            parts.append(
                table(
                    [[p["query_id"], p["doc_id"], p["reason"]] for p in out["pending"]],
                    ["query", "document", "why pending"],
                )
            )
        if out.get("trec_unwritable_ids"):
            parts.append(
                "no TREC copy (qrels.txt): ids a TREC file cannot carry: "
                + describe_ids(out["trec_unwritable_ids"])
                + "; the revised qrels are BEIR TSV (qrels.tsv)"
            )
        parts.append(f"wrote {out['out']}")
        return "\n".join(parts)


def finalize(
    project: Project,
    out_dir: Path,
    initial: str | None = None,
    initial_raters: str | None = None,
    adjudication: list[str] | None = None,
    challenges: list[str] | None = None,
    tiebreak: str | None = None,
    allow_pending: bool = False,
    promote_to: int | None = None,
    adjudication_raters: str | None = None,
) -> FinalizeReport:
    """Write the revised qrels. A BEIR/TREC project's qrels copies carry its original
    grade scale (and BEIR's also qrels.tsv); the audit-scale changes stay in report.json."""
    classic = classic_scale(project, promote_to)  # checks --promote-to before the work
    result, inputs, _used = compute(
        project, initial, initial_raters, adjudication, challenges, tiebreak, allow_pending,
        adjudication_raters,
    )  # fmt: skip
    stage_qrels = result.pop("stage_qrels")
    qrel_rows = result["qrels"]
    classic_info: dict[str, Any] | None = None
    if classic is not None:
        qrel_rows, changes = classic.apply(result["qrels"])
        stage_qrels = {name: classic.apply(rows)[0] for name, rows in stage_qrels.items()}
        classic_info = classic.manifest(changes)
        inputs["store:graded_qrels"] = classic.graded_sha256()
    # qrels.txt and the stage copies; a BEIR benchmark's ids a TREC file cannot carry
    # make them BEIR TSV only (packet_builder.qrels_export).
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
        {
            "out": str(out_dir),
            "transitions": result["transitions"],
            "transition_detail": result["transition_detail"],
            "changed": len(result["changes"]),
            "reviewed_pairs": result["reviewed_pairs"],
            "became_gold": result["became_gold"],
            "left_gold": result["left_gold"],
            "removed_queries": result["removed_queries"],
            "corrections_by_stratum": result["corrections_by_stratum"],
            "corrections_by_stage": result["corrections_by_stage"],
            "stages": result["stages"],
            "pending": result["pending"],
            "initial_raters": result["initial_raters"],
            "voters": result["voters"],
            "packets": result["packets"],
            "qrels_rows": len(qrel_rows),
            "grade_scale": classic_info,
            "outputs": outputs,
            "trec_unwritable_ids": unwritable,
        }
    )
