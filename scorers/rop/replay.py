"""Validation of joined replay records ("Does the Selected Object Reach the Reader?", Appendix A, "Validate joined records before analysis").

Run records ``{"record_id", "question_id", "model"?, "rankings": {STACK: [ids]}}`` (or
``"returned": [ids]``, stack name ``""``) are the declared retrieval records. Reader records
``{"reader_id"?, "run_record_id", "question_id", "model"?, "stack"?, "returned_sha256"}``
claim to have read one of them. A reader record is accepted only when it refers to a
declared run record, has the same question id (and model, when both carry one), names a
stack of that record (or the record has one list), its ``returned_sha256`` equals the
hash of that returned list, and it agrees with the run record on each bound field the paper
lists ("Replay also checks the named condition, reference path, cutoff, logical task,
terminal attempt, invalid-output policy, source SHA-256 hashes, and status"):
``condition``, ``reference_path``, ``cutoff``, ``task``, ``terminal_attempt``,
``invalid_output_policy`` and ``status``. A field either record carries must be in both with
the same value. Every other reader record is rejected with its reasons (each mismatching
field named); the declared denominator (the run records) is unchanged by a rejection.

Returned-list hash: SHA-256 of the ids joined by ``\\n`` with a final ``\\n`` (UTF-8),
lowercase hex, the same form as the declaration's population hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.rop.fields import some_rows, text_field
from vocabulary.errors import InputError


def returned_list_sha256(ids: Sequence[str]) -> str:
    return hashlib.sha256("".join(f"{i}\n" for i in ids).encode("utf-8")).hexdigest()


# The bound fields a reader record must share with its run record, with their JSON type.
BOUND_FIELDS: dict[str, type] = {
    "condition": str,
    "reference_path": str,
    "cutoff": int,
    "task": str,
    "terminal_attempt": int,
    "invalid_output_policy": str,
    "status": str,
}


@dataclass(frozen=True)
class RunRecord:
    record_id: str
    question_id: str
    model: str | None
    hashes: dict[str, str]  # stack -> returned-list hash
    bound: dict[str, Any] = field(default_factory=dict)  # BOUND_FIELDS the record carries


def _bound_fields(obj: dict[str, Any], source: str, line: int) -> dict[str, Any]:
    out = {}
    for name, kind in BOUND_FIELDS.items():
        if name not in obj:
            continue
        value = obj[name]
        ok = isinstance(value, kind) and not isinstance(value, bool)
        if kind is int and ok and value < 1:
            ok = False
        if kind is str and ok and not value:
            ok = False
        if not ok:
            what = "an integer >= 1" if kind is int else "a non-empty string"
            raise InputError(f"{name!r} must be {what}", file=source, line=line)
        out[name] = value
    return out


def parse_run_records(
    rows: Sequence[tuple[int, dict[str, Any]]], source: str
) -> dict[str, RunRecord]:
    out: dict[str, RunRecord] = {}
    lines: dict[str, int] = {}
    for line, obj in rows:
        rid, qid = (text_field(obj, key, source, line) for key in ("record_id", "question_id"))
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
        out[rid] = RunRecord(rid, qid, model, hashes, _bound_fields(obj, source, line))
        lines[rid] = line
    return some_rows(out, "run records", source)


@dataclass(frozen=True)
class Rejection:
    line: int
    reader_id: str | None
    run_record_id: str | None
    reason: str
    fields: list[str] = field(default_factory=list)  # the mismatching fields, in order

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


def _mismatches(obj: dict[str, Any], run: RunRecord) -> list[tuple[str, str]]:
    """(field, reason) per field the reader and run records do not agree on."""
    out: list[tuple[str, str]] = []
    if obj.get("question_id") != run.question_id:
        out.append(
            (
                "question_id",
                f"question_id {obj.get('question_id')!r} differs from the run record's {run.question_id!r}",
            )
        )
    model = obj.get("model")
    if model is not None and run.model is not None and model != run.model:
        out.append(("model", f"model {model!r} differs from the run record's {run.model!r}"))
    stack = obj.get("stack")
    if stack is None and len(run.hashes) != 1:
        out.append(("stack", f"no 'stack' and the run record has {len(run.hashes)} lists"))
    elif stack is not None and stack not in run.hashes:
        out.append(("stack", f"stack {stack!r} is not in the run record"))
    else:
        claimed = obj.get("returned_sha256")
        if not isinstance(claimed, str):
            out.append(("returned_sha256", "no 'returned_sha256'"))
        elif claimed != run.hashes[next(iter(run.hashes)) if stack is None else stack]:
            out.append(
                (
                    "returned_sha256",
                    "returned_sha256 differs from the hash of the run record's returned list",
                )
            )
    for name in BOUND_FIELDS:
        mine, theirs = obj.get(name), run.bound.get(name)
        if name not in obj and name in run.bound:
            out.append((name, f"no {name!r} (the run record's is {theirs!r})"))
        elif name in obj and name not in run.bound:
            out.append((name, f"{name} {mine!r} is not in the run record"))
        elif name in obj and (mine != theirs or type(mine) is not type(theirs)):
            out.append((name, f"{name} {mine!r} differs from the run record's {theirs!r}"))
    return out


def _reason(obj: dict[str, Any], runs: dict[str, RunRecord]) -> tuple[str, list[str]] | None:
    ref = obj.get("run_record_id")
    if not isinstance(ref, str) or not ref:
        return "no 'run_record_id'", ["run_record_id"]
    run = runs.get(ref)
    if run is None:
        return f"run record {ref!r} is not declared", ["run_record_id"]
    found = _mismatches(obj, run)
    if not found:
        return None
    return "; ".join(r for _f, r in found), [f for f, _r in found]


def check_replay(
    runs: dict[str, RunRecord], reader_rows: Sequence[tuple[int, dict[str, Any]]]
) -> ReplayReport:
    rejected: list[Rejection] = []
    read: set[str] = set()
    for line, obj in reader_rows:
        found = _reason(obj, runs)
        rid = obj.get("reader_id")
        ref = obj.get("run_record_id")
        if found is None:
            read.add(str(ref))
        else:
            rejected.append(
                Rejection(
                    line,
                    rid if isinstance(rid, str) else None,
                    ref if isinstance(ref, str) else None,
                    found[0],
                    found[1],
                )
            )
    return ReplayReport(
        run_records=len(runs),
        reader_records=len(reader_rows),
        accepted=len(reader_rows) - len(rejected),
        rejected=rejected,
        run_records_read=len(read),
    )
