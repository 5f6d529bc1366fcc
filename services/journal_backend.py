"""`evaudit journal migrate|verify`: move the journals between files and PostgreSQL, compare.

The copy and the comparison are `campaign.journal_migrate`; this use case opens the
project and returns the reports the CLI prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.journal_migrate import Comparison, MigrateReport, compare, migrate
from services.projects import ProjectRef, project_at


@dataclass(frozen=True)
class JournalMigrateReport:
    result: MigrateReport

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        r = self.result
        lines = [
            f"journals now in {r.to}: copied {sum(r.copied_lines.values())} lines in "
            f"{len(r.copied_lines)} streams and {r.copied_overrides} overrides"
        ]
        if r.comparison is not None:
            lines.append(f"verified {len(r.comparison.streams)} streams: identical")
        return "\n".join(lines)


@dataclass(frozen=True)
class JournalVerifyReport:
    result: Comparison

    @property
    def same(self) -> bool:
        return self.result.same

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        r = self.result
        lines = [
            f"{s.packet}/{s.annotator}: files {s.file_lines} lines, "
            f"database {s.db_lines} lines: {'same' if s.same else 'DIFFERENT'}"
            for s in r.streams
        ]
        lines.append(f"registry: {'same' if r.registry_same else 'DIFFERENT'}")
        lines.append(f"overrides: {'same' if r.overrides_same else 'DIFFERENT'}")
        return "\n".join(lines)


def migrate_journals(project: ProjectRef, to: str) -> JournalMigrateReport:
    """Copy journals, registry and overrides to `to` (a postgresql:// URL or "file"),
    verify them and switch the project over (safe to run again)."""
    return JournalMigrateReport(migrate(project_at(project), to))


def verify_journals(project: ProjectRef) -> JournalVerifyReport:
    """The project's journal files against its rows in PostgreSQL."""
    return JournalVerifyReport(compare(project_at(project)))
