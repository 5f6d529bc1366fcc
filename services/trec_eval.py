"""`evaudit trec_eval`: trec_eval's own command line, output and measures.

Reads TREC qrels and one TREC run as trec_eval does (`#` comment and blank lines
skipped, text after a run line's tag ignored), scores them with `scorers.trec_measures`
and renders trec_eval's three columns: the measure name padded to 22 characters, the
query id or `all`, and the value (integers for counts, 4 decimals otherwise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorers.trec_catalog import NOT_OFFERED
from vocabulary.errors import InputError

__all__ = ["NOT_OFFERED", "trec_eval"]  # NOT_OFFERED: the command's --help names them


@dataclass(frozen=True)
class TrecEvalReport:
    """One run under one qrels file, as trec_eval prints it."""

    measures: list[Any]  # scorers.trec_catalog.Measure, in trec_eval's print order
    scores: Any  # scorers.trec_measures.TrecScores
    query_flag: bool
    summary_flag: bool = True

    def rows(self) -> list[tuple[str, str, str]]:
        """(printed name, query id or "all", value text) per output line."""
        from scorers.trec_catalog import SUMMARY_ONLY

        s = self.scores
        out: list[tuple[str, str, str]] = []
        if self.query_flag:
            for i, q in enumerate(s.qids):
                for m in self.measures:
                    if m.base in SUMMARY_ONLY:
                        continue
                    if m.base == "relstring":
                        out.append((m.name, q, f"'{s.texts[m.name][i]}'"))
                    else:
                        out.append((m.name, q, _value(m, float(s.values[m.name][i]))))
        if self.summary_flag:
            for m in self.measures:
                if m.base == "runid":
                    out.append(("runid", "all", s.runid))
                elif m.base != "relstring":
                    out.append((m.name, "all", _value(m, s.mean[m.name])))
        return out

    def table(self) -> str:
        return "\n".join(f"{n:<22}\t{q}\t{v}" for n, q, v in self.rows())

    def to_json(self) -> dict[str, Any]:
        s = self.scores
        out: dict[str, Any] = {"runid": s.runid, "queries": len(s.qids), "all": s.mean}
        if self.query_flag:
            pq = s.per_query
            for name, texts in s.texts.items():
                for i, q in enumerate(s.qids):
                    pq[q][name] = texts[i]
            out["per_query"] = pq
        return out


def _value(m: Any, v: float) -> str:
    if m.is_count:
        return str(int(v))
    if math.isnan(v):
        return "-nan"  # what C's printf shows for trec_eval's 0/0
    return f"{v:6.4f}"


def score_run_file(bound: Any, run: Path, measures: Any, opts: Any,
                   queries: set[str] | None = None, name: str = "") -> Any:  # fmt: skip
    """One run file against bound qrels: Arrow's reader for a clean file (its repeated
    documents found by the engine), the checked reader (file:line errors) otherwise."""
    from formats.trec_lines import arrow_run
    from scorers.trec_engine import DuplicateDocs
    from scorers.trec_measures import score_arrays

    rcols = arrow_run(run, duplicates=False)
    if rcols is not None:
        qids, dids, scores, tag = rcols
        try:
            return score_arrays(bound, qids, dids, scores, measures, opts,
                                queries=queries, runid=name or tag)  # fmt: skip
        except DuplicateDocs:
            pass  # the checked reader names the line
    from formats.run_files import read_run_columns

    qids, dids, scores, tag = read_run_columns(run)
    return score_arrays(bound, qids, dids, scores, measures, opts, queries=queries,
                        runid=name or tag)  # fmt: skip


def trec_eval(
    qrels: Path, run: Path, *, measures: tuple[str, ...] = (), query_flag: bool = False,
    complete: bool = False, max_docs: int | None = None, level: int = 1,
    judged_only: bool = False, num_docs: int = 0, summary_flag: bool = True,
    score_precision: str = "float64",
) -> TrecEvalReport:  # fmt: skip
    """trec_eval's evaluation of one run (its flags: -q -c -M -l -J -N -n -m)."""
    import numpy as np

    from formats.qrels import qrels_columns
    from scorers.trec_catalog import requests, resolve
    from scorers.trec_measures import Options, bind_qrels

    try:
        ms = resolve(requests(measures or ("official",)), trec_eval=True)
    except ValueError as exc:
        raise InputError(str(exc), hint="e.g. -m official, -m all_trec, -m P.5,10") from None
    if not query_flag:  # relstring prints only per query
        ms = [m for m in ms if m.base != "relstring"]
    # Clean files take Arrow's reader and never load pandas (a process per run, as
    # trec_eval is used, pays for every import); anything else the checked readers.
    cols = qrels_columns(qrels)  # Arrow's columns, or a frame: the grades as numpy either way
    bound = bind_qrels(cols["query_id"], cols["doc_id"], np.asarray(cols["grade"]))
    opts = Options(
        level=level, complete=complete, max_docs=max_docs, judged_only=judged_only,
        num_docs=num_docs, precision=score_precision,  # type: ignore[arg-type]
    )  # fmt: skip
    scored = score_run_file(bound, run, ms, opts)
    if not scored.qids:
        raise InputError(
            "no queries with both results and relevance info",
            file=run,
            hint=f"the run's query ids must appear in {qrels.name}",
        )
    return TrecEvalReport(ms, scored, query_flag, summary_flag)
