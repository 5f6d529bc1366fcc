"""The packet registry: write a built packet + key + store row all-or-nothing, list, load, export."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign import store
from campaign.project import Project, now_iso
from packet_builder.blinding import packet_bytes, sha256
from packet_builder.history import read_key
from packet_builder.leaks import LeakReport, check_packet, check_text
from vocabulary.errors import InputError

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

# (packet, packet SHA-256, annotator) -> one self-contained HTML page. The offline page is
# the app's judging card, so the front end that owns it (audit_app.offline) is passed in:
# the builder layer never imports the app (docs/architecture.md).
HtmlBuilder = Callable[[dict[str, Any], str, str], str]


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


def check_name(project: Project, name: str) -> None:
    if not NAME_RE.fullmatch(name):
        raise InputError(
            f"bad packet name {name!r}",
            hint="use letters, digits, '.', '_' or '-' (at most 64, starting with a letter/digit)",
        )
    if project.packet_path(name).exists() or project.key_path(name).exists():
        raise InputError(
            f"packet {name!r} already exists",
            file=project.packet_path(name),
            hint="pick a new name",
        )
    if any(row.name == name for row in list_packets(project)):
        raise InputError(f"packet {name!r} is already registered", hint="pick a new name")


def list_packets(project: Project) -> list[PacketRow]:
    """Registered packets, oldest first."""
    with store.connect(project.store_path, read_only=True) as con:
        rows = con.execute(
            "SELECT name, kind, path, sha256, key_path, key_sha256, created_at, n_items, params "
            "FROM packets ORDER BY created_at, name"
        ).fetchall()
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
            params=json.loads(r[8] or "{}"),
        )
        for r in rows
    ]


def packet_row(project: Project, name: str) -> PacketRow:
    for row in list_packets(project):
        if row.name == name:
            return row
    known = ", ".join(r.name for r in list_packets(project)) or "none yet"
    raise InputError(
        f"unknown packet {name!r}", file=project.store_path, hint=f"known packets: {known}"
    )


def earlier_packets(project: Project, name: str | None = None) -> list[str]:
    """Packets registered before `name` (all packets when `name` is None or not registered)."""
    names = [r.name for r in list_packets(project)]
    return names[: names.index(name)] if name in names else names


def _write_bytes_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def register(
    project: Project, packet: dict[str, Any], key: dict[str, Any], params: dict[str, Any]
) -> PacketRow:
    """Write packet, then key, then the store row in one transaction; on failure remove files."""
    name = str(packet["packet_id"])
    report = check_packet(packet, key)
    if report.leaks:
        raise leak_error(report, name)
    pbytes, kbytes = packet_bytes(packet), packet_bytes(key)
    if key["packet_sha256"] != sha256(pbytes):
        raise RuntimeError("admin key does not match the packet bytes")
    ppath, kpath = project.packet_path(name), project.key_path(name)
    row = PacketRow(
        name=name,
        kind=str(packet["kind"]),
        path=str(ppath.relative_to(project.root)),
        sha256=sha256(pbytes),
        key_path=str(kpath.relative_to(project.root)),
        key_sha256=sha256(kbytes),
        created_at=now_iso(),
        n_items=len(packet["items"]),
        params=params,
    )
    written: list[Path] = []
    try:
        for path, data in ((ppath, pbytes), (kpath, kbytes)):
            if path.exists():
                raise InputError("refusing to overwrite", file=path, hint="pick a new packet name")
            _write_bytes_atomic(path, data)
            written.append(path)
        with store.transaction(project.store_path) as con:
            con.execute(
                "INSERT INTO packets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [*list(row.to_json().values())[:8], json.dumps(params, sort_keys=True)],
            )
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return row


def leak_error(report: LeakReport, name: str) -> InputError:
    first = report.leaks[0]
    return InputError(
        f"packet {name!r} would leak {len(report.leaks)} admin value(s), first "
        f"{first['kind']} {first['value']!r} at {first['where']}; nothing written",
        hint="remove identifiers from the query/condition texts or pages",
        exit_code=1,
    )


def load_packet(project: Project, name: str) -> tuple[dict[str, Any], bytes, PacketRow]:
    """The packet, its bytes and registry row; fails if the file changed since it was built."""
    row = packet_row(project, name)
    path = project.root / row.path
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError("packet file is missing", file=path, hint="rebuild the packet") from exc
    if sha256(data) != row.sha256:
        raise InputError(
            "packet file changed since it was built (SHA-256 differs from the store)",
            file=path,
            hint="restore the original file; packets are immutable",
        )
    return json.loads(data), data, row


def check(project: Project, name: str) -> LeakReport:
    packet, _data, _row = load_packet(project, name)
    return check_packet(packet, read_key(project, name))


def export(
    project: Project,
    name: str,
    out: Path,
    fmt: str = "json",
    annotator: str | None = None,
    html_builder: HtmlBuilder | None = None,
) -> dict[str, Any]:
    """Write the packet (JSON: the exact built bytes) or the offline HTML for one annotator,
    made by `html_builder` and checked for admin-key values before anything is written."""
    packet, data, row = load_packet(project, name)
    if fmt == "json":
        payload = data
    elif fmt == "html":
        if not annotator:
            raise InputError("--format html needs --annotator NAME")
        if html_builder is None:
            raise InputError(
                "HTML export not available (no offline page builder)",
                hint="export --format json instead",
            )
        html = html_builder(packet, row.sha256, annotator)
        report = check_text(html, read_key(project, name))
        if report.leaks:
            raise leak_error(report, name)
        payload = html.encode("utf-8")
    else:
        raise InputError(f"unknown export format {fmt!r}", hint="use json or html")
    _write_bytes_atomic(out, payload)
    return {
        "packet": name,
        "format": fmt,
        "out": str(out),
        "sha256": row.sha256,
        "bytes": len(payload),
        "file_sha256": sha256(payload),
    }
