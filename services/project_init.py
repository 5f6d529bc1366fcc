"""`evaudit init`: create a project folder with its store, journals in files or PostgreSQL.

A chosen password and a `--journal` URL are checked before anything is written, so a
refused one leaves no half-made project (`campaign.init`, `campaign.journal_pg`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign import journal_pg
from campaign.init import init_project, password_problem
from vocabulary.errors import InputError


@dataclass(frozen=True)
class InitReport:
    project: str
    admin_password: str | None  # generated: shown once, stored hashed; None when chosen
    journal: str  # "file" or the journal database's URL without its password

    def to_json(self) -> dict[str, Any]:
        return {"project": self.project, "admin_password": self.admin_password,
                "journal": self.journal}  # fmt: skip

    def table(self) -> str:
        lines = [f"created project {self.project}"]
        if self.admin_password:
            lines.append(f"admin password (shown once, stored hashed): {self.admin_password}")
        return "\n".join(lines)


def create_project(
    directory: Path, admin_password: str | None = None, journal_url: str | None = None
) -> InitReport:
    """Create DIRECTORY's project (`admin_password` None: one is generated)."""
    problem = password_problem(admin_password) if admin_password is not None else None
    if problem:  # a chosen password only: a generated one is long and random
        raise InputError(
            problem,
            file=directory,
            hint="choose a longer --admin-password / EVAUDIT_ADMIN_PASSWORD of several "
            "uncommon words, or give none to have one generated",
        )
    pg = None
    if journal_url is not None:
        if not journal_pg.is_pg_url(journal_url):
            raise InputError(
                f"--journal {journal_url!r} is not a postgresql:// URL",
                hint="give postgresql://USER@HOST:PORT/DB, or leave --journal out for files",
            )
        try:  # before anything is written: a wrong URL leaves no half-made project
            pg = journal_pg.new_config(journal_url)
        except journal_pg.JournalUnavailable as exc:
            raise InputError(
                f"cannot reach the journal database {journal_pg.redact(journal_url)} "
                f"({exc.strerror})",
                hint="check the URL, that PostgreSQL runs, and the password (PGPASSWORD)",
            ) from exc
    project, generated = init_project(directory, admin_password)
    if pg is not None:
        journal_pg.set_backend(project.root, pg)
    journal = pg.to_meta()["url"] if pg else "file"
    return InitReport(str(project.root), generated, journal)
