"""Register a built packet (leak check, then `campaign.packets.save_packet`), check and export it.

The registry, the packet and key files and their readers live in `campaign.packets`;
the names re-exported here (`PacketRow`, `list_packets`, `packet_row`, `load_packet`) are
the same functions."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from campaign.packets import (
    PacketRow,
    list_packets,
    load_packet,
    packet_row,
    read_admin_key,
    save_packet,
)
from campaign.project import Project, write_bytes_atomic
from packet_builder.blinding import packet_bytes, sha256
from packet_builder.leaks import LeakReport, check_packet, check_text
from vocabulary.errors import InputError

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

# (packet, packet SHA-256, annotator) -> one self-contained HTML page. The offline page is
# the judging card in one file, built a layer above (services.offline), so it is passed in:
# the builder never imports services or the app (docs/architecture.md).
HtmlBuilder = Callable[[dict[str, Any], str, str], str]


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


def earlier_packets(project: Project, name: str | None = None) -> list[str]:
    """Packets registered before `name` (all packets when `name` is None or not registered)."""
    names = [r.name for r in list_packets(project)]
    return names[: names.index(name)] if name in names else names


def register(
    project: Project, packet: dict[str, Any], key: dict[str, Any], params: dict[str, Any]
) -> PacketRow:
    """Check for leaks, then write packet, key and registry row all-or-nothing
    (`campaign.packets.save_packet`)."""
    name = str(packet["packet_id"])
    report = check_packet(packet, key)
    if report.leaks:
        raise leak_error(report, name)
    pbytes, kbytes = packet_bytes(packet), packet_bytes(key)
    if key["packet_sha256"] != sha256(pbytes):
        raise RuntimeError("admin key does not match the packet bytes")
    return save_packet(
        project, name, str(packet["kind"]), pbytes, kbytes, len(packet["items"]), params
    )


def leak_error(report: LeakReport, name: str) -> InputError:
    first = report.leaks[0]
    return InputError(
        f"packet {name!r} would leak {len(report.leaks)} admin value(s), first "
        f"{first['kind']} {first['value']!r} at {first['where']}; nothing written",
        hint="remove identifiers from the query/condition texts or pages",
        exit_code=1,
    )


def check(project: Project, name: str) -> LeakReport:
    packet, _data, _row = load_packet(project, name)
    return check_packet(packet, read_admin_key(project, name))


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
        report = check_text(html, read_admin_key(project, name))
        if report.leaks:
            raise leak_error(report, name)
        payload = html.encode("utf-8")
    else:
        raise InputError(f"unknown export format {fmt!r}", hint="use json or html")
    write_bytes_atomic(out, payload)  # 0600: an export is one person's packet
    return {
        "packet": name,
        "format": fmt,
        "out": str(out),
        "sha256": row.sha256,
        "bytes": len(payload),
        "file_sha256": sha256(payload),
    }


__all__ = [
    "PacketRow",
    "check",
    "check_name",
    "earlier_packets",
    "export",
    "list_packets",
    "load_packet",
    "packet_row",
    "register",
]
