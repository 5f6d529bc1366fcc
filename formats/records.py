"""Typed records for a benchmark: queries with conditions, qrels, evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Condition:
    condition_id: str
    name: str
    requirement: str
    counts: tuple[str, ...] = ()
    does_not_count: tuple[str, ...] = ()
    note: str = ""
    aliases: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "condition_id": self.condition_id,
            "name": self.name,
            "requirement": self.requirement,
            "counts": list(self.counts),
            "does_not_count": list(self.does_not_count),
            "note": self.note,
            "aliases": list(self.aliases),
        }


@dataclass(frozen=True)
class Query:
    query_id: str
    text: str
    conditions: tuple[Condition, ...]
    release: str = ""
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def n(self) -> int:
        return len(self.conditions)

    def to_json(self) -> dict[str, Any]:
        return {
            "query_id": self.query_id,
            "text": self.text,
            "release": self.release,
            "source": self.source,
            "conditions": [c.to_json() for c in self.conditions],
        }


@dataclass(frozen=True)
class Qrel:
    query_id: str
    doc_id: str
    grade: int


@dataclass(frozen=True)
class Evidence:
    query_id: str
    doc_id: str
    condition_id: str
    pages: tuple[int, ...]
