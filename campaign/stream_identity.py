"""Which response streams of one packet are one source counted twice, by identity.

Two journals are the same stream when they share an identity: the same journal content
(a copied file: its SHA-256; in PostgreSQL the SHA-256 of its rows), the same annotator
(a journal whose lines name another stream's annotator is that annotator's copy) or the
same sign-in token in the annotator registry. Equal *answers* never make two streams
one: two adjudicators who both said no to everything are two raters.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from campaign import journal, journal_pg
from campaign.project import Project
from vocabulary.jsonread import json_loads


def _tokens(project: Project) -> dict[str, str]:
    """annotator -> SHA-256 of their sign-in token (registry entries that have one)."""
    cfg = project.journals
    people: object
    if cfg is not None:
        people = journal_pg.read_registry(cfg, stale_ok=True)
    else:
        path = project.annotators_path
        try:
            obj = json_loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        except json.JSONDecodeError:
            return {}  # the app reports a corrupt registry; identity just has no tokens
        people = obj.get("annotators") if isinstance(obj, dict) else {}
    if not isinstance(people, dict):
        return {}
    return {
        str(name): str(raw["token_sha256"])
        for name, raw in people.items()
        if isinstance(raw, dict) and raw.get("token_sha256")
    }


def _keys(journal_dir: Path, name: str, token: str | None, foreign: bool) -> set[str]:
    """The identities of one journal. `foreign`: some of its lines were not counted as
    this stream's (another version, or another annotator's name), so its lines are read
    for the names they carry; otherwise every counted line names this stream already."""
    backend = journal.backend_for(journal_dir)
    keys = {f"annotator:{name}"}
    if token:
        keys.add(f"token:{token}")
    lines: list[dict[str, object]] = []
    if isinstance(backend, journal.FileJournal):
        path = journal.journal_path(journal_dir, name)
        data = path.read_bytes() if path.is_file() else b""
        if foreign and data.strip():
            lines = backend.read(name).lines
    else:
        lines = backend.read(name).lines
        data = json.dumps(lines, sort_keys=True).encode() if lines else b""
    if data.strip():  # every empty journal has the same hash: it identifies nobody
        keys.add(f"sha256:{hashlib.sha256(data).hexdigest()}")
    keys |= {f"annotator:{ln['annotator']}" for ln in lines if isinstance(ln.get("annotator"), str)}
    return keys


def identity_groups(
    project: Project,
    journal_dir: Path,
    names: Iterable[str],
    rank: dict[str, int],
    foreign: dict[str, int] | None = None,
) -> list[list[str]]:
    """Groups of two or more streams sharing an identity. Each group starts with the
    stream it collapses to (the most items in `rank`, then the first name), the rest sorted.
    `foreign`: per stream, how many of its lines were not counted as its own (None: unknown,
    every journal is read)."""
    tokens = _tokens(project)
    order = sorted(names)
    keys = {
        n: _keys(journal_dir, n, tokens.get(n), foreign is None or foreign.get(n, 0) > 0)
        for n in order
    }
    parent = {n: n for n in order}

    def find(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    owner: dict[str, str] = {}
    for n in order:
        for key in sorted(keys[n]):
            if key in owner:
                parent[find(n)] = find(owner[key])
            else:
                owner[key] = n
    groups: dict[str, list[str]] = {}
    for n in order:
        groups.setdefault(find(n), []).append(n)
    out = []
    for members in groups.values():
        if len(members) > 1:
            keep = min(members, key=lambda m: (-rank.get(m, 0), m))
            out.append([keep, *sorted(m for m in members if m != keep)])
    return sorted(out)
