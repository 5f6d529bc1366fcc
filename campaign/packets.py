"""Packets and their admin keys on disk, and the packets registry in the store.

One list of packets: the registry (`packets` table), written in the same step as the
packet and key files (`save_packet`), in build order, with each file's SHA-256. Every
command and page that lists packets calls `list_packets`; nothing globs `packets/`.

One reader of admin keys: `read_admin_key` checks the file is an evaudit admin key and
reports a missing or corrupt one as `file: what is wrong` with the fix. Admin only:
annotator-facing code never imports this module.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign import store
from campaign.project import Project, now_iso, write_bytes_atomic
from vocabulary.errors import InputError
from vocabulary.jsonread import json_document, json_loads

PACKET_FORMAT = "evaudit-packet"
KEY_FORMAT = "evaudit-admin-key"


@dataclass(frozen=True)
class PacketRow:
    name: str
    kind: str
    path: str
    sha256: str
    key_path: str
    key_sha256: str
    created_at: str
    n_items: int
    params: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def list_packets(project: Project) -> list[PacketRow]:
    """Registered packets, oldest first."""
    return [
        PacketRow(
            name=r[0],
            kind=r[1],
            path=r[2],
            sha256=r[3],
            key_path=r[4],
            key_sha256=r[5],
            created_at=r[6],
            n_items=int(r[7]),
            params=json_loads(r[8] or "{}"),
        )
        for r in store.packet_rows(project.store_path)
    ]


def packet_row(project: Project, name: str) -> PacketRow:
    rows = list_packets(project)
    for row in rows:
        if row.name == name:
            return row
    known = ", ".join(r.name for r in rows) or "none yet"
    raise InputError(
        f"unknown packet {name!r}", file=project.store_path, hint=f"known packets: {known}"
    )


def save_packet(
    project: Project,
    name: str,
    kind: str,
    packet: bytes,
    key: bytes,
    n_items: int,
    params: dict[str, Any],
) -> PacketRow:
    """Write the packet, then its key (both 0600, atomically), then the registry row in one
    transaction; on any failure the files this call wrote are removed again."""
    ppath, kpath = project.packet_path(name), project.key_path(name)
    row = PacketRow(
        name=name,
        kind=kind,
        path=str(ppath.relative_to(project.root)),
        sha256=_sha256(packet),
        key_path=str(kpath.relative_to(project.root)),
        key_sha256=_sha256(key),
        created_at=now_iso(),
        n_items=n_items,
        params=params,
    )
    written: list[Path] = []
    try:
        for path, data in ((ppath, packet), (kpath, key)):
            if path.exists():
                raise InputError("refusing to overwrite", file=path, hint="pick a new packet name")
            write_bytes_atomic(path, data)
            written.append(path)
        with store.transaction(project.store_path) as con:
            store.insert_packet(
                con, [*list(row.to_json().values())[:8], json.dumps(params, sort_keys=True)]
            )
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return row


def load_packet(project: Project, name: str) -> tuple[dict[str, Any], bytes, PacketRow]:
    """The packet, its bytes and registry row; fails if the file changed since it was built."""
    row = packet_row(project, name)
    path = project.root / row.path
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError("packet file is missing", file=path, hint="rebuild the packet") from exc
    if _sha256(data) != row.sha256:
        raise InputError(
            "packet file changed since it was built (SHA-256 differs from the store)",
            file=path,
            hint="restore the original file; packets are immutable",
        )
    return json_loads(data), data, row


def read_admin_key(project: Project, name: str) -> dict[str, Any]:
    """The admin key of packet `name`, checked to be one (format); missing, corrupt or
    foreign files are an InputError naming the file."""
    path = project.key_path(name)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(
            "admin key not found", file=path, hint="rebuild the packet with `evaudit packet build`"
        ) from exc
    key = json_document(data, "corrupt admin key", path)
    if not isinstance(key, dict) or key.get("format") != KEY_FORMAT:
        raise InputError("not an evaudit admin key", file=path)
    return key
