"""`evaudit annotator add|revoke`: register a person for packets with a token link, or revoke
their token. The registry's file and PostgreSQL I/O is `campaign.registry`'s; this module
holds the rules (a valid name and role, packets that exist) and the reports.

It reaches no admin key and no store, so the demo and the app may import it.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from campaign.project import Project, open_project
from campaign.registry import Annotator, register, revoke
from vocabulary.errors import InputError

ROLES = ("annotator", "adjudicator")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def login_url(token: str, host: str = "127.0.0.1", port: int = 8501) -> str:
    return f"http://{host}:{port}/?{urlencode({'token': token})}"


def add_annotator(
    project: Project, name: str, packets: list[str], role: str = "annotator"
) -> tuple[Annotator, str]:
    """Register a person for packets; returns the entry and the token (shown only now)."""
    if not _NAME.match(name):
        raise InputError(
            f"invalid annotator name {name!r}",
            hint="use letters, digits, '.', '_' or '-' (at most 64 characters)",
        )
    if role not in ROLES:
        raise InputError(f"invalid role {role!r}", hint="use annotator or adjudicator")
    if not packets:
        raise InputError("no packet given", hint="pass --packet NAME (repeatable)")
    for packet in packets:
        if not project.packet_path(packet).is_file():
            raise InputError(
                f"no packet named {packet!r}",
                file=project.packet_path(packet),
                hint="build it with `evaudit packet build` or check the name",
            )
    token = secrets.token_urlsafe(24)
    return register(project, name, role, packets, token), token


def revoke_annotator(project: Project, name: str) -> Annotator:
    """Revoke NAME's token at once (their journal is kept)."""
    return revoke(project, name)


@dataclass(frozen=True)
class EnrollReport:
    """`annotator add`: the new entry and its login URL (the token is shown only now)."""

    entry: Annotator
    token: str
    url: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.entry.name, "token": self.token, "url": self.url}

    def table(self) -> str:
        return (
            f"{self.entry.name} ({self.entry.role}) on {', '.join(self.entry.packets)}\n"
            f"login URL (shown once): {self.url}"
        )


def enroll(
    root: Path,
    name: str,
    packets: list[str],
    role: str = "annotator",
    host: str = "127.0.0.1",
    port: int = 8501,
) -> EnrollReport:
    """`evaudit annotator add`: register NAME in the project at `root`, with their URL."""
    entry, token = add_annotator(open_project(root), name, packets, role)
    return EnrollReport(entry, token, login_url(token, host, port))


@dataclass(frozen=True)
class RevokeReport:
    entry: Annotator

    def to_json(self) -> dict[str, Any]:
        return self.entry.to_json()

    def table(self) -> str:
        return f"revoked {self.entry.name}"


def revoke_in(root: Path, name: str) -> RevokeReport:
    """`evaudit annotator revoke`."""
    return RevokeReport(revoke_annotator(open_project(root), name))
