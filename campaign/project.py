"""The project folder: layout, `project.json`, admin password, and opening it safely.

Everything under a project is private to the user who owns it: folders are created
0700 and files 0600 (`private_dir`, `open_private`, `write_bytes_atomic`), because the
store, the admin keys and the journals hold unblinded labels and other people's answers.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from campaign.files import PRIVATE_DIR as PRIVATE_DIR
from campaign.files import PRIVATE_FILE as PRIVATE_FILE
from campaign.files import now_iso as now_iso
from campaign.files import open_private as open_private
from campaign.files import private_dir as private_dir
from campaign.files import write_bytes_atomic as write_bytes_atomic
from campaign.files import write_json_atomic as write_json_atomic
from vocabulary.errors import InputError
from vocabulary.jsonread import json_loads, json_problem

if TYPE_CHECKING:
    from campaign.journal_pg import PgConfig

PROJECT_FORMAT = "evaudit-project"
SCHEMA_VERSION = 1
PASSWORD_ENV = "EVAUDIT_ADMIN_PASSWORD"
_PBKDF2_ROUNDS = 200_000
MIN_PASSWORD_CHARS = 12


@dataclass(frozen=True)
class Project:
    root: Path

    @property
    def meta_path(self) -> Path:
        return self.root / "project.json"

    @property
    def store_path(self) -> Path:
        return self.root / "audit.duckdb"

    @property
    def packets_dir(self) -> Path:
        return self.root / "packets"

    @property
    def keys_dir(self) -> Path:
        return self.root / "keys"

    @property
    def journals_dir(self) -> Path:
        return self.root / "journals"

    @property
    def annotators_path(self) -> Path:
        return self.root / "annotators.json"

    @property
    def decisions_dir(self) -> Path:
        return self.root / "decisions"

    def packet_path(self, name: str) -> Path:
        return self.packets_dir / f"{name}.json"

    def key_path(self, name: str) -> Path:
        return self.keys_dir / f"{name}.key.json"

    def journal_dir(self, packet: str) -> Path:
        return self.journals_dir / packet

    def page_map_path(self, packet: str) -> Path:
        """page_key -> (PDF, page) of one packet, written before serving, read by the app's
        server process only (never sent to a browser)."""
        return self.root / "render" / f"{packet}.json"

    def meta(self) -> dict[str, Any]:
        """project.json as it is on disk now (what a writer must start from)."""
        return dict(json_loads(self.meta_path.read_text(encoding="utf-8")))

    @cached_property
    def settings(self) -> dict[str, Any]:
        """project.json as read once for this handle (`open_project` reads it to check the
        format): what readers of the admin password and the metrics token look at, so a
        page run or a request reads the file once. A writer through this handle calls
        `forget_settings`; a change by another process is seen by the next handle (the
        app opens one per page run and per request)."""
        return self.meta()

    def forget_settings(self) -> None:
        """Drop the settings read for this handle (after writing project.json), and the
        journal backend resolved from it."""
        self.__dict__.pop("settings", None)
        self.__dict__.pop("_journals", None)

    @property
    def journals(self) -> PgConfig | None:
        """Where the journals and the registry live: the PostgreSQL journal's configuration,
        or None for files. Resolved once per handle (`journal_pg.config_for`) and kept: a
        save or a page run through this handle does not look at project.json again. A
        switch of the backend in this process (`journal_pg.set_backend`, which `journal
        migrate` calls) is seen at once by every handle; one by another process is seen by
        the next handle (the app opens one per page run and per round trip)."""
        from campaign import journal_pg  # the layout does not load psycopg until asked

        held = self.__dict__.get("_journals")
        switches = journal_pg.switches()
        if held is None or held[0] != switches:
            held = (switches, journal_pg.config_for(self.root))
            self.__dict__["_journals"] = held  # frozen dataclass: a cache, not a field
        return held[1]


def hash_secret(secret: str, salt: str | None = None) -> dict[str, str]:
    salt = salt or secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode(), bytes.fromhex(salt), _PBKDF2_ROUNDS)
    return {"salt": salt, "sha256": digest.hex()}


def verify_secret(secret: str, stored: dict[str, str]) -> bool:
    candidate = hash_secret(secret, stored["salt"])["sha256"]
    return hmac.compare_digest(candidate, stored["sha256"])


def has_metrics_token(project: Project) -> bool:
    """Whether `evaudit admin metrics-token` made one (`serve --metrics` needs it)."""
    return isinstance(project.settings.get("metrics_token"), dict)


def check_metrics_token(project: Project, token: str | None) -> bool:
    """Whether `token` is the project's metrics credential (`evaudit admin metrics-token`,
    which keeps only its SHA-256: a 192-bit random token needs no stretching)."""
    stored = project.settings.get("metrics_token")
    if not token or not isinstance(stored, dict):
        return False
    digest = hashlib.sha256(token.encode()).hexdigest()
    return hmac.compare_digest(str(stored.get("sha256", "")), digest)


def password_problem(password: str) -> str | None:
    """Why a chosen admin password is refused, or None. Generated ones are never checked."""
    if len(password) < MIN_PASSWORD_CHARS:
        return f"admin password has {len(password)} characters, fewer than {MIN_PASSWORD_CHARS}"
    return None


def open_project(root: str | Path) -> Project:
    project = Project(Path(root).resolve())
    if not project.meta_path.is_file():
        raise InputError(
            "not an evaudit project (no project.json)",
            file=project.root,
            hint="run `evaudit init DIR` first",
        )
    try:
        meta = project.settings
    except json.JSONDecodeError as exc:
        raise InputError(
            f"corrupt project.json ({json_problem(exc)})", file=project.meta_path
        ) from exc
    version = meta.get("schema_version")
    if meta.get("format") != PROJECT_FORMAT or not isinstance(version, int):
        raise InputError("not an evaudit project file", file=project.meta_path)
    if version > SCHEMA_VERSION:
        raise InputError(
            f"project schema {version} is newer than this evaudit supports ({SCHEMA_VERSION})",
            file=project.meta_path,
            hint="upgrade evidence-audit",
        )
    return project


def as_project(project: Project | str | Path) -> Project:
    """`project` itself, or the project opened at that folder: the services the CLI calls
    take a folder (the CLI imports no campaign module), the others an open project."""
    return project if isinstance(project, Project) else open_project(project)
