"""The project's files on disk: everything is private to the user who owns it (folders
0700, files 0600), and a file is replaced atomically so readers never see it
half-written. Below `campaign.project` so that every campaign module (the journal's
PostgreSQL backend included) can write files without importing the project layout."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def private_dir(path: Path) -> Path:
    """`mkdir -p` where every folder this call creates is 0700; existing folders are left
    as they are (an output path such as /tmp must not be tightened)."""
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:  # another process made it meanwhile
            continue
        os.chmod(folder, PRIVATE_DIR)  # mkdir's mode is filtered by the umask
    return path


def open_private(path: Path, flags: int) -> int:
    """`os.open` that creates the file 0600 (its folder 0700); for appenders (journals)."""
    private_dir(path.parent)
    return os.open(path, flags | os.O_CREAT, PRIVATE_FILE)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write a file 0600 so readers never see it half-written (temp file + fsync + rename)."""
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fd, PRIVATE_FILE)  # a stale temp file may have had another mode
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json_atomic(path: Path, obj: Any) -> None:
    """Write JSON (0600) so readers never see a half-written file."""
    data = json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    write_bytes_atomic(path, data.encode("utf-8"))
