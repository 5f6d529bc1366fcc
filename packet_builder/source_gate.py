"""The per-source extraction gate ("Do Current Retrievers Cover All the Evidence?",
supplement, SourceShift: a pre-specified 98% per-source gate on extracted pages).

`ingest --source NAME` records, per document, the pages extracted (with non-blank
text) against the pages expected (the PDF's page count; MinerU's pdf_info or origin
PDF; 1 for a BEIR/TREC entry); a source's rate is the sum of one over the sum of the
other. `gate --apply` removes every failing source's documents and the queries whose
`source` is that source, with every qrels, graded-qrels, evidence and run row that
names them, and then every query that had a gold and has none left, in one
transaction, and appends what it removed to `gate_log` (printed by `gate --log`).
Nothing but a fresh `ingest` and `load` brings the rows back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from campaign import store
from campaign.project import Project, now_iso
from vocabulary.errors import InputError

EXTRACTION_DDL = (
    "CREATE TABLE IF NOT EXISTS extraction (doc_id VARCHAR PRIMARY KEY, source VARCHAR, "
    "pages_expected INTEGER, pages_extracted INTEGER, expected_from VARCHAR)"
)
LOG_DDL = (
    "CREATE TABLE IF NOT EXISTS gate_log (seq INTEGER, applied_at VARCHAR, min_rate DOUBLE, "
    "failing VARCHAR, removed VARCHAR)"
)
ExtractionRow = tuple[str, str, int, int, str]  # doc_id, source, expected, extracted, from


def record(con: Any, rows: Iterable[ExtractionRow]) -> None:
    """Replace the extraction rows of these documents (inside the ingest transaction)."""
    import pandas as pd

    df = pd.DataFrame(
        list(rows),
        columns=["doc_id", "source", "pages_expected", "pages_extracted", "expected_from"],
    )
    con.execute(EXTRACTION_DDL)
    if df.empty:
        return
    con.register("new_extraction", df)
    con.execute("DELETE FROM extraction WHERE doc_id IN (SELECT doc_id FROM new_extraction)")
    con.execute("INSERT INTO extraction SELECT * FROM new_extraction")
    con.unregister("new_extraction")


def _has(con: Any, table: str) -> bool:
    row = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [table]
    ).fetchone()
    return bool(row and row[0])


@dataclass
class SourceRate:
    source: str
    documents: int
    pages_expected: int
    pages_extracted: int
    passed: bool

    @property
    def rate(self) -> float | None:
        return self.pages_extracted / self.pages_expected if self.pages_expected else None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "documents": self.documents,
            "pages_expected": self.pages_expected,
            "pages_extracted": self.pages_extracted,
            "rate": self.rate,
            "passed": self.passed,
        }


@dataclass
class GateReport:
    min_rate: float
    sources: list[SourceRate]
    applied: bool = False
    removed: dict[str, Any] = field(default_factory=dict)

    @property
    def failing(self) -> list[str]:
        return [s.source for s in self.sources if not s.passed]

    def to_json(self) -> dict[str, Any]:
        overall_exp = sum(s.pages_expected for s in self.sources)
        overall_ext = sum(s.pages_extracted for s in self.sources)
        return {
            "min_rate": self.min_rate,
            "overall": {
                "pages_expected": overall_exp,
                "pages_extracted": overall_ext,
                "rate": overall_ext / overall_exp if overall_exp else None,
            },
            "sources": [s.to_json() for s in self.sources],
            "failing": self.failing,
            "applied": self.applied,
            "removed": self.removed,
        }


def rates(con: Any, min_rate: float) -> list[SourceRate]:
    if not _has(con, "extraction"):
        return []
    rows = con.execute(
        "SELECT source, count(*), sum(pages_expected), sum(pages_extracted) FROM extraction "
        "GROUP BY source ORDER BY source"
    ).fetchall()
    out = []
    for source, docs, expected, extracted in rows:
        exp, ext = int(expected or 0), int(extracted or 0)
        # Exact: 98/100 passes a 0.98 gate whatever the float rounding of either side.
        passed = exp > 0 and Fraction(ext, exp) >= Fraction(str(min_rate))
        out.append(SourceRate(str(source), int(docs), exp, ext, passed))
    return out


def _removal(con: Any, sources: list[str]) -> dict[str, list[list[Any]]]:
    """Every row the gate removes, computed inside the transaction (before deleting)."""
    con.execute("CREATE TEMP TABLE gate_src AS SELECT unnest(?::VARCHAR[]) AS source", [sources])
    con.execute(
        "CREATE TEMP TABLE gate_docs AS SELECT doc_id FROM extraction WHERE source IN "
        "(SELECT source FROM gate_src)"
    )
    con.execute(
        "CREATE TEMP TABLE gate_q AS SELECT query_id, 'source' AS why FROM queries "
        "WHERE source IN (SELECT source FROM gate_src)"
    )
    # A query that had a gold and keeps none once the removed documents are gone.
    con.execute(
        "INSERT INTO gate_q SELECT q.query_id, 'no gold left' FROM queries q "
        "WHERE q.query_id NOT IN (SELECT query_id FROM gate_q) "
        "AND EXISTS (SELECT 1 FROM qrels r WHERE r.query_id = q.query_id AND r.grade = q.n) "
        "AND NOT EXISTS (SELECT 1 FROM qrels r WHERE r.query_id = q.query_id AND r.grade = q.n "
        "AND r.doc_id NOT IN (SELECT doc_id FROM gate_docs))"
    )
    hit = "query_id IN (SELECT query_id FROM gate_q) OR doc_id IN (SELECT doc_id FROM gate_docs)"
    tables = {
        "queries": "SELECT query_id, why FROM gate_q ORDER BY ALL",
        "documents": "SELECT doc_id FROM gate_docs ORDER BY ALL",
        "qrels": f"SELECT query_id, doc_id, grade FROM qrels WHERE {hit} ORDER BY ALL",
        "evidence": f"SELECT * FROM evidence WHERE {hit} ORDER BY ALL",
        "runs": f"SELECT run_name, query_id, doc_id, rank FROM runs WHERE {hit} ORDER BY ALL",
    }
    if _has(con, "graded_qrels"):
        tables["graded_qrels"] = f"SELECT * FROM graded_qrels WHERE {hit} ORDER BY ALL"
    return {k: [list(r) for r in con.execute(sql).fetchall()] for k, sql in tables.items()}


def _delete(con: Any) -> None:
    hit = "query_id IN (SELECT query_id FROM gate_q) OR doc_id IN (SELECT doc_id FROM gate_docs)"
    for table in ("qrels", "evidence", "runs"):
        con.execute(f"DELETE FROM {table} WHERE {hit}")
    if _has(con, "graded_qrels"):
        con.execute(f"DELETE FROM graded_qrels WHERE {hit}")
    con.execute("DELETE FROM conditions WHERE query_id IN (SELECT query_id FROM gate_q)")
    con.execute("DELETE FROM queries WHERE query_id IN (SELECT query_id FROM gate_q)")
    con.execute("DELETE FROM pages WHERE doc_id IN (SELECT doc_id FROM gate_docs)")
    con.execute("DELETE FROM documents WHERE doc_id IN (SELECT doc_id FROM gate_docs)")
    con.execute("DELETE FROM extraction WHERE doc_id IN (SELECT doc_id FROM gate_docs)")


def gate(project: Project, min_rate: float, apply: bool = False) -> GateReport:
    if not 0 <= min_rate <= 1:
        raise InputError(f"--min-rate {min_rate} must be within 0..1", hint="e.g. 0.98")
    with store.connect(project.store_path, read_only=True) as con:
        report = GateReport(min_rate, rates(con, min_rate))
    if not report.sources:
        raise InputError(
            "no extraction records", file=project.store_path,
            hint="ingest the corpus with this evaudit (`ingest --source NAME ...`)",
        )  # fmt: skip
    if not apply or not report.failing:
        return report
    with store.transaction(project.store_path) as con:
        removed = _removal(con, report.failing)
        _delete(con)
        con.execute(LOG_DDL)
        row = con.execute("SELECT coalesce(max(seq), 0) + 1 FROM gate_log").fetchone()
        seq = int(row[0]) if row else 1
        summary = {"failing": [s.to_json() for s in report.sources if not s.passed]}
        con.execute(
            "INSERT INTO gate_log VALUES (?, ?, ?, ?, ?)",
            [seq, now_iso(), min_rate, json.dumps(summary), json.dumps(removed)],
        )
        for t in ("gate_src", "gate_docs", "gate_q"):
            con.execute(f"DROP TABLE {t}")
    report.applied = True
    report.removed = {
        "counts": {k: len(v) for k, v in removed.items()},
        "queries": [{"query_id": q, "why": why} for q, why in removed["queries"]],
        "documents": [d for (d,) in removed["documents"]],
    }
    return report


def log(project: Project) -> list[dict[str, Any]]:
    """Every applied gate, oldest first, with the rows it removed."""
    with store.connect(project.store_path, read_only=True) as con:
        if not _has(con, "gate_log"):
            return []
        rows = con.execute(
            "SELECT seq, applied_at, min_rate, failing, removed FROM gate_log ORDER BY seq"
        ).fetchall()
    return [
        {
            "seq": seq,
            "applied_at": at,
            "min_rate": rate,
            **json.loads(failing),
            "removed": json.loads(removed),
        }
        for seq, at, rate, failing, removed in rows
    ]
