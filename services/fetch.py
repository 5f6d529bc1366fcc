"""`evaudit fetch`: download a corpus manifest's sources into a folder, verified by hash.

The engine (`packet_builder.source_fetch`) streams, resumes, retries and checks each
file; this service reads the manifest, runs it with the injected progress and returns
the report both the text and the `--json` output are made from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formats.corpus_manifest import read_manifest
from packet_builder.source_fetch import FetchLimits, FetchOutcome, fetch_all
from services.projects import ProjectRef, project_at
from vocabulary.progress import Progress, no_progress
from vocabulary.tables import table

__all__ = ["FetchLimits", "FetchOptions", "FetchReport", "fetch_sources"]


@dataclass(frozen=True)
class FetchOptions:
    """The command's limits as given (`max_mb` in MiB); `limits()` is the engine's."""

    timeout: float = 30.0
    max_mb: float = 512.0
    attempts: int = 4
    backoff: float = 1.0

    def limits(self) -> FetchLimits:
        return FetchLimits(timeout=self.timeout, max_bytes=int(self.max_mb * (1 << 20)),
                           attempts=self.attempts, backoff=self.backoff)  # fmt: skip


@dataclass(frozen=True)
class FetchReport:
    manifest: str
    out: str
    outcomes: list[FetchOutcome]

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def failed(self) -> list[FetchOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    def to_json(self) -> dict[str, Any]:
        return {
            "manifest": self.manifest, "out": self.out, "rows": len(self.outcomes),
            "fetched": self.count("fetched"), "present": self.count("present"),
            "failed": len(self.failed), "ok": not self.failed,
            "files": [o.to_json() for o in self.outcomes],
        }  # fmt: skip

    def rows(self) -> list[dict[str, object]]:
        return [{"line": o.line, "doc_id": o.doc_id, "error": o.error} for o in self.failed]

    def table(self) -> str:
        head = (
            f"fetch {self.manifest} -> {self.out}: {self.count('fetched')} fetched, "
            f"{self.count('present')} already present, {len(self.failed)} failed "
            f"of {len(self.outcomes)}"
        )
        if not self.failed:
            return head
        body = table([[f"{self.manifest}:{o.line}", o.doc_id, o.error or ""]
                      for o in self.failed], ["line", "doc_id", "failure"])  # fmt: skip
        return f"{head}\n{body}"


def fetch_sources(
    project: ProjectRef, manifest: Path, out: Path | None, limits: FetchLimits | FetchOptions, *,
    workers: int = 4, progress: Progress = no_progress,
) -> FetchReport:  # fmt: skip
    """Fetch every row of `manifest` into `out` (default: the project's `sources/`)."""
    project = project_at(project)
    rows = read_manifest(manifest)
    target = out if out is not None else project.root / "sources"
    if isinstance(limits, FetchOptions):
        limits = limits.limits()
    outcomes = fetch_all(rows, target, limits, workers=workers, progress=progress)
    return FetchReport(str(manifest), str(target), outcomes)
