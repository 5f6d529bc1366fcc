"""The admin override log, `decisions/overrides.jsonl`: its lines on disk.

Append-only, one JSON object per evidence-aware admin decision, each append fsync'ed
under an exclusive lock so concurrent commands never interleave lines. The file is 0600
in a 0700 folder: it holds unblinded decisions. What a decision must satisfy (the gates)
and what it means (`policies.adjudication.Override`) live above this layer
(`audit_chain.overrides_io`).
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from campaign import journal_pg, store_pg_overrides
from campaign.project import Project, open_private
from vocabulary.jsonlines import json_lines


def overrides_path(project: Project) -> Path:
    return project.decisions_dir / "overrides.jsonl"


def read_override_lines(project: Project) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; a line that is not a JSON object is
    an InputError naming the file and line (an override is never silently dropped). In
    PostgreSQL the line number is the row's position in the campaign's log."""
    cfg = project.journals
    if cfg is not None:
        return list(enumerate(read_overrides_pg(cfg), start=1))
    path = overrides_path(project)
    if not path.is_file():
        return []
    return list(
        json_lines(
            path,
            json_hint="fix or remove the line",
            bad_line="bad override line",
            not_object="bad override line (not a JSON object)",
        )
    )


def append_override(project: Project, record: dict[str, Any]) -> Path:
    """Append one decision line and fsync (in PostgreSQL: commit); returns the log's path
    (where `journal migrate --to file` would write it)."""
    path = overrides_path(project)
    cfg = project.journals
    if cfg is not None:
        append_override_pg(cfg, record)
        return path
    fd = open_private(path, os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock
    return path


# The log in PostgreSQL (table `evaudit_overrides`, append-only by trigger). Its statements
# are in `campaign.store_pg_overrides`, not beside the journal's, so annotator code, which
# reaches the journal, never reaches the override log.
def read_overrides_pg(cfg: journal_pg.PgConfig) -> list[dict[str, Any]]:
    with journal_pg.transaction(cfg) as conn:
        return store_pg_overrides.read_overrides(conn, cfg.campaign)


def append_override_pg(cfg: journal_pg.PgConfig, record: dict[str, Any]) -> None:
    with journal_pg.transaction(cfg) as conn:
        store_pg_overrides.append_override(conn, cfg.campaign, record)
