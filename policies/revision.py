"""Revised qrels from reviewed grades: transitions, corrections by stratum, removed queries.

Stages (initial repair + adjudication, then any challenge) apply in order; a
later stage sees the earlier stage's grade as its old grade. Zero grades drop
their row (qrels keep nonzero rows only). A query that had a gold document
(grade == n) before the revision and has none after is removed with all its
qrels, as "Do Current Retrievers Cover All the Evidence?" (supplement) removed a zero-gold SourceShift query. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PairKey = tuple[str, str]


@dataclass(frozen=True)
class Review:
    query_id: str
    doc_id: str
    new_grade: int | None  # None = reviewed, grade kept
    path: str  # how the stage reached new_grade, e.g. "consensus_increase", "majority+override"
    status: str | None = None  # challenge packets: "target" or "control"


@dataclass(frozen=True)
class Stage:
    name: str  # e.g. "audit:initial", "challenge:ch1"
    reviews: tuple[Review, ...]


@dataclass(frozen=True)
class QueryInfo:
    n: int
    release: str = ""
    source: str = ""


SAMPLED = "sampled"  # a stratified stage's pairs; a challenge's are "target" / "control"
_SET_ORDER = {SAMPLED: 0, "target": 1, "control": 2}


def _set_order(item: tuple[tuple[str, str, str], list[int]]) -> tuple[int, str, str, str]:
    st, rel, src = item[0]
    return _SET_ORDER.get(st, 3), st, rel, src


def corrections_by_stage(stages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Corrections by audit stratum, stage by stage, each set (sampled / target / control)
    apart with an `All` row when it spans more than one stratum. Counts, never rates
    reweighted into a population estimate (the supplement's "Corrections by audit stratum")."""
    rows: list[dict[str, Any]] = []
    for st in stages:
        cells = st["corrections_by_stratum"]
        for name in dict.fromkeys(c["set"] for c in cells):
            mine = [c for c in cells if c["set"] == name]
            rows += [{"stage": st["stage"], **c} for c in mine]
            if len(mine) > 1:
                rows.append(
                    {"stage": st["stage"], "set": name, "release": "All", "source": "",
                     "reviewed": sum(c["reviewed"] for c in mine),
                     "corrected": sum(c["corrected"] for c in mine)}
                )  # fmt: skip
    return rows


def _tkey(old: int, new: int) -> str:
    return f"{old}->{new}"


def _sort_transitions(counts: Mapping[str, Any]) -> dict[str, Any]:
    return {
        k: counts[k] for k in sorted(counts, key=lambda t: tuple(int(x) for x in t.split("->")))
    }


def _detail(
    changes: Sequence[Mapping[str, Any]], queries: Mapping[str, QueryInfo]
) -> dict[str, Any]:
    out: dict[str, dict[str, int]] = {}
    for ch in changes:
        n = queries[ch["query_id"]].n
        row = out.setdefault(
            _tkey(ch["old_grade"], ch["new_grade"]),
            {"count": 0, "became_gold": 0, "stayed_partial": 0, "left_gold": 0, "to_zero": 0},
        )
        row["count"] += 1
        old_gold, new_gold = ch["old_grade"] == n, ch["new_grade"] == n
        row["became_gold"] += int(new_gold and not old_gold)
        row["left_gold"] += int(old_gold and not new_gold)
        row["to_zero"] += int(ch["new_grade"] == 0)
        row["stayed_partial"] += int(0 < ch["new_grade"] < n and 0 < ch["old_grade"] < n)
    return _sort_transitions(out)


@dataclass(frozen=True)
class Revision:
    """Everything `finalize` writes: the revised qrels rows (sorted by query, document),
    the changes and their transitions, each stage's figures, the removed queries."""

    qrels: list[dict[str, Any]]  # {query_id, doc_id, grade}
    changes: list[dict[str, Any]]  # {query_id, doc_id, old_grade, new_grade, path}
    transitions: dict[str, int]  # "old->new": count
    transition_detail: dict[str, dict[str, int]]
    stages: list[dict[str, Any]]  # per stage: reviewed, changed, transitions, strata
    corrections_by_stratum: list[dict[str, Any]]  # the audit stage's stratified sample
    corrections_by_stage: list[dict[str, Any]]
    removed_queries: list[dict[str, Any]]  # queries left without gold
    reviewed_pairs: int

    @property
    def became_gold(self) -> int:
        return sum(v["became_gold"] for v in self.transition_detail.values())

    @property
    def left_gold(self) -> int:
        return sum(v["left_gold"] for v in self.transition_detail.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "qrels": self.qrels,
            "changes": self.changes,
            "transitions": self.transitions,
            "transition_detail": self.transition_detail,
            "became_gold": self.became_gold,
            "left_gold": self.left_gold,
            "stages": self.stages,
            "corrections_by_stratum": self.corrections_by_stratum,
            "corrections_by_stage": self.corrections_by_stage,
            "removed_queries": self.removed_queries,
            "reviewed_pairs": self.reviewed_pairs,
        }


def revise(
    qrels: Mapping[PairKey, int], queries: Mapping[str, QueryInfo], stages: Sequence[Stage]
) -> Revision:
    """Everything `finalize` writes (qrels rows sorted by query, document)."""
    current: dict[PairKey, int] = {k: v for k, v in qrels.items() if v != 0}
    original = dict(current)
    paths: dict[PairKey, list[str]] = {}
    stage_out = []
    for stage in stages:
        reviewed: dict[str, int] = {}
        by_status: dict[str, dict[str, int]] = {}
        by_stratum: dict[tuple[str, str, str], list[int]] = {}
        changed = 0
        for r in stage.reviews:
            key = (r.query_id, r.doc_id)
            old = current.get(key, 0)
            new = old if r.new_grade is None else r.new_grade
            info = queries[r.query_id]
            cell = by_stratum.setdefault((r.status or SAMPLED, info.release, info.source), [0, 0])
            cell[0] += 1
            cell[1] += int(new != old)
            reviewed[_tkey(old, new)] = reviewed.get(_tkey(old, new), 0) + 1
            if r.status is not None:
                row = by_status.setdefault(r.status, {})
                row[_tkey(old, new)] = row.get(_tkey(old, new), 0) + 1
            if new != old:
                changed += 1
                paths.setdefault(key, []).append(f"{stage.name}:{r.path}")
                if new == 0:
                    current.pop(key, None)
                else:
                    current[key] = new
        entry: dict[str, Any] = {
            "stage": stage.name,
            "reviewed": len(stage.reviews),
            "changed": changed,
            "reviewed_transitions": _sort_transitions(reviewed),
            "corrections_by_stratum": [
                {"set": st, "release": rel, "source": src, "reviewed": n, "corrected": c}
                for (st, rel, src), (n, c) in sorted(by_stratum.items(), key=_set_order)
            ],
        }
        if by_status:  # a challenge: its targets and its blinded controls separately
            entry["reviewed_transitions_by_status"] = {
                st: _sort_transitions(by_status[st]) for st in sorted(by_status)
            }
        stage_out.append(entry)
    changes: list[dict[str, Any]] = [
        {
            "query_id": q,
            "doc_id": d,
            "old_grade": original.get((q, d), 0),
            "new_grade": current.get((q, d), 0),
            "path": " then ".join(paths[(q, d)]),
        }
        for (q, d) in sorted(paths)
        if original.get((q, d), 0) != current.get((q, d), 0)
    ]

    def gold(grades: Mapping[PairKey, int], qid: str) -> int:
        return sum(1 for (q, _), g in grades.items() if q == qid and g == queries[qid].n)

    touched = sorted({q for q, _ in paths})
    removed = [
        {
            "query_id": q,
            "gold_before": gold(original, q),
            "qrels_removed": sum(1 for k in current if k[0] == q),
        }
        for q in touched
        if gold(original, q) > 0 and gold(current, q) == 0
    ]
    removed_ids = {r["query_id"] for r in removed}
    final = {k: v for k, v in current.items() if k[0] not in removed_ids}
    counts: dict[str, int] = {}
    for ch in changes:
        counts[_tkey(ch["old_grade"], ch["new_grade"])] = (
            counts.get(_tkey(ch["old_grade"], ch["new_grade"]), 0) + 1
        )
    detail = _detail(changes, queries)
    reviewed_keys = sorted({(r.query_id, r.doc_id) for s in stages for r in s.reviews})
    # The stratified sample's own table: the audit stage's pairs and the corrections that
    # stage made. A challenge's contrast-selected targets are not a sample of any stratum
    # ("Do Current Retrievers Cover All the Evidence?" (supplement), "Targeted Residual-Qrel
    # Challenge"); they stay in their stage's rows (corrections_by_stage).
    audit_strata = [
        {"release": r["release"], "source": r["source"], "sampled": r["reviewed"],
         "corrected": r["corrected"]}
        for st in stage_out
        if st["stage"].startswith("audit:")
        for r in st["corrections_by_stratum"]
        if r["set"] == SAMPLED
    ]  # fmt: skip
    return Revision(
        qrels=[{"query_id": q, "doc_id": d, "grade": g} for (q, d), g in sorted(final.items())],
        changes=changes,
        transitions=_sort_transitions(counts),
        transition_detail=detail,
        stages=stage_out,
        corrections_by_stratum=audit_strata,
        corrections_by_stage=corrections_by_stage(stage_out),
        removed_queries=removed,
        reviewed_pairs=len(reviewed_keys),
    )


def original_scale(
    graded: Mapping[PairKey, int],
    before: Mapping[PairKey, int],
    after: Mapping[PairKey, int],
    queries: Mapping[str, QueryInfo],
    removed: set[str],
    promote_to: int | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Revised qrels in a classic benchmark's own grade scale, and the pairs that changed.

    `graded` holds the original grades (every row, zeros and below-threshold included);
    `before`/`after` the audit grades (gold = grade n) ahead of and after the revision.
    A pair whose audit label did not move keeps its original grade; one that left gold
    becomes 0 (judged non-relevant, so the row stays); one that became gold gets
    `promote_to`. Rows of removed queries go. Pure."""
    rows: dict[PairKey, int] = {}
    changes: list[dict[str, Any]] = []
    for key in sorted(set(graded) | set(before) | set(after)):
        if key[0] in removed:
            continue
        n = queries[key[0]].n
        was, now = before.get(key, 0) == n, after.get(key, 0) == n
        old = graded.get(key)
        if was == now:
            if old is not None:
                rows[key] = old
            continue
        if now and promote_to is None:
            raise ValueError("a promoted pair needs promote_to")
        new = int(promote_to) if now and promote_to is not None else 0
        rows[key] = new
        changes.append({"query_id": key[0], "doc_id": key[1], "old_grade": old, "new_grade": new})
    return [{"query_id": q, "doc_id": d, "grade": g} for (q, d), g in sorted(rows.items())], changes
