"""Which response streams were simulated (`evaudit responses simulate`, the demo's
`--simulate`): `simulated.json` in the project folder, so `annotator list` can mark them.

A simulated stream writes exactly the lines the app writes, so nothing in the journal
itself tells it apart; the simulation records (packet, name) here before its first save.
Streams simulated before this record existed are not marked.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from campaign.project import Project, write_json_atomic
from vocabulary.errors import InputError
from vocabulary.jsonread import json_document

FORMAT = "evaudit-simulated-streams"


def simulated_path(project: Project) -> Path:
    return project.root / "simulated.json"


def simulated_streams(project: Project) -> dict[str, list[str]]:
    """packet -> names of its simulated streams (sorted); {} when none was recorded."""
    path = simulated_path(project)
    if not path.is_file():
        return {}
    obj = json_document(path.read_text(encoding="utf-8"), "corrupt JSON", path)
    streams = obj.get("streams") if isinstance(obj, dict) else None
    if obj.get("format") != FORMAT or not isinstance(streams, dict):
        raise InputError(f"not a {FORMAT} file", file=path, hint="remove it or restore it")
    return {str(p): sorted(map(str, names)) for p, names in streams.items()}


def record_simulated(project: Project, packet: str, names: Iterable[str]) -> None:
    """Add (packet, name) for each simulated stream."""
    streams = simulated_streams(project)
    streams[packet] = sorted(set(streams.get(packet, [])) | set(names))
    write_json_atomic(simulated_path(project), {"format": FORMAT, "streams": streams})
