"""`evaudit annotator list`: registered people and every response stream, simulated ones
marked (campaign.simulated), as one report.

A stream is one packet's journal of one name. Registered people are listed with the
packets they may open; a stream of a name with no account (simulated, or imported with
`responses import`) is listed too, so `annotator list` shows every stream a table may
count.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign.journal import iter_journals
from campaign.packets import list_packets
from campaign.project import Project, as_project
from campaign.registry import Annotator, list_annotators
from campaign.simulated import simulated_streams
from vocabulary.tables import table


@dataclass(frozen=True)
class Person(Annotator):
    """A registry entry (blank, role "", for a stream without an account) and its streams."""

    account: bool
    streams: tuple[str, ...]  # packets with a journal of this name
    simulated: tuple[str, ...]  # those of them written by a simulation

    def to_json(self) -> dict[str, Any]:
        return {
            **super().to_json(),
            "account": self.account,
            "streams": list(self.streams),
            "simulated": list(self.simulated),
        }


@dataclass(frozen=True)
class PeopleReport:
    people: list[Person]
    HEADERS = ("name", "role", "packets", "revoked", "created", "streams", "simulated")

    def to_json(self) -> dict[str, Any]:
        return {"annotators": [p.to_json() for p in self.people]}

    def rows(self) -> list[list[object]]:
        return [
            [
                p.name,
                p.role or "(no account)",
                ",".join(p.packets),
                "yes" if p.revoked else "",
                p.created,
                ",".join(p.streams),
                ("simulated: " + ",".join(p.simulated)) if p.simulated else "",
            ]
            for p in self.people
        ]

    def table(self) -> str:
        return table(self.rows(), list(self.HEADERS))


def people(project: Project | Path) -> PeopleReport:
    """Every account and every stream's name, sorted by name."""
    project = as_project(project)
    streams: dict[str, list[str]] = {}
    for row in list_packets(project):
        for name, _path in iter_journals(project.journal_dir(row.name)):
            streams.setdefault(name, []).append(row.name)
    simulated: dict[str, list[str]] = {}
    for packet, names in simulated_streams(project).items():
        for name in names:
            if packet in streams.get(name, []):
                simulated.setdefault(name, []).append(packet)
    accounts = {a.name: a for a in list_annotators(project)}
    out = []
    for name in sorted(set(accounts) | set(streams)):
        a = accounts.get(name)
        out.append(
            Person(
                name,
                a.role if a else "",
                a.packets if a else (),
                a.revoked if a else False,
                a.created if a else "",
                a is not None,
                tuple(sorted(streams.get(name, []))),
                tuple(sorted(simulated.get(name, []))),
            )
        )
    return PeopleReport(out)
