"""The DuckDB campaign store (`audit.duckdb`): schema, versioning, connections.

DuckDB allows one writing process per file, so writers hold the connection
only for one transaction; readers open read-only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from vocabulary.errors import InputError

SCHEMA_VERSION = 1

# The connection type other modules name in hints (they never import duckdb themselves).
Connection = duckdb.DuckDBPyConnection

DDL = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS documents (
    doc_id VARCHAR PRIMARY KEY, source_path VARCHAR, kind VARCHAR, sha256 VARCHAR,
    n_pages INTEGER, ingested_at VARCHAR);
CREATE TABLE IF NOT EXISTS pages (
    doc_id VARCHAR, page INTEGER, text VARCHAR, n_chars INTEGER, PRIMARY KEY (doc_id, page));
CREATE TABLE IF NOT EXISTS queries (
    query_id VARCHAR PRIMARY KEY, text VARCHAR, release VARCHAR, source VARCHAR, n INTEGER,
    position INTEGER);
CREATE TABLE IF NOT EXISTS conditions (
    query_id VARCHAR, condition_id VARCHAR, position INTEGER, name VARCHAR, requirement VARCHAR,
    counts VARCHAR, does_not_count VARCHAR, note VARCHAR, aliases VARCHAR,
    PRIMARY KEY (query_id, condition_id));
CREATE TABLE IF NOT EXISTS qrels (
    query_id VARCHAR, doc_id VARCHAR, grade INTEGER, PRIMARY KEY (query_id, doc_id));
CREATE TABLE IF NOT EXISTS evidence (
    query_id VARCHAR, doc_id VARCHAR, condition_id VARCHAR, page INTEGER);
CREATE TABLE IF NOT EXISTS runs (
    run_name VARCHAR, query_id VARCHAR, doc_id VARCHAR, rank INTEGER, score DOUBLE, tag VARCHAR,
    position INTEGER);
CREATE TABLE IF NOT EXISTS packets (
    name VARCHAR PRIMARY KEY, kind VARCHAR, path VARCHAR, sha256 VARCHAR, key_path VARCHAR,
    key_sha256 VARCHAR, created_at VARCHAR, n_items INTEGER, params VARCHAR);
"""


def create(path: Path) -> None:
    """A new store, 0600: DuckDB creates the file itself with the umask's mode, so it is
    narrowed at once (the project folder is already 0700, so no one else saw it meanwhile).
    Its write-ahead log appears and goes next to it, inside that same private folder."""
    con = duckdb.connect(str(path))
    os.chmod(path, 0o600)
    try:
        con.execute("BEGIN")
        con.execute(DDL)
        con.execute("INSERT INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
        con.execute("COMMIT")
    finally:
        con.close()


@contextmanager
def connect(path: Path, *, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the store, checking its schema version; closes on exit."""
    if not path.is_file():
        raise InputError("campaign store not found", file=path, hint="run `evaudit init DIR`")
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as exc:
        raise InputError(
            f"cannot open the campaign store ({str(exc).splitlines()[0]})",
            file=path,
            hint="another process may be writing it; retry when it has finished",
        ) from exc
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise InputError(
                f"store schema {version} is newer than this evaudit supports ({SCHEMA_VERSION})",
                file=path,
                hint="upgrade evidence-audit",
            )
        yield con
    finally:
        con.close()


@contextmanager
def transaction(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """All-or-nothing write: commit on success, roll back on any exception."""
    with connect(path) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            yield con
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")


# --- The packets registry (one row per built packet; campaign.packets is its only user) ---

_PACKET_COLUMNS = "name, kind, path, sha256, key_path, key_sha256, created_at, n_items, params"


def packet_rows(path: Path) -> list[tuple[Any, ...]]:
    """Every registry row, oldest first (the order packets were built in)."""
    with connect(path, read_only=True) as con:
        return con.execute(
            f"SELECT {_PACKET_COLUMNS} FROM packets ORDER BY created_at, name"
        ).fetchall()


def insert_packet(con: duckdb.DuckDBPyConnection, row: Sequence[Any]) -> None:
    """Register one packet inside the caller's transaction (columns as `_PACKET_COLUMNS`)."""
    con.execute(f"INSERT INTO packets ({_PACKET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)


def benchmark_rows(path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(query_id, n, release, source) and (query_id, doc_id, grade) rows in canonical order:
    what finalize revises and hashes (`store:queries+qrels` in the manifest)."""
    with connect(path, read_only=True) as con:
        queries = con.execute(
            "SELECT query_id, n, coalesce(release, ''), coalesce(source, '') FROM queries "
            "ORDER BY query_id"
        ).fetchall()
        qrels = con.execute(
            "SELECT query_id, doc_id, grade FROM qrels ORDER BY query_id, doc_id"
        ).fetchall()
    return queries, qrels


def pdf_sources(path: Path) -> dict[str, str]:
    """doc_id -> source PDF path, for documents ingested from PDFs (the admin page renders
    their pages)."""
    with connect(path, read_only=True) as con:
        rows = con.execute(
            "SELECT doc_id, source_path FROM documents WHERE kind = 'pdf'"
        ).fetchall()
    return {str(d): str(p) for d, p in rows}


def query_sizes(path: Path) -> list[tuple[str, int]]:
    """(query_id, n) in the loaded order: the queries `score --project` scores."""
    with connect(path, read_only=True) as con:
        rows = con.execute("SELECT query_id, n FROM queries ORDER BY position, query_id").fetchall()
    return [(str(q), int(n)) for q, n in rows]


def qrels_rows(path: Path) -> list[tuple[str, str, int]]:
    """(query_id, doc_id, grade) of the loaded qrels, sorted."""
    with connect(path, read_only=True) as con:
        rows = con.execute(
            "SELECT query_id, doc_id, grade FROM qrels ORDER BY query_id, doc_id"
        ).fetchall()
    return [(str(q), str(d), int(g)) for q, d, g in rows]


def query_strata(path: Path) -> list[tuple[str, str]]:
    """(release, source) per query, in the same order as `query_sizes` ('' when unset)."""
    with connect(path, read_only=True) as con:
        rows = con.execute(
            "SELECT release, source FROM queries ORDER BY position, query_id"
        ).fetchall()
    return [(str(r or ""), str(s or "")) for r, s in rows]


def document_pages(path: Path) -> dict[str, int]:
    """doc_id -> number of pages, for documents whose page count is known."""
    with connect(path, read_only=True) as con:
        rows = con.execute("SELECT doc_id, n_pages FROM documents").fetchall()
    return {str(d): int(n) for d, n in rows if n is not None}


# --- The benchmark as the packet builder reads it (inside the caller's read connection) ---


def condition_rows(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(query_id, condition_id, name, requirement, counts, does_not_count, note, aliases)
    by query and position; list fields are JSON text."""
    return con.execute(
        "SELECT query_id, condition_id, name, requirement, counts, does_not_count, note, aliases "
        "FROM conditions ORDER BY query_id, position"
    ).fetchall()


def query_rows(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(query_id, text, release, source) in the loaded order."""
    return con.execute(
        "SELECT query_id, text, release, source FROM queries ORDER BY position"
    ).fetchall()


def grade_rows(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(query_id, doc_id, grade) of the loaded qrels."""
    return con.execute("SELECT query_id, doc_id, grade FROM qrels").fetchall()


def evidence_rows(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(query_id, doc_id, condition_id, page), sorted."""
    return con.execute(
        "SELECT query_id, doc_id, condition_id, page FROM evidence ORDER BY ALL"
    ).fetchall()


def document_sources(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(doc_id, source_path, kind) of every ingested document."""
    return con.execute("SELECT doc_id, source_path, kind FROM documents").fetchall()


def text_page_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(doc_id, pages with non-blank text)."""
    return con.execute(
        "SELECT doc_id, count(*) FROM pages WHERE length(trim(coalesce(text, ''))) > 0 "
        "GROUP BY doc_id"
    ).fetchall()


def page_batches(con: duckdb.DuckDBPyConnection, size: int = 10_000) -> Iterator[list[Any]]:
    """(doc_id, page, text) by document and page, in batches (the corpus may be large)."""
    cur = con.execute("SELECT doc_id, page, text FROM pages ORDER BY doc_id, page")
    while batch := cur.fetchmany(size):
        yield batch


def run_rows(con: duckdb.DuckDBPyConnection, run_name: str) -> list[tuple[Any, ...]]:
    """(query_id, doc_id) of one run: score descending, then rank, then file order."""
    return con.execute(
        "SELECT query_id, doc_id FROM runs WHERE run_name = ? "
        "ORDER BY query_id, score DESC, rank, position",
        [run_name],
    ).fetchall()


def run_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in con.execute("SELECT DISTINCT run_name FROM runs ORDER BY 1").fetchall()]


def run_scores(con: duckdb.DuckDBPyConnection, run_name: str) -> list[tuple[Any, ...]]:
    """(query_id, doc_id, score) of one run, in file order (the score impact inputs)."""
    return con.execute(
        "SELECT query_id, doc_id, score FROM runs WHERE run_name = ? ORDER BY position",
        [run_name],
    ).fetchall()
