"""`evaudit load`: validate and load a benchmark, then check its labels; `evaudit status`.

The work is `packet_builder.loader` (with `classic_files` for a BEIR/TREC benchmark);
this use case reads the options into its arguments and returns the reports both the
text and the `--json` output are made from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign.project import Project
from formats.classic_files import classic_from_options
from packet_builder.loader import LoadResult, load_benchmark, status
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError
from vocabulary.tables import table


def parse_runs(values: tuple[str, ...]) -> dict[str, Path]:
    """`--run NAME=FILE` values (a name given twice is refused)."""
    runs: dict[str, Path] = {}
    for v in values:
        name, sep, path = v.partition("=")
        if not sep or not name or not path:
            raise InputError(f"--run {v!r} must look like NAME=FILE")
        if name in runs:
            raise InputError(f"--run name {name!r} given twice")
        runs[name] = Path(path)
    return runs


@dataclass(frozen=True)
class LoadReport:
    """What was loaded and the label check on it; `directory` names the project as given."""

    result: LoadResult
    directory: str

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        r = self.result
        lines = [
            f"loaded {r.queries} queries ({r.conditions} conditions), {r.qrels} qrels, "
            f"{r.evidence} evidence records ({r.evidence_pages} evidence pages), "
            f"{len(r.runs)} runs"
        ]
        if r.check is not None:
            found = ", ".join(f"{k} {v}" for k, v in r.check.items() if v) or "no finding"
            rule = "on" if r.require_cross_page else "off"
            lines.append(
                f"label check (as `evaudit check`, cross-page requirement {rule}): {found}"
            )
            if r.explained_by_cross_page:
                lines.append(
                    f"  {r.explained_by_cross_page} grade_mismatch finding(s) are pairs graded "
                    "n-1 whose conditions share one evidence page: if the benchmark requires "
                    "cross-page golds, record it with "
                    f"`evaudit load {self.directory} --require-cross-page`"
                )
        return "\n".join(lines)


def load(
    project: ProjectRef,
    *,
    queries: Path | None = None,
    qrels: Path | None = None,
    evidence: Path | None = None,
    runs: tuple[str, ...] = (),
    beir_dir: Path | None = None,
    split: str = "test",
    trec_topics: Path | None = None,
    trec_qrels: Path | None = None,
    guideline: Path | None = None,
    relevant_from: int | None = None,
    require_cross_page: bool | None = None,
) -> LoadReport:
    """Load n-Clue files or a classic benchmark (all or nothing), and `runs` (NAME=FILE).

    The classic options are checked first, then the project, then the run specs."""
    classic = classic_from_options(
        beir_dir=beir_dir, split=split, guideline=guideline, relevant_from=relevant_from,
        trec_topics=trec_topics, trec_qrels=trec_qrels,
    )  # fmt: skip
    opened = project_at(project)
    result = load_benchmark(
        opened, queries=queries, qrels=qrels, evidence=evidence, runs=parse_runs(runs),
        classic=classic, require_cross_page=require_cross_page,
    )  # fmt: skip
    where = opened.root if isinstance(project, Project) else project
    return LoadReport(result, str(where))


_PAGE_KINDS = (
    "pages: stored in the store; pages_expected: in the source files; pages_extracted: "
    "stored with text; pages_empty: stored without text; pages_skipped: in skipped files"
)


@dataclass(frozen=True)
class StatusReport:
    """The project's counts (documents, pages and their kinds, queries, qrels, runs)."""

    counts: dict[str, int]

    def to_json(self) -> dict[str, int]:
        return self.counts

    def rows(self) -> list[tuple[str, int]]:
        return list(self.counts.items())

    def table(self) -> str:
        return table(self.rows(), ["what", "count"]) + "\n" + _PAGE_KINDS


def project_status(project: ProjectRef) -> StatusReport:
    """`evaudit status`: what the store holds now."""
    return StatusReport(status(project_at(project)))
