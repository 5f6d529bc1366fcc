"""The journal, the annotator registry and the override log in PostgreSQL (issue: several
app servers on one campaign).

Chosen per project: `project.json` holds `"journal": {"backend": "postgresql", "url": ...,
"campaign": ...}`; the URL is stored without its password (libpq reads `PGPASSWORD` or
`~/.pgpass`), and `EVAUDIT_JOURNAL_URL` overrides it. `campaign` is a random id so
several projects can share one database without mixing their rows.

Contract, the same as the file journal's (`campaign.journal`): a save is durable when its
transaction commits (the fixture and docs/deploy.md run with `synchronous_commit = on`);
`seq` is unique per (packet, annotator) under concurrent writers (a per-stream advisory
lock taken inside the transaction, with a unique constraint as the backstop); nothing is
ever updated or deleted (a trigger refuses UPDATE, DELETE and TRUNCATE on the journal and
the override log). Readers get the same lines (`{"seq", "ts", **state}`) and apply the one
reading rule in `campaign.journal`.

Connection loss: any database error becomes `JournalUnavailable`, an OSError, which the
judging card shows as "NOT saved" (the action stays in the outbox); the broken connection
is dropped, and the next call opens a new one, so the server reconnects by itself.

The SQL, psycopg and the connection pool are in `campaign.store_pg` (the override log's
statements in `campaign.store_pg_overrides`); this module decides what runs in which
transaction, under which lock.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from campaign import store_pg
from campaign.store_pg import JournalUnavailable
from vocabulary.jsonread import json_loads

__all__ = ["JournalUnavailable"]  # raised here, defined with the connections that raise it

URL_ENV = "EVAUDIT_JOURNAL_URL"
CONNECT_TIMEOUT_S = 3
POOL_MAX_IDLE = 32  # idle connections kept per database URL


def redact(url: str) -> str:
    """The URL without its password (what project.json stores and messages show)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


def is_pg_url(text: str) -> bool:
    return text.startswith(("postgresql://", "postgres://"))


@dataclass(frozen=True)
class PgConfig:
    url: str  # with the password when it came from EVAUDIT_JOURNAL_URL
    campaign: str

    def to_meta(self) -> dict[str, str]:
        return {"backend": "postgresql", "url": redact(self.url), "campaign": self.campaign}


def env_url() -> str | None:
    """EVAUDIT_JOURNAL_URL: the database URL with its password, kept out of project.json."""
    return os.environ.get(URL_ENV) or None


_CONFIGS: dict[Path, tuple[int, PgConfig | None]] = {}
_CONFIGS_LOCK = threading.Lock()
# Bumped by every `set_backend` of this process: a `campaign.project.Project` resolves its
# backend once and keeps it until this changes (a migration through any handle), so no
# handle stats project.json per save. Another process's switch is seen by the next handle.
_SWITCHES = [0]


def switches() -> int:
    """How many times this process switched a project's journal backend."""
    return _SWITCHES[0]


def config_for(root: Path) -> PgConfig | None:
    """The project's PostgreSQL journal, or None for file journals (also when `root` is
    not a project folder). Cached per project.json modification time."""
    meta_path = root / "project.json"
    try:
        mtime = meta_path.stat().st_mtime_ns
    except OSError:
        return None
    with _CONFIGS_LOCK:
        hit = _CONFIGS.get(root)
        if hit is not None and hit[0] == mtime:
            return hit[1]
    try:
        meta = json_loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    conf = meta.get("journal") if isinstance(meta, dict) else None
    cfg = None
    if isinstance(conf, dict) and conf.get("backend") == "postgresql":
        url = env_url() or str(conf["url"])
        cfg = PgConfig(url=url, campaign=str(conf["campaign"]))
    with _CONFIGS_LOCK:
        _CONFIGS[root] = (mtime, cfg)
    return cfg


def transaction(cfg: PgConfig) -> AbstractContextManager[store_pg.Conn]:
    """A connection inside one transaction; committed on exit. Database errors become
    JournalUnavailable and the connection is dropped (the next call reconnects)."""
    # POOL_MAX_IDLE is read per call: a benchmark sets it after import.
    return store_pg.transaction(cfg.url, POOL_MAX_IDLE, CONNECT_TIMEOUT_S)


def append(cfg: PgConfig, packet: str, annotator: str, record: dict[str, Any]) -> dict[str, Any]:
    """Insert one line (seq = the stream's next) and commit; returns the line as stored."""
    from campaign.files import now_iso

    with transaction(cfg) as conn:
        # One writer per stream at a time: the lock is released at commit.
        store_pg.lock_stream(conn, cfg.campaign, packet, annotator)
        seq = store_pg.max_seq(conn, cfg.campaign, packet, annotator) + 1
        line = {"seq": seq, "ts": now_iso(), **record}
        store_pg.insert_line(conn, cfg.campaign, packet, annotator, line)
    return line


def insert_lines(cfg: PgConfig, packet: str, annotator: str, lines: list[dict[str, Any]]) -> None:
    """Copy whole lines (migration): all of one stream in one transaction."""
    with transaction(cfg) as conn:
        for line in lines:
            store_pg.insert_line(conn, cfg.campaign, packet, annotator, line)


def read_lines(
    cfg: PgConfig, packet: str, annotator: str, after_seq: int = 0
) -> list[dict[str, Any]]:
    """The stream's lines past `after_seq`. A reader that saw every line up to seq N
    misses none by asking for seq > N: writers of one stream hold its advisory lock from
    reading the highest seq to their commit, and a commit is visible before that lock is
    released, so the stream's rows become visible in seq order."""
    with transaction(cfg) as conn:
        return store_pg.read_lines(conn, cfg.campaign, packet, annotator, after_seq)


def signature(cfg: PgConfig, packet: str, annotator: str) -> tuple[int, int]:
    """(line count, highest seq): changes whenever the stream gains a line."""
    with transaction(cfg) as conn:
        return store_pg.signature(conn, cfg.campaign, packet, annotator)


def annotators(cfg: PgConfig, packet: str) -> list[str]:
    with transaction(cfg) as conn:
        return store_pg.annotators(conn, cfg.campaign, packet)


def streams(cfg: PgConfig) -> list[tuple[str, str]]:
    """Every (packet, annotator) of the campaign, sorted."""
    with transaction(cfg) as conn:
        return store_pg.streams(conn, cfg.campaign)


# The registry: one row per person (revocation is an update of the registry, not of a
# journal). Read-modify-write under a per-campaign advisory lock, like the file's flock.
_LAST_REGISTRY: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}


def read_registry(cfg: PgConfig, stale_ok: bool = False) -> dict[str, dict[str, Any]]:
    """The registry; with `stale_ok`, the last one read when the database is unreachable
    (sign-in of an open page only: no save can commit then, nor can a revocation)."""
    key = (cfg.url, cfg.campaign)
    try:
        with transaction(cfg) as conn:
            people = store_pg.read_registry(conn, cfg.campaign)
    except JournalUnavailable:
        if stale_ok and key in _LAST_REGISTRY:
            return _LAST_REGISTRY[key]
        raise
    _LAST_REGISTRY[key] = people
    return people


@contextmanager
def registry_transaction(cfg: PgConfig) -> Iterator[dict[str, dict[str, Any]]]:
    with transaction(cfg) as conn:
        store_pg.lock_registry(conn, cfg.campaign)
        people = store_pg.read_registry(conn, cfg.campaign)
        before = json.dumps(people, sort_keys=True)
        yield people
        if json.dumps(people, sort_keys=True) != before:
            store_pg.upsert_registry(conn, cfg.campaign, people)


def new_config(url: str) -> PgConfig:
    """A fresh campaign id on this database; connects once (creating the tables) so a
    wrong URL is an error now, not at the first save."""
    import secrets

    cfg = PgConfig(url=url, campaign=secrets.token_hex(8))
    with transaction(cfg) as conn:
        store_pg.ping(conn)
    return cfg


def set_backend(root: Path, cfg: PgConfig | None) -> None:
    """Record the project's journal backend in project.json (None: file journals)."""
    from campaign.files import write_json_atomic

    meta_path = root / "project.json"
    meta = json_loads(meta_path.read_text(encoding="utf-8"))
    if cfg is None:
        meta.pop("journal", None)
    else:
        meta["journal"] = cfg.to_meta()
    write_json_atomic(meta_path, meta)
    with _CONFIGS_LOCK:
        _CONFIGS.pop(root, None)
        _SWITCHES[0] += 1  # every open handle of this process re-resolves its backend
