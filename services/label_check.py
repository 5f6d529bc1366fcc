"""`evaudit check`: every label re-derived from the construction evidence.

The check is `packet_builder.label_check`; this use case opens the project, runs it and
returns the report the text, the `--json` object and `--strict`'s error are made from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.project import Project
from packet_builder.label_check import CheckReport, check
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError
from vocabulary.tables import table


@dataclass(frozen=True)
class LabelCheckReport:
    """The findings; `directory` names the project as given (for the load hint)."""

    result: CheckReport
    directory: str

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        lines = [table(list(self.to_json()["counts"].items()), ["finding", "count"])]
        for f in self.result.findings:
            where = f"{f.query_id} / {f.doc_id}" + (
                f" / {f.condition_id}" if f.condition_id else ""
            )
            lines.append(f"  {f.kind}: {where}: {f.detail}")
        if hint := self.result.hint(self.directory):
            lines.append(hint)
        return "\n".join(lines)

    def strict_error(self) -> InputError | None:
        """What `--strict` raises (after the report is printed): None without findings."""
        if not self.result.findings:
            return None
        first = self.result.findings[0]
        return InputError(
            f"{len(self.result.findings)} label finding(s), first {first.kind} for query "
            f"{first.query_id!r} document {first.doc_id!r}: {first.detail}",
            hint="fix the qrels or evidence, or run without --strict",
        )


def check_labels(project: ProjectRef, require_cross_page: bool | None = None) -> LabelCheckReport:
    """Every finding; `require_cross_page` None = the requirement recorded at load."""
    opened = project_at(project)
    where = opened.root if isinstance(project, Project) else project
    return LabelCheckReport(check(opened, require_cross_page=require_cross_page), str(where))
