"""The admin override log in PostgreSQL: table `evaudit_overrides` of `campaign.store_pg`'s
schema, append-only by trigger, in insertion order (`n`).

Apart from `campaign.store_pg` so annotator code, which reaches the journal and its store,
never reaches the override log (the import-linter contract in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from campaign.store_pg import Conn, jsonb


def read_overrides(conn: Conn, campaign: str) -> list[dict[str, Any]]:
    """The campaign's override records, oldest first."""
    rows = conn.execute(
        "SELECT record FROM evaudit_overrides WHERE campaign = %s ORDER BY n", (campaign,)
    ).fetchall()
    return [dict(r[0]) for r in rows]


def append_override(conn: Conn, campaign: str, record: dict[str, Any]) -> None:
    """Insert one override record (committed with the caller's transaction)."""
    conn.execute(
        "INSERT INTO evaudit_overrides (campaign, record) VALUES (%s, %s)",
        (campaign, jsonb(record)),
    )
