"""Page-level runs in `score nclue`: documents ranked by their pages, and Gold+Support.

A run whose every docno is DOC_ID#PAGE (docs/formats.md), none of them a qrels
document id, is page-level: n-Clue, Gold Hit and NDCG score its document ranking
(`--page-aggregate`: each document at its best page, MaxSim, or at the mean of its K
best pages, the supplement's ptop3 for K = 3; scorers/page_aggregate.py), not `doc#page`
as documents, and Gold+Support@k (Table S5b of "Do Current Retrievers Cover All the
Evidence?" supplement) is reported next to Gold Hit through the one implementation
`runs support` uses (scorers.gold_support.run_support).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vocabulary.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from scorers.gold_support import SupportReport


class PageRuns:
    """Collects the page-level runs `score_run_files` reads (from its worker threads)."""

    def __init__(self, qrel_docs: set[str], top: int = 1) -> None:
        self.qrel_docs = qrel_docs
        self.top = top  # pages averaged per document (1 = the best page, MaxSim)
        self.runs: dict[Path, tuple[list[str], list[str], list[int], Any]] = {}
        # each page-level run's document order per query (Gold+Support follows it)
        self.order: dict[Path, dict[str, list[str]]] = {}
        self._lock = threading.Lock()

    def collapse(self, path: Path, df: pd.DataFrame) -> pd.DataFrame:
        """The run as scored: a page-level run becomes its document run, else unchanged."""
        from formats.run_files import is_page_run, split_page_ids
        from scorers.page_aggregate import aggregate_pages

        if not is_page_run(df["doc_id"]) or df["doc_id"].isin(self.qrel_docs).any():
            return df
        docs, pages = split_page_ids(df["doc_id"].to_numpy(), str(path))
        qids = df["query_id"].tolist()
        scores = df["score"].to_numpy()
        keep, agg = aggregate_pages(qids, docs.tolist(), scores, self.top)
        order: dict[str, list[str]] = {}
        for i in keep:
            order.setdefault(qids[i], []).append(str(docs[i]))
        with self._lock:
            self.runs[path] = (qids, docs.tolist(), pages.tolist(), scores)
            self.order[path] = order
        out = df.iloc[keep].reset_index(drop=True)
        out["doc_id"] = docs[keep]
        out["score"] = agg
        return out


def _conditions_and_evidence(
    queries: Path | None, project: Path | None, evidence: Path | None
) -> tuple[dict[str, list[str]], dict[tuple[str, str, str], set[int]]]:
    from formats.readers import read_evidence, read_queries

    ev: dict[tuple[str, str, str], set[int]] = {}
    if queries is not None:
        conditions = {
            q.query_id: [c.condition_id for c in q.conditions] for q in read_queries(queries)
        }
    else:
        from campaign import store
        from campaign.project import open_project

        assert project is not None
        with store.connect(open_project(project).store_path, read_only=True) as con:
            conditions = {}
            for row in store.condition_rows(con):
                conditions.setdefault(str(row[0]), []).append(str(row[1]))
            if evidence is None:
                for q, d, c, p in store.evidence_rows(con):
                    ev.setdefault((str(q), str(d), str(c)), set()).add(int(p))
    if evidence is not None:
        for _, e in read_evidence(evidence):
            ev.setdefault((e.query_id, e.doc_id, e.condition_id), set()).update(e.pages)
    return conditions, ev


def support_report(
    page_runs: PageRuns, tagged: list[tuple[str, Path]], frame: pd.DataFrame,
    nmap: dict[str, int], *, queries: Path | None, project: Path | None,
    evidence: Path | None, k: int, pages: int,
) -> SupportReport | None:  # fmt: skip
    """Gold+Support@k of the page-level runs among ``tagged`` (run name, file), or None."""
    from scorers.gold_support import SupportReport, gold_support, page_sets, run_support

    found = [(tag, path) for tag, path in tagged if path in page_runs.runs]
    if not found:
        return None
    if evidence is None and project is None:
        raise InputError(f"{found[0][1]} is a page-level run: Gold+Support needs the stored "
                         "evidence", hint="pass --evidence evidence.jsonl or --project DIR")  # fmt: skip
    conditions, ev = _conditions_and_evidence(queries, project, evidence)
    conditions = {q: conditions.get(q, []) for q in nmap}  # the scored query set
    gold: dict[str, set[str]] = {}
    for q, d, g in zip(frame["query_id"], frame["doc_id"], frame["grade"], strict=True):
        if q in nmap and g == nmap[q]:
            gold.setdefault(q, set()).add(d)
    scores = {}
    for tag, path in found:
        if page_runs.top == 1:
            scores[tag] = run_support(*page_runs.runs[path], conditions, gold, ev, k=k,
                                      pages=pages)  # fmt: skip
            continue
        # mean of the top pages: the documents in the aggregated order the run was scored in
        ranked = {q: sorted(docs, key=_position(page_runs.order[path].get(q, [])))
                  for q, docs in page_sets(*page_runs.runs[path], pages).items()}  # fmt: skip
        scores[tag] = gold_support(ranked, conditions, gold, ev, k=k)
    return SupportReport(k, pages, len(conditions), scores)


def _position(order: list[str]) -> Any:
    at = {d: i for i, d in enumerate(order)}
    return lambda item: at.get(item[0], len(at))


def support_text(rep: SupportReport, top: int = 1) -> str:
    from vocabulary.tables import table

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{100 * v:.1f}"

    rows = [(name, pct(s.gold_hit), pct(s.gold_support), pct(s.condition_coverage),
             pct(s.all_condition_coverage)) for name, s in rep.runs.items()]  # fmt: skip
    how = "best page" if top == 1 else f"mean of their {top} best pages"
    head = (f"Page-level runs (documents ranked by their {how}): Gold+Support@{rep.k}, "
            f"{rep.pages} pages per retrieved gold, {rep.queries} queries")  # fmt: skip
    return head + "\n" + table(rows, ["run", "Gold Hit", "Gold+Support", "cond. coverage | gold",
                                      "all-cond. coverage | gold"])  # fmt: skip
