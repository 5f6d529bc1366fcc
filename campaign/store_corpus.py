"""The store's SQL for the corpus: `evaudit ingest` (documents, pages, extraction records)
and the per-source extraction gate (`gate`, `gate --apply`, `gate --log`).

Part of the store (docs/architecture.md): packet_builder's ingest and gate modules build
the rows and decide; these functions run the statements inside the caller's connection or
transaction, so an ingest batch and a gate stay all-or-nothing."""

from __future__ import annotations

from typing import Any

from campaign.store import Connection

EXTRACTION_DDL = (
    "CREATE TABLE IF NOT EXISTS extraction (doc_id VARCHAR PRIMARY KEY, source VARCHAR, "
    "pages_expected INTEGER, pages_extracted INTEGER, expected_from VARCHAR)"
)
LOG_DDL = (
    "CREATE TABLE IF NOT EXISTS gate_log (seq INTEGER, applied_at VARCHAR, min_rate DOUBLE, "
    "failing VARCHAR, removed VARCHAR)"
)


def document_hashes(con: Connection) -> dict[str, str]:
    """doc_id -> sha256 of every ingested document."""
    return dict(con.execute("SELECT doc_id, sha256 FROM documents").fetchall())


def replace_documents(con: Connection, docs: Any, pages: Any) -> None:
    """Replace these documents and their pages (frames in the tables' column order)."""
    con.register("new_docs", docs)
    con.register("new_pages", pages)
    con.execute("DELETE FROM pages WHERE doc_id IN (SELECT doc_id FROM new_docs)")
    con.execute("DELETE FROM documents WHERE doc_id IN (SELECT doc_id FROM new_docs)")
    con.execute("INSERT INTO documents SELECT * FROM new_docs")
    con.execute("INSERT INTO pages SELECT * FROM new_pages")
    con.unregister("new_docs")
    con.unregister("new_pages")


def replace_extraction(con: Connection, rows: Any) -> None:
    """Replace the extraction rows of these documents (a frame; the table is created on
    first use, also when the frame is empty)."""
    con.execute(EXTRACTION_DDL)
    if rows.empty:
        return
    con.register("new_extraction", rows)
    con.execute("DELETE FROM extraction WHERE doc_id IN (SELECT doc_id FROM new_extraction)")
    con.execute("INSERT INTO extraction SELECT * FROM new_extraction")
    con.unregister("new_extraction")


def replace_corpus_tables(con: Connection, docs: Any, pages: Any, extraction: Any) -> None:
    """The BEIR fast path: replace documents, pages and extraction rows from Arrow tables,
    one table after the other, keyed by doc_id."""
    con.execute(EXTRACTION_DDL)
    for name, tbl in (("documents", docs), ("pages", pages), ("extraction", extraction)):
        con.register("new_rows", tbl)
        con.execute(f"DELETE FROM {name} WHERE doc_id IN (SELECT doc_id FROM new_rows)")
        con.execute(f"INSERT INTO {name} SELECT * FROM new_rows")
        con.unregister("new_rows")


def has_table(con: Connection, table: str) -> bool:
    row = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [table]
    ).fetchone()
    return bool(row and row[0])


SKIPPED_SUFFIX = "(skipped)"  # expected_from of a file that gave no document ("pdf (skipped)")


def page_totals(con: Connection) -> list[tuple[Any, ...]]:
    """(source, documents, documents skipped, pages expected, pages stored, pages
    extracted, pages of skipped files) by source; [] before any extraction record.
    Stored pages are the pages table's rows of the source's documents (blank ones too)."""
    if not has_table(con, "extraction"):
        return []
    return con.execute(
        "WITH stored AS (SELECT doc_id, count(*) AS n FROM pages GROUP BY doc_id), "
        "e AS (SELECT *, expected_from LIKE ? AS skipped FROM extraction) "
        "SELECT e.source, count(*) FILTER (WHERE NOT skipped), count(*) FILTER (WHERE skipped), "
        "sum(e.pages_expected), sum(CASE WHEN skipped THEN 0 ELSE coalesce(stored.n, 0) END), "
        "sum(e.pages_extracted), sum(CASE WHEN skipped THEN e.pages_expected ELSE 0 END) "
        "FROM e LEFT JOIN stored USING (doc_id) GROUP BY e.source ORDER BY e.source",
        [f"%{SKIPPED_SUFFIX}"],
    ).fetchall()


_HIT = "query_id IN (SELECT query_id FROM gate_q) OR doc_id IN (SELECT doc_id FROM gate_docs)"


def gate_removal(con: Connection, sources: list[str]) -> dict[str, list[list[Any]]]:
    """Every row the gate removes, computed inside the transaction (before deleting), kept
    in temp tables gate_src/gate_docs/gate_q for `gate_delete`."""
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
    tables = {
        "queries": "SELECT query_id, why FROM gate_q ORDER BY ALL",
        "documents": "SELECT doc_id FROM gate_docs ORDER BY ALL",
        "qrels": f"SELECT query_id, doc_id, grade FROM qrels WHERE {_HIT} ORDER BY ALL",
        "evidence": f"SELECT * FROM evidence WHERE {_HIT} ORDER BY ALL",
        "runs": f"SELECT run_name, query_id, doc_id, rank FROM runs WHERE {_HIT} ORDER BY ALL",
    }
    if has_table(con, "graded_qrels"):
        tables["graded_qrels"] = f"SELECT * FROM graded_qrels WHERE {_HIT} ORDER BY ALL"
    return {k: [list(r) for r in con.execute(sql).fetchall()] for k, sql in tables.items()}


def gate_delete(con: Connection) -> None:
    """Delete what `gate_removal` found."""
    for table in ("qrels", "evidence", "runs"):
        con.execute(f"DELETE FROM {table} WHERE {_HIT}")
    if has_table(con, "graded_qrels"):
        con.execute(f"DELETE FROM graded_qrels WHERE {_HIT}")
    con.execute("DELETE FROM conditions WHERE query_id IN (SELECT query_id FROM gate_q)")
    con.execute("DELETE FROM queries WHERE query_id IN (SELECT query_id FROM gate_q)")
    con.execute("DELETE FROM pages WHERE doc_id IN (SELECT doc_id FROM gate_docs)")
    con.execute("DELETE FROM documents WHERE doc_id IN (SELECT doc_id FROM gate_docs)")
    con.execute("DELETE FROM extraction WHERE doc_id IN (SELECT doc_id FROM gate_docs)")


def append_gate_log(
    con: Connection, applied_at: str, min_rate: float, failing: str, removed: str
) -> None:
    """Append one applied gate (JSON texts) to gate_log and drop the gate's temp tables."""
    con.execute(LOG_DDL)
    row = con.execute("SELECT coalesce(max(seq), 0) + 1 FROM gate_log").fetchone()
    seq = int(row[0]) if row else 1
    con.execute(
        "INSERT INTO gate_log VALUES (?, ?, ?, ?, ?)", [seq, applied_at, min_rate, failing, removed]
    )
    for t in ("gate_src", "gate_docs", "gate_q"):
        con.execute(f"DROP TABLE {t}")


def gate_log_rows(con: Connection) -> list[tuple[Any, ...]]:
    """(seq, applied_at, min_rate, failing, removed) oldest first; [] before any gate."""
    if not has_table(con, "gate_log"):
        return []
    return con.execute(
        "SELECT seq, applied_at, min_rate, failing, removed FROM gate_log ORDER BY seq"
    ).fetchall()


OCR_DDL = (
    "CREATE TABLE IF NOT EXISTS page_ocr (doc_id VARCHAR, page INTEGER, engine VARCHAR, "
    "version VARCHAR, lang VARCHAR, confidence DOUBLE, words INTEGER, "
    "PRIMARY KEY (doc_id, page))"
)


def replace_page_ocr(con: Connection, doc_ids: list[str], rows: Any) -> None:
    """Replace the OCR provenance of these documents' pages (a re-ingested document keeps
    none of its old rows; a frame in the table's column order)."""
    con.execute(OCR_DDL)
    con.execute("DELETE FROM page_ocr WHERE doc_id IN (SELECT unnest(?::VARCHAR[]))", [doc_ids])
    if rows.empty:
        return
    con.register("new_ocr", rows)
    con.execute("INSERT INTO page_ocr SELECT * FROM new_ocr")
    con.unregister("new_ocr")


def ocr_totals(con: Connection) -> dict[str, int]:
    """source -> pages whose text OCR made (at least one word), for the extraction gate."""
    if not (has_table(con, "page_ocr") and has_table(con, "extraction")):
        return {}
    rows = con.execute(
        "SELECT e.source, count(*) FROM page_ocr o JOIN extraction e USING (doc_id) "
        "WHERE o.words > 0 GROUP BY e.source"
    ).fetchall()
    return {str(src): int(n) for src, n in rows}


def page_ocr_rows(con: Connection) -> list[tuple[Any, ...]]:
    """(doc_id, page, engine, version, lang, confidence, words) of every OCR page."""
    if not has_table(con, "page_ocr"):
        return []
    return con.execute("SELECT * FROM page_ocr ORDER BY doc_id, page").fetchall()


def docs_without_ocr(con: Connection, *, every_page: bool) -> set[str]:
    """Documents with a page OCR has not read: a blank page (or, `every_page`, any page)
    without a page_ocr row. An ingest with OCR reads them again although unchanged."""
    blank = "" if every_page else "AND length(trim(coalesce(p.text, ''))) = 0 "
    read = (
        "AND NOT EXISTS (SELECT 1 FROM page_ocr o WHERE o.doc_id = p.doc_id AND o.page = p.page)"
        if has_table(con, "page_ocr")
        else ""
    )
    rows = con.execute(
        "SELECT DISTINCT p.doc_id FROM pages p JOIN documents d USING (doc_id) "
        "WHERE d.kind = 'pdf' " + blank + read
    ).fetchall()
    return {str(r[0]) for r in rows}
