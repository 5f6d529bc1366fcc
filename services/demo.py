"""`evaudit demo`: a complete project from `sample_packets/` through the real chain.

init -> ingest the sample PDFs -> load queries/qrels/evidence/runs -> build an
initial packet -> add two annotators and an adjudicator -> (optionally)
simulate two annotators' journals. The caller then serves the folder.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaign.init import init_project
from campaign.project import Project
from services.annotators import add_annotator, login_url
from services.serving import prepare_serving
from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress

PACKET = "initial"
DEMO_PAIRS = 24  # a packet one person can finish in a demo session
PEOPLE = (("alice", "annotator"), ("bob", "annotator"), ("carol", "adjudicator"))


def sample_dir() -> Path:
    """`sample_packets/` of this checkout (the demo data ships with the repository)."""
    return Path(__file__).resolve().parent.parent / "sample_packets"


@dataclass
class SampleFiles:
    pdf_dir: Path | None
    pages: Path | None
    queries: Path
    qrels: Path
    evidence: Path | None
    runs: dict[str, Path] = field(default_factory=dict)


def _first(root: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        if (root / name).exists():
            return root / name
    return None


def find_sample(root: Path) -> SampleFiles:
    pdf_dir = _first(root, ("pdfs", "corpus", "documents", "pdf"))
    pages = _first(root, ("pages.jsonl",))
    queries = _first(root, ("queries.jsonl",))
    qrels = _first(root, ("qrels.jsonl", "qrels.txt", "qrels.tsv", "qrels"))
    if queries is None or qrels is None or (pdf_dir is None and pages is None):
        raise InputError(
            "sample benchmark incomplete (needs pdfs/ or pages.jsonl, queries.jsonl, qrels)",
            file=root,
            hint="restore sample_packets/ from the repository",
        )
    runs_dir = _first(root, ("runs",))
    runs = {}
    if runs_dir is not None and runs_dir.is_dir():
        runs = {p.stem: p for p in sorted(runs_dir.iterdir()) if p.is_file()}
    return SampleFiles(
        pdf_dir=pdf_dir,
        pages=pages if pdf_dir is None else None,
        queries=queries,
        qrels=qrels,
        evidence=_first(root, ("evidence.jsonl",)),
        runs=runs,
    )


def build_demo(
    folder: Path | None,
    *,
    host: str = "127.0.0.1",
    port: int = 8501,
    simulate: bool = False,
    password: str | None = None,
    progress: Progress = no_progress,
) -> dict[str, Any]:
    """Build the demo project; returns folder, password, login URLs and what was simulated."""
    sample = find_sample(sample_dir())
    final = Path(folder).resolve() if folder else Path(tempfile.mkdtemp(prefix="evaudit-demo-"))
    if final.exists() and any(final.iterdir()):
        raise InputError("folder is not empty", file=final, hint="give a new folder with --dir")
    # Build beside the target and rename at the end, so a failure leaves nothing half-built.
    work = final.with_name(f".{final.name}.partial-{os.getpid()}")
    try:
        info = _build(work, sample, host, port, simulate, password, progress)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    if final.exists():
        final.rmdir()
    os.rename(work, final)
    project = Project(final)
    prepare_serving(project)  # page maps name absolute PDF paths: build them at the final place
    return {**info, "dir": str(final)}


def _build(
    root: Path,
    sample: SampleFiles,
    host: str,
    port: int,
    simulate: bool,
    password: str | None,
    progress: Progress,
) -> dict[str, Any]:
    from packet_builder.ingest import IngestSpec, ingest
    from packet_builder.loader import load_benchmark
    from services.build import BuildSpec, build_packet

    project, generated = init_project(root, admin_password=password)
    ingest(project, IngestSpec(pdf_dir=sample.pdf_dir, pages_file=sample.pages), progress)
    load_benchmark(
        project,
        queries=sample.queries,
        qrels=sample.qrels,
        evidence=sample.evidence,
        runs=sample.runs,
    )
    spec = BuildSpec(name=PACKET, kind="initial", seed=7, total=DEMO_PAIRS)
    build_packet(project, spec, progress)
    urls = {}
    for name, role in PEOPLE:
        _entry, token = add_annotator(project, name, [PACKET], role)
        urls[name] = login_url(token, host, port)
    simulated: dict[str, int] = {}
    if simulate:
        from services.simulate import simulate as run_simulation

        simulated = run_simulation(project, PACKET, ("alice", "bob"))
    return {
        "admin_password": generated or password or "(from EVAUDIT_ADMIN_PASSWORD)",
        "admin_url": f"http://{host}:{port}/",
        "packet": PACKET,
        "urls": urls,
        "simulated": simulated,
    }


@dataclass(frozen=True)
class DemoReport:
    """`evaudit demo`: the project built, its admin password and the login URLs."""

    admin_password: str
    admin_url: str
    packet: str
    urls: Mapping[str, str]  # annotator -> login URL
    simulated: Mapping[str, int]  # annotator -> simulated saves (empty without --simulate)
    dir: str

    @property
    def root(self) -> Path:
        return Path(self.dir)

    def to_json(self) -> dict[str, Any]:
        return {
            "admin_password": self.admin_password,
            "admin_url": self.admin_url,
            "packet": self.packet,
            "urls": dict(self.urls),
            "simulated": dict(self.simulated),
            "dir": self.dir,
        }

    def table(self) -> str:
        lines = [
            f"demo project: {self.dir}",
            f"admin:        {self.admin_url}  password: {self.admin_password}",
            *(f"{name:<12}  {url}" for name, url in self.urls.items()),
        ]
        if self.simulated:
            done = ", ".join(f"{k}: {v} saves" for k, v in self.simulated.items())
            lines.append(f"simulated journals: {done}")
        return "\n".join(lines)


def demo(
    folder: Path | None,
    *,
    host: str = "127.0.0.1",
    port: int = 8501,
    simulate: bool = False,
    progress: Progress = no_progress,
) -> DemoReport:
    """`evaudit demo` (before serving)."""
    info = build_demo(folder, host=host, port=port, simulate=simulate, progress=progress)
    return DemoReport(
        admin_password=info["admin_password"],
        admin_url=info["admin_url"],
        packet=info["packet"],
        urls=info["urls"],
        simulated=info["simulated"],
        dir=info["dir"],
    )
