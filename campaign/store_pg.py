"""The PostgreSQL store: every statement, the psycopg import and the connections of the
journal backend (`campaign.journal_pg`), which decides what to run and in which order.

Tables: `evaudit_journal` (one row per saved line), `evaudit_registry` (one row per
person) and `evaudit_overrides` (the admin override log, whose statements are in
`campaign.store_pg_overrides` so annotator code, which reaches this module through the
journal, never reaches the override log). A trigger makes the journal and the override
log append-only. Every row carries its `campaign`, so projects can share a database.

Connections come from a small process-wide pool; any database error becomes
`JournalUnavailable` and drops the connection, so the next call reconnects by itself.
psycopg is imported only when a database is used (file-journal projects never load it).
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import psycopg

Conn: TypeAlias = "psycopg.Connection[Any]"

SCHEMA = """
CREATE TABLE IF NOT EXISTS evaudit_journal (
    campaign text NOT NULL,
    packet_id text NOT NULL,
    annotator text NOT NULL,
    seq bigint NOT NULL,
    ts text,
    packet_sha256 text,
    item_id text,
    state jsonb NOT NULL,
    PRIMARY KEY (campaign, packet_id, annotator, seq)
);
CREATE TABLE IF NOT EXISTS evaudit_overrides (
    campaign text NOT NULL,
    n bigserial NOT NULL,
    record jsonb NOT NULL,
    PRIMARY KEY (campaign, n)
);
CREATE TABLE IF NOT EXISTS evaudit_registry (
    campaign text NOT NULL,
    name text NOT NULL,
    entry jsonb NOT NULL,
    PRIMARY KEY (campaign, name)
);
CREATE OR REPLACE FUNCTION evaudit_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'evaudit: % is append-only (% refused)', TG_TABLE_NAME, TG_OP;
END $$ LANGUAGE plpgsql;
"""
# The journal and the override log are append-only: the same two triggers guard each.
SCHEMA += "".join(
    f"""DROP TRIGGER IF EXISTS evaudit_{t}_append_only ON evaudit_{t};
CREATE TRIGGER evaudit_{t}_append_only BEFORE UPDATE OR DELETE ON evaudit_{t}
    FOR EACH ROW EXECUTE FUNCTION evaudit_append_only();
DROP TRIGGER IF EXISTS evaudit_{t}_no_truncate ON evaudit_{t};
CREATE TRIGGER evaudit_{t}_no_truncate BEFORE TRUNCATE ON evaudit_{t}
    FOR EACH STATEMENT EXECUTE FUNCTION evaudit_append_only();
"""
    for t in ("journal", "overrides")
)


class JournalUnavailable(OSError):
    """The database could not be reached or refused the write: the save did not commit
    (or, when the connection died during COMMIT, may have: the caller re-sends the same
    state, which the judging card then finds already saved and does not write again)."""


# --- connections -------------------------------------------------------------------------

# A small process-wide pool: Streamlit runs each rerun in a new thread, so thread-local
# connections would leak; a connection is taken for one transaction and given back.
_IDLE: dict[str, list[Conn]] = {}
_IDLE_LOCK = threading.Lock()
_SCHEMA_DONE: set[str] = set()


def connect(url: str, timeout_s: int) -> Conn:
    """A new connection, with the schema created on its database once per process."""
    import psycopg

    # autocommit: each `transaction()` is an explicit BEGIN ... COMMIT, and the pool's
    # liveness check below runs outside any transaction.
    conn = psycopg.connect(url, connect_timeout=timeout_s, autocommit=True)
    if url not in _SCHEMA_DONE:
        ensure_schema(conn)
        _SCHEMA_DONE.add(url)
    return conn


def ensure_schema(conn: Conn) -> None:
    """Create the tables and triggers if missing (serialised: two servers may start at once)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('evaudit:schema'))")
        conn.execute(SCHEMA)


def ping(conn: Conn) -> None:
    """A round trip to the server: raises if the connection is dead."""
    conn.execute("SELECT 1")


@contextmanager
def transaction(url: str, max_idle: int, timeout_s: int) -> Iterator[Conn]:
    """A connection inside one transaction; committed on exit. Database errors become
    JournalUnavailable and the connection is dropped (the next call reconnects); at most
    `max_idle` healthy connections per URL are kept for the next call."""
    import psycopg

    with _IDLE_LOCK:
        idle = _IDLE.setdefault(url, [])
        conn = idle.pop() if idle else None
    if conn is not None:
        try:  # a pooled connection may have died with a server restart: check, not fail
            ping(conn)
        except psycopg.Error:
            conn.close()
            conn = None
    try:
        if conn is None or conn.closed:
            conn = connect(url, timeout_s)
        with conn.transaction():
            yield conn
    except psycopg.Error as exc:
        if conn is not None:
            conn.close()
        text = str(exc).strip()
        msg = text.splitlines()[0] if text else type(exc).__name__
        raise JournalUnavailable(errno.EIO, f"journal database: {msg}") from exc
    finally:
        # A healthy connection goes back to the pool (also after a non-database error,
        # whose transaction was rolled back); a broken one was closed above.
        if conn is not None and not conn.closed:
            with _IDLE_LOCK:
                idle = _IDLE.setdefault(url, [])
                keep = len(idle) < max_idle
                if keep:
                    idle.append(conn)
            if not keep:
                conn.close()


def jsonb(value: Any) -> Any:
    """`value` as a jsonb parameter."""
    from psycopg.types.json import Jsonb

    return Jsonb(value)


def _one(conn: Conn, query: str, params: tuple[Any, ...]) -> tuple[Any, ...]:
    row = conn.execute(query, params).fetchone()
    assert row is not None  # an aggregate without GROUP BY always returns one row
    return tuple(row)


# --- the journal -------------------------------------------------------------------------


def lock_stream(conn: Conn, campaign: str, packet: str, annotator: str) -> None:
    """Serialise writers of one stream until the transaction ends."""
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtext(%s), hashtext(%s))",
        (campaign + "\x1f" + packet, annotator),
    )


def max_seq(conn: Conn, campaign: str, packet: str, annotator: str) -> int:
    """The stream's highest seq (0 when it has no line)."""
    row = _one(
        conn,
        "SELECT coalesce(max(seq), 0) FROM evaudit_journal"
        " WHERE campaign = %s AND packet_id = %s AND annotator = %s",
        (campaign, packet, annotator),
    )
    return int(row[0])


def insert_line(
    conn: Conn, campaign: str, packet: str, annotator: str, line: dict[str, Any]
) -> None:
    """Store one whole line (`seq`, `ts` and the state) as one row."""
    state = {k: v for k, v in line.items() if k not in ("seq", "ts")}
    item = line.get("item_id")
    sha = line.get("packet_sha256")
    conn.execute(
        "INSERT INTO evaudit_journal"
        " (campaign, packet_id, annotator, seq, ts, packet_sha256, item_id, state)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        (
            campaign,
            packet,
            annotator,
            int(line["seq"]),
            line.get("ts") if isinstance(line.get("ts"), str) else None,
            sha if isinstance(sha, str) else None,
            item if isinstance(item, str) else None,
            jsonb(state),
        ),
    )


def read_lines(
    conn: Conn, campaign: str, packet: str, annotator: str, after_seq: int = 0
) -> list[dict[str, Any]]:
    """The stream's lines (`{"seq", "ts", **state}`) with seq above `after_seq`, in seq
    order."""
    rows = conn.execute(
        "SELECT seq, ts, state FROM evaudit_journal"
        " WHERE campaign = %s AND packet_id = %s AND annotator = %s AND seq > %s"
        " ORDER BY seq",
        (campaign, packet, annotator, after_seq),
    ).fetchall()
    return [_line(seq, ts, state) for seq, ts, state in rows]


def _line(seq: int, ts: str | None, state: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"seq": int(seq)}
    if ts is not None:
        line["ts"] = ts
    line.update(state)
    return line


def signature(conn: Conn, campaign: str, packet: str, annotator: str) -> tuple[int, int]:
    """(line count, highest seq) of one stream."""
    row = _one(
        conn,
        "SELECT count(*), coalesce(max(seq), 0) FROM evaudit_journal"
        " WHERE campaign = %s AND packet_id = %s AND annotator = %s",
        (campaign, packet, annotator),
    )
    return int(row[0]), int(row[1])


def annotators(conn: Conn, campaign: str, packet: str) -> list[str]:
    """Everyone with a line on the packet, sorted."""
    rows = conn.execute(
        "SELECT DISTINCT annotator FROM evaudit_journal"
        " WHERE campaign = %s AND packet_id = %s ORDER BY annotator",
        (campaign, packet),
    ).fetchall()
    return [str(r[0]) for r in rows]


def streams(conn: Conn, campaign: str) -> list[tuple[str, str]]:
    """Every (packet, annotator) of the campaign, sorted."""
    rows = conn.execute(
        "SELECT DISTINCT packet_id, annotator FROM evaudit_journal WHERE campaign = %s"
        " ORDER BY packet_id, annotator",
        (campaign,),
    ).fetchall()
    return [(str(p), str(a)) for p, a in rows]


# --- the annotator registry --------------------------------------------------------------


def lock_registry(conn: Conn, campaign: str) -> None:
    """Serialise read-modify-writes of the campaign's registry until the transaction ends."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", ("registry\x1f" + campaign,))


def read_registry(conn: Conn, campaign: str) -> dict[str, dict[str, Any]]:
    """name -> entry, by name."""
    rows = conn.execute(
        "SELECT name, entry FROM evaudit_registry WHERE campaign = %s ORDER BY name",
        (campaign,),
    ).fetchall()
    return {str(n): dict(e) for n, e in rows}


def upsert_registry(conn: Conn, campaign: str, people: dict[str, dict[str, Any]]) -> None:
    """Write every entry (a new name is inserted, a known one replaced)."""
    for name, entry in people.items():
        conn.execute(
            "INSERT INTO evaudit_registry (campaign, name, entry) VALUES (%s, %s, %s)"
            " ON CONFLICT (campaign, name) DO UPDATE SET entry = EXCLUDED.entry",
            (campaign, name, jsonb(entry)),
        )
