"""The store's SQL for `evaudit load`, `status`, `check` and the classic grade scale.

Part of the store (docs/architecture.md): the loader validates files and builds the frames;
these functions run the statements inside the caller's connection or transaction, so a
load stays one all-or-nothing transaction (`campaign.store.transaction`)."""

from __future__ import annotations

from typing import Any

from campaign.store import Connection

SCALE_KEY = "grade_scale"  # meta key: the JSON of a classic project's GradeScale
GRADED_DDL = (
    "CREATE TABLE IF NOT EXISTS graded_qrels (query_id VARCHAR, doc_id VARCHAR, grade INTEGER, "
    "PRIMARY KEY (query_id, doc_id))"
)


def page_counts(con: Connection) -> dict[str, Any]:
    """doc_id -> n_pages of every ingested document (None when unknown)."""
    return dict(con.execute("SELECT doc_id, n_pages FROM documents").fetchall())


def query_conditions(con: Connection) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """(query_id -> n) and the (query_id, condition_id) rows of the loaded queries."""
    n = dict(con.execute("SELECT query_id, n FROM queries").fetchall())
    return n, con.execute("SELECT query_id, condition_id FROM conditions").fetchall()


def condition_ids(con: Connection) -> list[tuple[Any, ...]]:
    """(query_id, condition_id) by query and position."""
    return con.execute(
        "SELECT query_id, condition_id FROM conditions ORDER BY query_id, position"
    ).fetchall()


def evidence_page_rows(con: Connection) -> list[tuple[Any, ...]]:
    """(query_id, doc_id, condition_id, page) in stored order."""
    return con.execute("SELECT query_id, doc_id, condition_id, page FROM evidence").fetchall()


def replace_qrels(con: Connection, qrels: Any) -> None:
    """Replace all qrels by a frame of (query_id, doc_id, grade)."""
    con.execute("DELETE FROM qrels")
    con.register("new_qrels", qrels)
    con.execute("INSERT INTO qrels SELECT * FROM new_qrels")


def replace_evidence(con: Connection, evidence: Any | None) -> None:
    """Replace all evidence by a frame of (query_id, doc_id, condition_id, page); None
    clears it."""
    con.execute("DELETE FROM evidence")
    if evidence is not None:
        con.register("new_ev", evidence)
        con.execute("INSERT INTO evidence SELECT * FROM new_ev")


def replace_run(con: Connection, name: str, run: Any) -> None:
    """Replace one run by a frame with run_name, query_id, doc_id, rank, score, tag, position."""
    con.execute("DELETE FROM runs WHERE run_name = ?", [name])
    con.register("new_run", run)
    con.execute(
        "INSERT INTO runs SELECT run_name, query_id, doc_id, rank, score, tag, position "
        "FROM new_run"
    )
    con.unregister("new_run")


def replace_graded(con: Connection, graded: Any | None, scale_json: str | None) -> None:
    """The original graded qrels (a (query_id, doc_id, grade) frame) and their scale's JSON;
    cleared when graded is None (n-Clue files replace a classic benchmark)."""
    con.execute(GRADED_DDL)
    con.execute("DELETE FROM graded_qrels")
    con.execute("DELETE FROM meta WHERE key = ?", [SCALE_KEY])
    if graded is None:
        return
    con.register("new_graded", graded)
    con.execute("INSERT INTO graded_qrels SELECT * FROM new_graded")
    con.unregister("new_graded")
    con.execute("INSERT INTO meta VALUES (?, ?)", [SCALE_KEY, scale_json])


def replace_queries(con: Connection, queries: Any, conditions: Any) -> None:
    """Replace all queries and conditions by frames in the tables' column order."""
    con.execute("DELETE FROM conditions")
    con.execute("DELETE FROM queries")
    con.register("new_q", queries)
    con.register("new_c", conditions)
    con.execute("INSERT INTO queries SELECT * FROM new_q")
    con.execute("INSERT INTO conditions SELECT * FROM new_c")


_STATUS = {
    "documents": "SELECT count(*) FROM documents",
    "pages": "SELECT count(*) FROM pages",
    "queries": "SELECT count(*) FROM queries",
    "conditions": "SELECT count(*) FROM conditions",
    "qrels": "SELECT count(*) FROM qrels WHERE grade > 0",
    "gold": "SELECT count(*) FROM qrels JOIN queries USING (query_id) WHERE grade = n",
    "subset": (
        "SELECT count(*) FROM qrels JOIN queries USING (query_id) WHERE grade >= 1 AND grade < n"
    ),
    # "evidence" counts records (query, document, condition), as `load` does; their page
    # rows are "evidence_pages".
    "evidence": (
        "SELECT count(*) FROM (SELECT DISTINCT query_id, doc_id, condition_id FROM evidence)"
    ),
    "evidence_pages": "SELECT count(*) FROM evidence",
    "runs": "SELECT count(DISTINCT run_name) FROM runs",
}


def status_counts(con: Connection) -> dict[str, int]:
    """The counts `evaudit status` prints (gold = grade n, subset = 1..n-1)."""

    def one(sql: str) -> int:
        row = con.execute(sql).fetchone()
        return int(row[0]) if row else 0

    return {key: one(sql) for key, sql in _STATUS.items()}


def graded_scale(con: Connection) -> tuple[str, list[tuple[Any, ...]]] | None:
    """A classic project's scale JSON and its (query_id, doc_id, grade) original grades;
    None for n-Clue."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", [SCALE_KEY]).fetchone()
    if row is None:
        return None
    return row[0], con.execute("SELECT query_id, doc_id, grade FROM graded_qrels").fetchall()


CROSS_PAGE_KEY = "require_cross_page"  # meta key: "true" when golds must be cross-page


def require_cross_page(con: Connection) -> bool:
    """Whether the loaded benchmark requires cross-page golds (`load --require-cross-page`)."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", [CROSS_PAGE_KEY]).fetchone()
    return row is not None and row[0] == "true"


def set_require_cross_page(con: Connection, value: bool) -> None:
    """Record the benchmark's cross-page requirement, for `check` and `load`'s check."""
    con.execute("DELETE FROM meta WHERE key = ?", [CROSS_PAGE_KEY])
    con.execute("INSERT INTO meta VALUES (?, ?)", [CROSS_PAGE_KEY, "true" if value else "false"])
