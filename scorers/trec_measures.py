"""trec_eval's classic measures on graded qrels without conditions (`evaudit score trec`).

Pure: takes (query, doc, grade) qrels and (query, doc, score) run rows, returns
typed reports. The definitions follow trec_eval 9 as pytrec_eval exposes them,
measure names included (`ndcg_cut_10`, `P_10`, `recall_100`, `map`, ...):

- a document is relevant when its grade is >= 1; an unjudged one has grade 0;
- a query is evaluated when it has qrels and appears in the run (pytrec_eval's
  rule; trec_eval without -c); the mean is over the evaluated queries;
- ndcg gains are the grades (a negative grade gains 0, as in trec_eval), discount
  log2(rank + 1); the ideal ordering uses the positive grades of all judged
  documents (cut at K for ndcg_cut_K);
- ties="trec_eval" orders equal scores by document id descending (trec_eval's
  strcmp), ties="file" keeps run-file order among them.

Sums run in rank order, as trec_eval's loops do, so per-query values equal
pytrec_eval's to the last bit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Ties = Literal["file", "trec_eval"]

# Measures with a cutoff take it as name_K (pytrec_eval's output key) or name.K.
CUT_MEASURES = ("ndcg_cut", "P", "recall", "map_cut", "success")
PLAIN_MEASURES = ("ndcg", "map", "recip_rank", "Rprec", "num_ret", "num_rel", "num_rel_ret")
_CUT = re.compile(r"^(ndcg_cut|P|recall|map_cut|success)[._](\d+)$")


@dataclass(frozen=True)
class Measure:
    name: str  # the output key, e.g. "ndcg_cut_10"
    base: str
    cut: int | None


def parse_measures(spec: Iterable[str]) -> list[Measure]:
    """Comma-separated names; ValueError names an unknown one."""
    out: list[Measure] = []
    for raw in spec:
        for name in (p.strip() for p in raw.split(",")):
            if not name:
                continue
            m = _CUT.match(name)
            if m and int(m.group(2)) >= 1:
                meas = Measure(f"{m.group(1)}_{int(m.group(2))}", m.group(1), int(m.group(2)))
            elif name in PLAIN_MEASURES:
                meas = Measure(name, name, None)
            else:
                known = ", ".join([*PLAIN_MEASURES, *(f"{c}_K" for c in CUT_MEASURES)])
                raise ValueError(f"unknown measure {name!r} (known: {known})")
            if meas not in out:
                out.append(meas)
    if not out:
        raise ValueError("no measure given")
    return out


def _ideal(grades: Sequence[int], cut: int | None) -> float:
    total = 0.0
    for i, g in enumerate(sorted((g for g in grades if g > 0), reverse=True)):
        if cut is not None and i >= cut:
            break
        total += g / math.log2(i + 2)
    return total


def query_values(
    ranked: Sequence[int], judged: dict[str, int], measures: Sequence[Measure]
) -> dict[str, float]:
    """All measures of one query: `ranked` is the run's grades in rank order (0 = unjudged)."""
    num_rel = sum(1 for g in judged.values() if g >= 1)
    out: dict[str, float] = {}
    for m in measures:
        out[m.name] = _one(m, ranked, list(judged.values()), num_rel)
    return out


def _one(m: Measure, ranked: Sequence[int], judged: list[int], num_rel: int) -> float:
    depth = len(ranked) if m.cut is None else min(m.cut, len(ranked))
    if m.base in ("ndcg", "ndcg_cut"):
        dcg = 0.0
        for i in range(depth):
            if ranked[i] > 0:  # trec_eval gives negative grades no gain
                dcg += ranked[i] / math.log2(i + 2)
        ideal = _ideal(judged, m.cut)
        return dcg / ideal if ideal > 0 else 0.0
    rel_ret = sum(1 for g in ranked[:depth] if g >= 1)
    if m.base == "P":
        return rel_ret / m.cut  # type: ignore[operator]
    if m.base == "recall":
        return rel_ret / num_rel if num_rel else 0.0
    if m.base == "success":
        return 1.0 if rel_ret else 0.0
    if m.base in ("map", "map_cut"):
        total, seen = 0.0, 0
        for i in range(depth):
            if ranked[i] >= 1:
                seen += 1
                total += seen / (i + 1)
        return total / num_rel if num_rel else 0.0
    if m.base == "recip_rank":
        first = next((i for i, g in enumerate(ranked) if g >= 1), None)
        return 1.0 / (first + 1) if first is not None else 0.0
    if m.base == "Rprec":
        return sum(1 for g in ranked[:num_rel] if g >= 1) / num_rel if num_rel else 0.0
    if m.base == "num_ret":
        return float(len(ranked))
    if m.base == "num_rel":
        return float(num_rel)
    if m.base == "num_rel_ret":
        return float(sum(1 for g in ranked if g >= 1))
    raise ValueError(m.base)


def _judgments(qrels: Iterable[tuple[str, str, int]]) -> dict[str, dict[str, int]]:
    by_q: dict[str, dict[str, int]] = {}
    for q, d, g in qrels:
        by_q.setdefault(q, {})[d] = int(g)
    return by_q


def _rankings(run: Iterable[tuple[str, str, float]], ties: Ties) -> dict[str, list[str]]:
    rows: dict[str, list[tuple[float, str]]] = {}
    for q, d, s in run:
        rows.setdefault(q, []).append((float(s), d))
    out: dict[str, list[str]] = {}
    for q, docs in rows.items():
        if ties == "trec_eval":
            # score desc, then doc id desc: one reverse sort on the (score, doc) pair.
            docs.sort(reverse=True)
        else:
            docs.sort(key=lambda p: -p[0])  # stable: file order among equal scores
        out[q] = [d for _, d in docs]
    return out


@dataclass
class TrecScores:
    """One run's measures: per evaluated query and the mean over them."""

    per_query: dict[str, dict[str, float]]
    mean: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"queries": len(self.per_query), "mean": self.mean, "per_query": self.per_query}


def score_run(
    qrels: Iterable[tuple[str, str, int]],
    run: Iterable[tuple[str, str, float]],
    measures: Sequence[Measure],
    *,
    ties: Ties = "trec_eval",
    queries: set[str] | None = None,
) -> TrecScores:
    """Measures of one run; `queries` (when given) narrows the evaluated set further."""
    judged = _judgments(qrels)
    ranked = _rankings(run, ties)
    per_query: dict[str, dict[str, float]] = {}
    for q in sorted(set(judged) & set(ranked)):
        if queries is not None and q not in queries:
            continue
        grades = [judged[q].get(d, 0) for d in ranked[q]]
        per_query[q] = query_values(grades, judged[q], measures)
    mean: dict[str, float] = {}
    for m in measures:
        vals = [pq[m.name] for pq in per_query.values()]
        total = 0.0
        for v in vals:  # sequential, as trec_eval's "all" line
            total += v
        mean[m.name] = total / len(vals) if vals else 0.0
    return TrecScores(per_query=per_query, mean=mean)


@dataclass
class TrecReport:
    """`score trec`: the measures of every run under one qrels file and one tie rule."""

    qrels: str
    ties: str
    measures: list[str]
    runs: dict[str, TrecScores] = field(default_factory=dict)

    def to_json(self, per_query: bool = True) -> dict[str, Any]:
        runs = {}
        for tag, s in self.runs.items():
            j = s.to_json()
            if not per_query:
                j.pop("per_query")
            runs[tag] = j
        return {"qrels": self.qrels, "ties": self.ties, "measures": self.measures, "runs": runs}

    def to_text(self) -> str:
        head = f"trec_eval measures (ties: {self.ties}; qrels: {self.qrels})"
        width = max([len("run"), *(len(t) for t in self.runs)])
        cols = [f"{m:>12}" for m in self.measures]
        lines = [head, f"{'run':<{width}}  {'queries':>7}  " + "  ".join(cols)]
        for tag, s in self.runs.items():
            vals = "  ".join(f"{s.mean[m]:>12.4f}" for m in self.measures)
            lines.append(f"{tag:<{width}}  {len(s.per_query):>7}  {vals}")
        return "\n".join(lines)


@dataclass
class TrecImpact:
    """`score impact --trec-measures`: mean measures before and after a qrels revision."""

    ties: str
    measures: list[str]
    before: dict[str, TrecScores]
    after: dict[str, TrecScores]

    def to_json(self) -> dict[str, Any]:
        runs = {}
        for tag in self.before:
            b, a = self.before[tag].mean, self.after[tag].mean
            runs[tag] = {
                m: {"before": b[m], "after": a[m], "delta": a[m] - b[m]} for m in self.measures
            }
        return {"ties": self.ties, "measures": self.measures, "runs": runs}

    def to_text(self) -> str:
        lines = [f"trec_eval measures before -> after (ties: {self.ties})"]
        for tag in self.before:
            b, a = self.before[tag].mean, self.after[tag].mean
            cells = [f"{m} {b[m]:.4f} -> {a[m]:.4f} ({a[m] - b[m]:+.4f})" for m in self.measures]
            lines.append(f"  {tag}: " + "; ".join(cells))
        return "\n".join(lines)
