"""Which qrels a challenge packet targets: the audit-revised copy, or the qrels as loaded.

A challenge builds its targets from judged subsets. Built from the qrels as
first loaded, a pair the audit already dropped (1 -> 0) still looks like a
subset, becomes a target, and a challenge that confirms grade 1 is then
recorded as 0 -> 1 on top of the audit, undoing the audit's decision. So the
default is the *finalize output*: the qrels exactly as `evaudit finalize`
revises them from every stage already in the project (the initial audit with
its adjudication, and any earlier challenge). finalize is a pure, byte-stable
recomputation from the project's packets, keys, journals and overrides, so the
copy is recomputed here rather than read from a folder that could be stale.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from audit_chain.campaign_io import packet_kinds
from campaign.project import Project
from vocabulary.errors import InputError

QRELS_FROM = ("finalize-output", "loaded")
PairGrades = dict[tuple[str, str], int]


def qrels_sha256(grades: Mapping[tuple[str, str], int]) -> str:
    """SHA-256 of the nonzero rows as sorted `qid 0 docid grade` lines (finalize's qrels.txt)."""
    text = "".join(f"{q} 0 {d} {g}\n" for (q, d), g in sorted(grades.items()) if g)
    return hashlib.sha256(text.encode()).hexdigest()


def challenge_qrels(
    project: Project, loaded: Mapping[tuple[str, str], int], mode: str | None
) -> tuple[PairGrades, str]:
    """(grades, resolved mode). mode None = finalize-output when an audited stage exists."""
    stages = sorted(n for n, k in packet_kinds(project).items() if k in ("initial", "challenge"))
    resolved = mode or ("finalize-output" if stages else "loaded")
    if resolved not in QRELS_FROM:
        raise InputError(f"unknown --qrels-from {resolved!r}", hint="use finalize-output or loaded")
    if resolved == "loaded":
        return {k: v for k, v in loaded.items() if v}, resolved
    if not stages:
        raise InputError(
            "--qrels-from finalize-output: the project has no initial or challenge packet",
            hint="run the audit first, or pass --qrels-from loaded",
        )
    from audit_chain.finalize_io import compute

    try:
        result, _inputs, _used = compute(project)
    except InputError as exc:
        # The inner hint (often a runnable `evaudit raters ...` line) is kept: it is the fix.
        first = f"{exc.hint}; " if exc.hint else ""
        raise InputError(
            f"cannot take the finalized qrels for the challenge: {exc.message}",
            file=exc.file,
            hint=f"{first}finish the earlier stages (finalize must succeed without flags: "
            "its rater choices are stored), or pass --qrels-from loaded",
        ) from exc
    grades = {(r["query_id"], r["doc_id"]): int(r["grade"]) for r in result["qrels"]}
    return grades, resolved


def describe(grades: Mapping[tuple[str, str], int], mode: str) -> dict[str, object]:
    """What the key records about the targeted copy."""
    return {"qrels_from": mode, "qrels_sha256": qrels_sha256(grades), "qrels_rows": len(grades)}


__all__ = ["QRELS_FROM", "challenge_qrels", "describe", "qrels_sha256"]
