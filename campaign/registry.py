"""The annotator registry: who may sign in with which token, for which packets.

Kept in `annotators.json`, or in PostgreSQL when the project keeps its journals there
(`campaign.journal_pg`), so a revocation on one server is refused by every other at the
next check. Tokens are random, shown once, and stored only as SHA-256 (a 192-bit random
token needs no salt or stretching). Updates hold an exclusive lock so two concurrent
`annotator add` calls cannot lose each other's entry. This module is the registry's one
reader and writer; what a valid name, role or packet is, is the use case's
(`services.annotators`).
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from campaign import journal_pg
from campaign.project import Project, now_iso, open_private, write_json_atomic
from vocabulary.errors import InputError
from vocabulary.jsonread import json_document


@dataclass(frozen=True)
class Annotator:
    name: str
    role: str
    packets: tuple[str, ...]
    revoked: bool
    created: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role,
            "packets": list(self.packets),
            "revoked": self.revoked,
            "created": self.created,
        }


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def read_registry(project: Project, stale_ok: bool = False) -> dict[str, dict[str, Any]]:
    """name -> entry; from PostgreSQL when the project keeps its journals there (`stale_ok`:
    see `journal_pg.read_registry`)."""
    cfg = project.journals
    if cfg is not None:
        return journal_pg.read_registry(cfg, stale_ok)
    path = project.annotators_path
    if not path.is_file():
        return {}
    obj = json_document(path.read_text(encoding="utf-8"), "corrupt annotator registry", path)
    people = obj.get("annotators") if isinstance(obj, dict) else None
    if not isinstance(people, dict):
        raise InputError("annotator registry has no 'annotators' object", file=path)
    return people


@contextmanager
def _locked_registry(project: Project) -> Iterator[dict[str, dict[str, Any]]]:
    """Read-modify-write the registry under an exclusive lock; written atomically on exit
    (in PostgreSQL: one transaction under a per-campaign advisory lock)."""
    cfg = project.journals
    if cfg is not None:
        with journal_pg.registry_transaction(cfg) as people:
            yield people
        return
    fd = open_private(project.root / ".annotators.lock", os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        people = read_registry(project)
        yield people
        write_json_atomic(project.annotators_path, {"annotators": people})
    finally:
        os.close(fd)  # closing releases the lock


def _entry(name: str, raw: dict[str, Any]) -> Annotator:
    return Annotator(
        name=name,
        role=str(raw.get("role", "annotator")),
        packets=tuple(raw.get("packets") or ()),
        revoked=bool(raw.get("revoked", False)),
        created=str(raw.get("created", "")),
    )


def register(project: Project, name: str, role: str, packets: list[str], token: str) -> Annotator:
    """Add a new entry holding the token's SHA-256; a taken name (revoked ones included) is
    refused, so journals stay one per name."""
    with _locked_registry(project) as people:
        if name in people:
            raise InputError(
                f"annotator {name!r} already exists",
                file=project.annotators_path,
                hint="choose another name (revoked names stay reserved so journals stay unique)",
            )
        people[name] = {
            "role": role,
            "packets": list(dict.fromkeys(packets)),
            "token_sha256": token_sha256(token),
            "revoked": False,
            "created": now_iso(),
        }
        return _entry(name, people[name])


def revoke(project: Project, name: str) -> Annotator:
    with _locked_registry(project) as people:
        if name not in people:
            raise InputError(
                f"no annotator named {name!r}",
                file=project.annotators_path,
                hint="see `evaudit annotator list DIR`",
            )
        people[name]["revoked"] = True
        return _entry(name, people[name])


def list_annotators(project: Project) -> list[Annotator]:
    return [_entry(name, raw) for name, raw in sorted(read_registry(project).items())]


def authenticate(project: Project, token: str | None) -> Annotator | None:
    """The active annotator holding this token, or None (unknown, empty or revoked)."""
    if not token:
        return None
    digest = token_sha256(token)
    found = None
    # While the database is down an open page keeps its sign-in; its saves fail anyway.
    for name, raw in read_registry(project, stale_ok=True).items():
        # Compare every entry in constant time so timing says nothing about which matched.
        if hmac.compare_digest(str(raw.get("token_sha256", "")), digest):
            found = _entry(name, raw)
    if found is None or found.revoked:
        return None
    return found
