"""trec_eval's measures on graded qrels (`evaudit score trec`, `evaudit trec_eval`,
`score impact --trec-measures`): names, per-query values and trec_eval's "all" line.

Pure. The measures and their parameters are `scorers.trec_catalog`'s, the ranking
`scorers.trec_engine`'s, the values `scorers.trec_compute`'s, all following trec_eval
10: a document is relevant when its grade is >= the relevance level (-l, default 1);
equal scores are ordered by docno descending; queries without qrels are ignored, and
queries with qrels but no ranking too unless `complete` (-c). The "all" line is
trec_eval's: sums for num_ret, num_rel, num_rel_ret and num_nonrel_judged_ret, the
count of queries for num_q, geometric means for gm_map and gm_bpref, means otherwise,
added in query order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from scorers.arrow_np import take
from scorers.trec_catalog import (
    COUNTS,
    GEOMETRIC,
    NICKNAMES,
    TEXT,
    Measure,
    requests,
    resolve,
    split_list,
)
from scorers.trec_compute import evaluate
from scorers.trec_engine import Options, Ties, TrecQrels, _strings, bind_qrels, rank_run

__all__ = [
    "Measure",
    "Options",
    "TrecImpact",
    "TrecQrels",
    "TrecReport",
    "TrecScores",
    "bind_qrels",
    "parse_measures",
    "score_arrays",
    "score_run",
    "summary",
]


def parse_measures(spec: Iterable[str]) -> list[Measure]:
    """Comma-separated names in any of trec_eval's forms, in the order given; ValueError
    names an unknown one. Text measures (runid, relstring) are left to `trec_eval`."""
    reqs = requests(split_list(spec))
    for name, _ in reqs:
        if name in TEXT:
            raise ValueError(f"{name} is text, not a number: see `evaudit trec_eval -q`")
    out = [m for m in resolve(reqs, trec_eval=False) if m.base not in TEXT]
    if not out:
        raise ValueError("no measure given")
    return out


def summary(
    values: dict[str, np.ndarray], measures: Sequence[Measure], qrels: TrecQrels, opts: Options
) -> dict[str, float]:
    """trec_eval's "all" value of every numeric measure (see the module docstring)."""
    out: dict[str, float] = {}
    for m in measures:
        if m.name not in values:
            continue
        v = values[m.name]
        n = len(v)
        total = float(np.cumsum(v)[-1]) if n else 0.0  # added in query order
        if m.base == "num_q":
            out[m.name] = float(n)
        elif m.base == "num_rel" and opts.complete:
            out[m.name] = float(qrels.positive_grades())  # trec_eval: grades > 0, any -l
        elif m.base in COUNTS:
            out[m.name] = total
        elif m.base in GEOMETRIC:
            out[m.name] = float(np.exp(total / n)) if n else 0.0
        else:
            out[m.name] = total / n if n else 0.0
    return out


@dataclass
class TrecScores:
    """One run's measures: per evaluated query (strcmp order) and trec_eval's "all" line."""

    qids: list[str]
    values: dict[str, np.ndarray]
    mean: dict[str, float]
    texts: dict[str, list[str]] = field(default_factory=dict)
    runid: str = ""

    @cached_property
    def per_query(self) -> dict[str, dict[str, float]]:
        cols = {k: v.tolist() for k, v in self.values.items() if k not in _PER_QUERY_HIDDEN}
        return {q: {k: col[i] for k, col in cols.items()} for i, q in enumerate(self.qids)}

    def to_json(self, per_query: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": len(self.qids), "mean": self.mean}
        if per_query:  # built only when printed: it is a Python dict per query and measure
            out["per_query"] = self.per_query
        return out


_PER_QUERY_HIDDEN = frozenset({"num_q", "gm_map", "gm_bpref"})


def score_arrays(
    qrels: TrecQrels, query_ids: Any, doc_ids: Any, scores: Any,
    measures: Sequence[Measure], opts: Options | None = None,
    *, queries: set[str] | None = None, runid: str = "",
) -> TrecScores:  # fmt: skip
    """Measures of one run given as arrays, against qrels bound once (`bind_qrels`)."""
    opts = opts or Options()
    if queries is not None:
        import pyarrow as pa
        import pyarrow.compute as pc

        qa = _strings(query_ids)
        keep = pc.is_in(qa, value_set=pa.array(sorted(queries), type=pa.string()))
        query_ids, doc_ids = qa.filter(keep), _strings(doc_ids).filter(keep)
        scores = np.asarray(scores, dtype=np.float64)[keep.to_numpy(zero_copy_only=False)]
    rk = rank_run(qrels, query_ids, doc_ids, scores, opts)
    values, texts = evaluate(qrels, rk, measures, opts)
    qids = take(qrels.qids, rk.eq).to_pylist() if len(rk.eq) else []
    return TrecScores(qids, values, summary(values, measures, qrels, opts), texts, runid)


def score_run(
    qrels: Iterable[tuple[str, str, int]],
    run: Iterable[tuple[str, str, float]],
    measures: Sequence[Measure],
    *,
    ties: Ties = "trec_eval",
    queries: set[str] | None = None,
    options: Options | None = None,
) -> TrecScores:
    """Measures of one run from (query, doc, grade) and (query, doc, score) rows;
    `queries` (when given) narrows the evaluated set further."""
    qrows = list(qrels)
    rrows = list(run)
    bound = bind_qrels([r[0] for r in qrows], [r[1] for r in qrows], [int(r[2]) for r in qrows])
    opts = Options(ties=ties) if options is None else replace(options, ties=ties)
    return score_arrays(
        bound, [r[0] for r in rrows], [r[1] for r in rrows], [float(r[2]) for r in rrows],
        measures, opts, queries=queries,
    )  # fmt: skip


def nickname_names() -> tuple[str, ...]:
    return tuple(NICKNAMES)


@dataclass
class TrecReport:
    """`score trec`: the measures of every run under one qrels file and one tie rule."""

    qrels: str
    ties: str
    measures: list[str]
    runs: dict[str, TrecScores] = field(default_factory=dict)
    score_precision: str = "float64"
    flags: dict[str, Any] = field(default_factory=dict)  # trec_eval's -c -l -J -M, when given

    def to_json(self, per_query: bool = True) -> dict[str, Any]:
        runs = {}
        for tag, s in self.runs.items():
            runs[tag] = s.to_json(per_query)
        out = {"qrels": self.qrels, "ties": self.ties, "score_precision": self.score_precision,
               "measures": self.measures, "runs": runs}  # fmt: skip
        if self.flags:  # only when given, so the default output stays as it was
            out["trec_eval_flags"] = self.flags
        return out

    def to_text(self) -> str:
        flags = "".join(f"; -{k}" + ("" if v is True else f" {v}") for k, v in self.flags.items())
        head = (f"trec_eval measures (ties: {self.ties}; scores: {self.score_precision}{flags}; "
                f"qrels: {self.qrels})")  # fmt: skip
        width = max([len("run"), *(len(t) for t in self.runs)])
        cols = [f"{m:>12}" for m in self.measures]
        lines = [head, f"{'run':<{width}}  {'queries':>7}  " + "  ".join(cols)]
        for tag, s in self.runs.items():
            vals = "  ".join(f"{s.mean[m]:>12.4f}" for m in self.measures)
            lines.append(f"{tag:<{width}}  {len(s.qids):>7}  {vals}")
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
