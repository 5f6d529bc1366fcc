"""Validation of joined replay records ("Does the Selected Object Reach the Reader?", Appendix A, "Validate joined records before analysis").

Run records ``{"record_id", "question_id", "model"?, "rankings": {STACK: [ids]}}`` (or
``"returned": [ids]``, stack name ``""``) are the declared retrieval records. Reader records
``{"reader_id"?, "run_record_id", "question_id", "model"?, "stack"?, "returned_sha256"}``
claim to have read one of them. A reader record is accepted only when it refers to a
declared run record, has the same question id (and model, when both carry one), names a
stack of that record (or the record has one list), and its ``returned_sha256`` equals the
hash of that returned list. Every other reader record is rejected with its reason; the
declared denominator (the run records) is unchanged by a rejection.

Returned-list hash: SHA-256 of the ids joined by ``\\n`` with a final ``\\n`` (UTF-8),
lowercase hex, the same form as the declaration's population hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vocabulary.errors import InputError


def returned_list_sha256(ids: Sequence[str]) -> str:
    return hashlib.sha256("".join(f"{i}\n" for i in ids).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class RunRecord:
    record_id: str
    question_id: str
    model: str | None
    hashes: dict[str, str]  # stack -> returned-list hash


def parse_run_records(
    rows: Sequence[tuple[int, dict[str, Any]]], source: str
) -> dict[str, RunRecord]:
    out: dict[str, RunRecord] = {}
    lines: dict[str, int] = {}
    for line, obj in rows:
        rid, qid = obj.get("record_id"), obj.get("question_id")
        if not isinstance(rid, str) or not rid:
            raise InputError("needs a non-empty string 'record_id'", file=source, line=line)
        if not isinstance(qid, str) or not qid:
            raise InputError("needs a non-empty string 'question_id'", file=source, line=line)
        if rid in out:
            raise InputError(f"record_id {rid!r} repeats line {lines[rid]}", file=source, line=line)
        model = obj.get("model")
        if model is not None and not isinstance(model, str):
            raise InputError("'model' must be a string", file=source, line=line)
        lists = obj.get("rankings")
        if lists is None and "returned" in obj:
            lists = {"": obj["returned"]}
        if not isinstance(lists, dict) or not lists:
            raise InputError(
                "needs 'rankings' {STACK: [ids]} or 'returned' [ids]", file=source, line=line
            )
        hashes = {}
        for stack, ids in lists.items():
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise InputError(f"list {stack!r} must hold id strings", file=source, line=line)
            hashes[stack] = returned_list_sha256(ids)
        out[rid] = RunRecord(rid, qid, model, hashes)
        lines[rid] = line
    if not out:
        raise InputError("no run records", file=source, hint="one JSON object per line")
    return out


@dataclass(frozen=True)
class Rejection:
    line: int
    reader_id: str | None
    run_record_id: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ReplayReport:
    run_records: int
    reader_records: int
    accepted: int
    rejected: list[Rejection]
    run_records_read: int  # declared run records with at least one accepted reader record

    @property
    def valid(self) -> bool:
        return not self.rejected

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "run_records": self.run_records,
            "reader_records": self.reader_records,
            "accepted": self.accepted,
            "rejected": len(self.rejected),
            "run_records_read": self.run_records_read,
            "rejections": [r.to_json() for r in self.rejected],
        }


def _reason(obj: dict[str, Any], runs: dict[str, RunRecord]) -> str | None:
    ref = obj.get("run_record_id")
    if not isinstance(ref, str) or not ref:
        return "no 'run_record_id'"
    run = runs.get(ref)
    if run is None:
        return f"run record {ref!r} is not declared"
    if obj.get("question_id") != run.question_id:
        return f"question_id {obj.get('question_id')!r} differs from the run record's {run.question_id!r}"
    model = obj.get("model")
    if model is not None and run.model is not None and model != run.model:
        return f"model {model!r} differs from the run record's {run.model!r}"
    stack = obj.get("stack")
    if stack is None:
        if len(run.hashes) != 1:
            return f"no 'stack' and the run record has {len(run.hashes)} lists"
        stack = next(iter(run.hashes))
    if stack not in run.hashes:
        return f"stack {stack!r} is not in the run record"
    claimed = obj.get("returned_sha256")
    if not isinstance(claimed, str):
        return "no 'returned_sha256'"
    if claimed != run.hashes[stack]:
        return "returned_sha256 differs from the hash of the run record's returned list"
    return None


def check_replay(
    runs: dict[str, RunRecord], reader_rows: Sequence[tuple[int, dict[str, Any]]]
) -> ReplayReport:
    rejected: list[Rejection] = []
    read: set[str] = set()
    for line, obj in reader_rows:
        reason = _reason(obj, runs)
        rid = obj.get("reader_id")
        ref = obj.get("run_record_id")
        if reason is None:
            read.add(str(ref))
        else:
            rejected.append(
                Rejection(
                    line,
                    rid if isinstance(rid, str) else None,
                    ref if isinstance(ref, str) else None,
                    reason,
                )
            )
    return ReplayReport(
        run_records=len(runs),
        reader_records=len(reader_rows),
        accepted=len(reader_rows) - len(rejected),
        rejected=rejected,
        run_records_read=len(read),
    )
