"""Reader-side association audit ("Does the Selected Object Reach the Reader?", Sec. 4.1, Table 9).

Reader rows ``{"question_id", "model", "arm", "answer", "gold", "contains_selected",
"aligned"?, "passages"?}`` (or a recorded ``"em"`` in place of ``answer`` and ``gold``): one
answer of one reader arm (a retrieval condition feeding the reader) for
one model-question record. For a pair of arms A:B the two rows of each (question, model)
are joined; the pair enters when both are aligned (U = G; rows without the field count as
aligned), both contexts hold the declared number of passages (``--passages``, when given),
and the shared object is in exactly one of the two contexts. Return EM is the exact match
of the context that holds it, Omit EM that of the other; Delta EM = Return - Omit, with a
percentile interval that resamples clusters (question ids by default) and keeps every
model-family row of a drawn question together. Exact match and answer-token F1 are scored
from the raw answers with HybridQA's (SQuAD v1.1's) normalization (`scorers.rop.answers`);
Return/Omit F1 and Delta F1 stand beside the EM columns when every entered row has answers. The comparison is associative: the paired
contexts differ in more than the one passage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.rop.answers import row_scores
from scorers.rop.fields import some_rows, text_field
from scorers.rop.resampling import Interval, cluster_bootstrap_difference
from vocabulary.errors import InputError


@dataclass(frozen=True)
class ReaderRow:
    line: int
    question_id: str
    model: str
    arm: str
    em: float
    contains_selected: bool
    aligned: bool
    passages: int | None
    cluster: str
    f1: float | None = None  # None when the row records only its EM


def parse_reader_rows(
    rows: Sequence[tuple[int, dict[str, Any]]], source: str, *, cluster_field: str = "question_id"
) -> list[ReaderRow]:
    """Check reader rows; a (question, model, arm) seen twice is an error (which one counts?)."""
    out: list[ReaderRow] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, obj in rows:
        qid = text_field(obj, "question_id", source, line)
        model = text_field(obj, "model", source, line)
        arm = text_field(obj, "arm", source, line)
        scores = row_scores(obj, source, line)
        if scores is None:
            raise InputError(
                "needs the predicted 'answer' and 'gold' answers (or a recorded 'em')",
                file=source,
                line=line,
            )
        contains = obj.get("contains_selected")
        if not isinstance(contains, bool):
            raise InputError("'contains_selected' must be true or false", file=source, line=line)
        aligned = obj.get("aligned", True)
        if not isinstance(aligned, bool):
            raise InputError("'aligned' must be true or false", file=source, line=line)
        passages = obj.get("passages")
        if passages is not None and (isinstance(passages, bool) or not isinstance(passages, int)):
            raise InputError("'passages' must be an integer", file=source, line=line)
        cluster = text_field(obj, cluster_field, source, line)
        key = (qid, model, arm)
        if key in seen:
            raise InputError(
                f"question {qid!r}, model {model!r}, arm {arm!r} repeats line {seen[key]}",
                file=source,
                line=line,
                hint="one answer per record and arm",
            )
        seen[key] = line
        out.append(
            ReaderRow(
                line, qid, model, arm, scores[0], contains, aligned, passages, cluster, scores[1]
            )
        )
    return some_rows(out, "reader rows", source)


@dataclass(frozen=True)
class PairResult:
    """One row of Table 9 plus the accounting of the joined (question, model) records."""

    arm_a: str
    arm_b: str
    joined: int  # records with both arms
    excluded_not_aligned: int
    excluded_passages: int
    both_contain: int
    neither_contains: int
    n: int
    return_em: float | None
    omit_em: float | None
    delta: float | None
    interval: Interval
    a_returns: int  # entered pairs where arm A's context holds the object
    return_f1: float | None = None  # None when an entered row records only its EM
    omit_f1: float | None = None
    delta_f1: float | None = None
    interval_f1: Interval | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "pair": f"{self.arm_a}:{self.arm_b}",
            "arm_a": self.arm_a,
            "arm_b": self.arm_b,
            "joined": self.joined,
            "excluded_not_aligned": self.excluded_not_aligned,
            "excluded_passages": self.excluded_passages,
            "both_contain": self.both_contain,
            "neither_contains": self.neither_contains,
            "n": self.n,
            "a_returns": self.a_returns,
            "return_em": self.return_em,
            "omit_em": self.omit_em,
            "delta_em": self.delta,
            "bootstrap": self.interval.to_json(),
            "return_f1": self.return_f1,
            "omit_f1": self.omit_f1,
            "delta_f1": self.delta_f1,
            "bootstrap_f1": None if self.interval_f1 is None else self.interval_f1.to_json(),
        }


@dataclass(frozen=True)
class AssociationReport:
    rows: int
    cluster_field: str
    passages: int | None
    pairs: list[PairResult] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "cluster": self.cluster_field,
            "passages": self.passages,
            "pairs": [p.to_json() for p in self.pairs],
        }


Entered = tuple[float, float, str, bool, float | None, float | None]


def paired_records(
    rows: Sequence[ReaderRow], arm_a: str, arm_b: str, passages: int | None
) -> tuple[list[Entered], dict[str, int]]:
    """(return EM, omit EM, cluster, A holds it, return F1, omit F1) per entered record, and
    the exclusion counts."""
    by_key: dict[tuple[str, str], dict[str, ReaderRow]] = {}
    for r in rows:
        if r.arm in (arm_a, arm_b):
            by_key.setdefault((r.question_id, r.model), {})[r.arm] = r
    counts = {"joined": 0, "not_aligned": 0, "passages": 0, "both": 0, "neither": 0}
    entered: list[Entered] = []
    for key in sorted(by_key):
        arms = by_key[key]
        if len(arms) < 2:
            continue
        a, b = arms[arm_a], arms[arm_b]
        counts["joined"] += 1
        if a.cluster != b.cluster:
            raise InputError(
                f"question {key[0]!r}, model {key[1]!r}: cluster differs between arms "
                f"(lines {a.line} and {b.line})",
                hint="one cluster per record",
            )
        if not (a.aligned and b.aligned):
            counts["not_aligned"] += 1
        elif passages is not None and (a.passages != passages or b.passages != passages):
            counts["passages"] += 1
        elif a.contains_selected and b.contains_selected:
            counts["both"] += 1
        elif not (a.contains_selected or b.contains_selected):
            counts["neither"] += 1
        elif a.contains_selected:
            entered.append((a.em, b.em, a.cluster, True, a.f1, b.f1))
        else:
            entered.append((b.em, a.em, a.cluster, False, b.f1, a.f1))
    return entered, counts


def associate(
    rows: Sequence[ReaderRow],
    pairs: Sequence[tuple[str, str]],
    *,
    passages: int | None = None,
    resamples: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    cluster_field: str = "question_id",
) -> AssociationReport:
    """Table 9 for every declared arm pair (each pair's bootstrap uses the same seed)."""
    arms = {r.arm for r in rows}
    results = []
    for arm_a, arm_b in pairs:
        for arm in (arm_a, arm_b):
            if arm not in arms:
                raise InputError(
                    f"arm {arm!r} has no reader rows", hint=f"arms present: {sorted(arms)}"
                )
        entered, c = paired_records(rows, arm_a, arm_b, passages)
        ret = [e[0] for e in entered]
        omit = [e[1] for e in entered]
        n = len(entered)
        f1s = [(e[4], e[5]) for e in entered]
        has_f1 = bool(n) and all(x is not None and y is not None for x, y in f1s)
        ret_f1 = [float(x or 0.0) for x, _ in f1s]
        omit_f1 = [float(y or 0.0) for _, y in f1s]
        clusters = [e[2] for e in entered]
        interval = cluster_bootstrap_difference(
            ret,
            omit,
            [e[2] for e in entered],
            resamples=resamples,
            seed=seed,
            confidence=confidence,
        )
        results.append(
            PairResult(
                arm_a=arm_a,
                arm_b=arm_b,
                joined=c["joined"],
                excluded_not_aligned=c["not_aligned"],
                excluded_passages=c["passages"],
                both_contain=c["both"],
                neither_contains=c["neither"],
                n=n,
                return_em=sum(ret) / n if n else None,
                omit_em=sum(omit) / n if n else None,
                delta=(sum(ret) - sum(omit)) / n if n else None,
                interval=interval,
                a_returns=sum(1 for e in entered if e[3]),
                return_f1=sum(ret_f1) / n if has_f1 else None,
                omit_f1=sum(omit_f1) / n if has_f1 else None,
                delta_f1=(sum(ret_f1) - sum(omit_f1)) / n if has_f1 else None,
                interval_f1=cluster_bootstrap_difference(
                    ret_f1,
                    omit_f1,
                    clusters,
                    resamples=resamples,
                    seed=seed,
                    confidence=confidence,
                )
                if has_f1
                else None,
            )
        )
    return AssociationReport(len(rows), cluster_field, passages, results)
