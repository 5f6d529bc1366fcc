"""`evaudit init`: create a project folder with its campaign store.

Kept apart from `campaign.project` (the layout, which annotator code imports) so that
only admin code that creates a project reaches the store (the import contract
"Annotator-facing modules never reach admin keys or the store", docs/architecture.md)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from campaign import store
from campaign.project import (
    PASSWORD_ENV,
    PRIVATE_DIR,
    PROJECT_FORMAT,
    SCHEMA_VERSION,
    Project,
    hash_secret,
    now_iso,
    private_dir,
    write_json_atomic,
)
from vocabulary.errors import InputError


def init_project(root: str | Path, admin_password: str | None = None) -> tuple[Project, str | None]:
    """Create the project folder and its store; returns the generated password if one was made."""
    project = Project(Path(root).resolve())
    if project.meta_path.exists():
        raise InputError(
            "a project already exists here", file=project.meta_path, hint="choose a new folder"
        )
    if project.root.exists() and any(project.root.iterdir()):
        raise InputError(
            "folder is not empty", file=project.root, hint="init needs a new or empty folder"
        )
    password = admin_password or os.environ.get(PASSWORD_ENV)
    generated = None
    if not password:
        generated = password = secrets.token_urlsafe(12)
    private_dir(project.root)
    os.chmod(project.root, PRIVATE_DIR)  # an empty folder the user made is tightened too
    for sub in (project.packets_dir, project.keys_dir, project.journals_dir, project.decisions_dir):
        private_dir(sub)
    store.create(project.store_path)
    write_json_atomic(project.annotators_path, {"annotators": {}})
    write_json_atomic(
        project.meta_path,
        {
            "format": PROJECT_FORMAT,
            "schema_version": SCHEMA_VERSION,
            "created": now_iso(),
            "admin_password": hash_secret(password),
        },
    )
    return project, generated
