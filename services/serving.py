"""`evaudit serve`: what is checked and prepared before the app starts.

The metrics token `--metrics` needs, the journal database when journals live in
PostgreSQL (a wrong URL or password is a one-line error now, not a "NOT saved" at the
first save), and the per-packet page maps (`build_all_page_maps`): page_key -> (PDF, page)
from the admin key and the store, which only the server process reads
(`audit_app.render`). The demo prepares its project the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from campaign import journal_pg
from campaign.packets import list_packets
from campaign.project import Project, as_project, has_metrics_token, write_json_atomic
from packet_builder.page_images import page_locations
from vocabulary.errors import InputError


def build_page_map(project: Project, packet_id: str) -> Path | None:
    """Write the page map for one packet (admin side); None when no page comes from a PDF."""
    out = page_locations(project, packet_id)
    if not out:
        return None
    path = project.page_map_path(packet_id)
    write_json_atomic(path, out)
    return path


def build_all_page_maps(project: Project) -> list[Path]:
    """The page map of every packet that has its key and packet file."""
    done = []
    for row in sorted(list_packets(project), key=lambda r: r.name):
        packet_id = row.name
        if project.key_path(packet_id).is_file() and project.packet_path(packet_id).is_file():
            path = build_page_map(project, packet_id)
            if path is not None:
                done.append(path)
    return done


def prepare_serving(project: Project) -> list[Path]:
    """Admin-side preparation before serving: the per-packet page-image maps."""
    return build_all_page_maps(project)


def journal_database(project: Project) -> str | None:
    """With journals in PostgreSQL, reach the database now and return its redacted URL
    (None: journals are files)."""
    cfg = project.journals
    if cfg is None:
        return None
    try:
        journal_pg.read_registry(cfg)
    except journal_pg.JournalUnavailable as exc:
        raise InputError(
            f"cannot reach the journal database {journal_pg.redact(cfg.url)} ({exc.strerror})",
            file=project.meta_path,
            hint="start PostgreSQL, or give the password with PGPASSWORD or EVAUDIT_JOURNAL_URL",
        ) from exc
    return journal_pg.redact(cfg.url)


@dataclass(frozen=True)
class ServeSetup:
    """What `evaudit serve` prints to stderr before starting the server on `root`."""

    root: Path
    journals: str | None  # the redacted database URL, None for journal files
    page_maps: tuple[Path, ...]

    def notes(self, host: str, port: int, metrics: bool) -> list[str]:
        out = [f"journals: PostgreSQL {self.journals}"] if self.journals else []
        out.append(f"admin: http://{host}:{port}/  (annotators use their token links)")
        if metrics:
            out.append(f"metrics: http://{host}:{port}/_stcore/metrics  (metrics token)")
        return out


def prepare_serve(directory: Path, metrics: bool = False) -> ServeSetup:
    """`evaudit serve`: check what the server needs, then write the page maps."""
    project = as_project(directory)
    if metrics and not has_metrics_token(project):
        raise InputError(
            "--metrics needs a metrics token and the project has none",
            file=project.meta_path,
            hint=f"run `evaudit admin metrics-token {directory}` first",
        )
    journals = journal_database(project)
    return ServeSetup(project.root, journals, tuple(prepare_serving(project)))
