"""`evaudit init` and `evaudit admin`: create a project folder with its campaign store, set
its admin password (checked for strength) and its metrics token.

Kept apart from `campaign.project` (the layout, which annotator code imports) so that
only admin code that creates a project reaches the store (the import contract
"Annotator-facing modules never reach admin keys or the store", docs/architecture.md)."""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from zxcvbn import zxcvbn

from campaign import store
from campaign.project import (
    MIN_PASSWORD_CHARS,
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

# zxcvbn's scale: 3 = "safely unguessable: moderate protection from an offline slow-hash
# scenario" (under 10^10 guesses); the admin password is PBKDF2-stretched in project.json.
MIN_PASSWORD_SCORE = 3
_SCORE_WORDS = ("too guessable", "very guessable", "somewhat guessable", "safely unguessable")


def password_problem(password: str) -> str | None:
    """Why a chosen admin password is refused (too short, or too easy to guess by the
    zxcvbn estimator), or None. Generated passwords are never checked."""
    if len(password) < MIN_PASSWORD_CHARS:
        return f"admin password has {len(password)} characters, fewer than {MIN_PASSWORD_CHARS}"
    # zxcvbn is slow on very long inputs and they are strong anyway: judge the first 100.
    verdict = zxcvbn(password[:100])
    score = int(verdict["score"])
    if score >= MIN_PASSWORD_SCORE:
        return None
    feedback = verdict["feedback"]
    advice = " ".join(
        part.rstrip(".") + "."
        for part in [feedback.get("warning") or "", *(feedback.get("suggestions") or [])]
        if part
    )
    return (
        f"admin password is too easy to guess (zxcvbn strength {score} of 4, "
        f"{_SCORE_WORDS[score]}; at least {MIN_PASSWORD_SCORE} is needed)"
        + (f": {advice}" if advice else "")
    )


def require_strong(
    password: str,
    where: Path,
    hint: str = "choose a longer password of several uncommon words, or give none to have "
    "one generated",
) -> None:
    """Refuse a weak chosen password with a one-line error naming the project folder."""
    problem = password_problem(password)
    if problem:
        raise InputError(problem, file=where, hint=hint)


def set_admin_password(project: Project, password: str) -> None:
    """Store a new admin password (salted, stretched) in project.json. Open admin sessions
    end at their next page run: each holds the fingerprint of the record it signed in
    with (`audit_app.access.admin_fingerprint`)."""
    require_strong(password, project.meta_path, "choose a longer one of several uncommon words")
    meta = project.meta()
    meta["admin_password"] = hash_secret(password)
    write_json_atomic(project.meta_path, meta)
    project.forget_settings()


def new_metrics_token(project: Project) -> str:
    """Make a new random credential for `/_stcore/metrics` (the old one stops working);
    project.json keeps only its SHA-256 (a 192-bit random token needs no stretching)."""
    token = secrets.token_urlsafe(24)
    meta = project.meta()
    meta["metrics_token"] = {"sha256": hashlib.sha256(token.encode()).hexdigest()}
    write_json_atomic(project.meta_path, meta)
    project.forget_settings()
    return token


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
    password = admin_password
    if not password and os.environ.get(PASSWORD_ENV):
        password = os.environ[PASSWORD_ENV]
        require_strong(password, project.root)  # chosen by a person, not by a caller
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
