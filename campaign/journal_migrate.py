"""Move a project's journals, registry and override log between files and PostgreSQL
(`evaudit journal migrate`), and compare the two copies (`evaudit journal verify`).

Idempotent: each stream (one annotator on one packet), the registry and the override
log are copied only where the target lacks them; a target that already holds the same
lines is left alone, one that holds a prefix gets the rest, and one that holds anything
else is an error (nothing is overwritten). The campaign id of a migration to the
database is recorded in project.json before the first row is written, so a run that
stopped half-way is resumed, not duplicated. After copying, every stream is compared by
line count and SHA-256 of its canonical lines (the file journal's own serialisation), and
only then does project.json switch backend.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaign import journal, journal_pg
from campaign.overrides import append_override_pg, read_overrides_pg
from campaign.project import Project, write_bytes_atomic, write_json_atomic
from vocabulary.errors import InputError
from vocabulary.jsonlines import json_lines
from vocabulary.jsonread import json_loads

_PENDING = "journal_migration"


def canonical(line: dict[str, Any]) -> bytes:
    """A line as the file journal writes it (so db -> file is byte-identical)."""
    return json.dumps(line, ensure_ascii=False, sort_keys=True).encode() + b"\n"


@dataclass(frozen=True)
class StreamCheck:
    packet: str
    annotator: str
    file_lines: int
    db_lines: int
    file_sha256: str
    db_sha256: str

    @property
    def same(self) -> bool:
        return self.file_sha256 == self.db_sha256 and self.file_lines == self.db_lines

    def to_json(self) -> dict[str, Any]:
        return {
            "packet": self.packet,
            "annotator": self.annotator,
            "file_lines": self.file_lines,
            "db_lines": self.db_lines,
            "file_sha256": self.file_sha256,
            "db_sha256": self.db_sha256,
            "same": self.same,
        }


@dataclass(frozen=True)
class Comparison:
    """Files in the project folder against the campaign's rows in the database."""

    url: str  # without the password
    streams: list[StreamCheck]
    registry_same: bool
    overrides_same: bool
    unparsable_file_lines: int  # never copied: no reader counts them either

    @property
    def same(self) -> bool:
        return all(s.same for s in self.streams) and self.registry_same and self.overrides_same

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "same": self.same,
            "registry_same": self.registry_same,
            "overrides_same": self.overrides_same,
            "unparsable_file_lines": self.unparsable_file_lines,
            "streams": [s.to_json() for s in self.streams],
        }


@dataclass(frozen=True)
class MigrateReport:
    to: str  # "file" or the database URL without its password
    copied_lines: dict[str, int] = field(default_factory=dict)  # "packet/annotator" -> n
    copied_overrides: int = 0
    comparison: Comparison | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "to": self.to,
            "copied_lines": self.copied_lines,
            "copied_overrides": self.copied_overrides,
            "comparison": self.comparison.to_json() if self.comparison else None,
        }


def _digest(lines: list[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(canonical(line))
    return h.hexdigest()


def _file_streams(project: Project) -> dict[tuple[str, str], tuple[list[dict[str, Any]], int]]:
    out = {}
    if project.journals_dir.is_dir():
        for jdir in sorted(p for p in project.journals_dir.iterdir() if p.is_dir()):
            for name in journal.FileJournal(jdir).annotators():
                read = journal.FileJournal(jdir).read(name)
                out[(jdir.name, name)] = (read.lines, read.skipped)
    return out


def _file_registry(project: Project) -> dict[str, dict[str, Any]]:
    path = project.annotators_path
    if not path.is_file():
        return {}
    people = json_loads(path.read_text(encoding="utf-8")).get("annotators")
    return dict(people) if isinstance(people, dict) else {}


def _file_overrides(project: Project) -> list[dict[str, Any]]:
    path = project.decisions_dir / "overrides.jsonl"
    if not path.is_file():
        return []
    return [obj for _lineno, obj in json_lines(path, json_hint="fix or remove the line")]


def _db_config(project: Project) -> journal_pg.PgConfig | None:
    """The database copy: the current backend, or the one a migration recorded."""
    cfg = journal_pg.config_for(project.root)
    if cfg is not None:
        return cfg
    pending = project.meta().get(_PENDING)
    if isinstance(pending, dict):
        return journal_pg.PgConfig(
            url=journal_pg.env_url() or str(pending["url"]), campaign=str(pending["campaign"])
        )
    return None


def compare(project: Project, cfg: journal_pg.PgConfig | None = None) -> Comparison:
    cfg = cfg or _db_config(project)
    if cfg is None:
        raise InputError(
            "this project has no database copy to compare with",
            file=project.meta_path,
            hint="run `evaudit journal migrate DIR --to postgresql://...` first",
        )
    files = _file_streams(project)
    keys = sorted(set(files) | set(journal_pg.streams(cfg)))
    checks = []
    for packet, name in keys:
        flines = files.get((packet, name), ([], 0))[0]
        dlines = journal_pg.read_lines(cfg, packet, name)
        checks.append(
            StreamCheck(packet, name, len(flines), len(dlines), _digest(flines), _digest(dlines))
        )
    return Comparison(
        url=journal_pg.redact(cfg.url),
        streams=checks,
        registry_same=_file_registry(project) == journal_pg.read_registry(cfg),
        overrides_same=_file_overrides(project) == read_overrides_pg(cfg),
        unparsable_file_lines=sum(skipped for _, skipped in files.values()),
    )


def _rest(source: list[Any], target: list[Any], what: str, where: Path | str) -> list[Any]:
    """What the target lacks of the source; an error when the target is no prefix of it."""
    if source[: len(target)] != target:
        raise InputError(
            f"the target already holds other {what} than the source",
            file=where,
            hint="compare with `evaudit journal verify DIR`; nothing was overwritten",
        )
    return source[len(target) :]


def to_database(project: Project, url: str) -> MigrateReport:
    if journal_pg.config_for(project.root) is not None:
        cfg = journal_pg.config_for(project.root)
        assert cfg is not None
        if journal_pg.redact(cfg.url) != journal_pg.redact(url):
            raise InputError(
                "this project already keeps its journals in another database",
                file=project.meta_path,
                hint="migrate --to file first",
            )
        return MigrateReport(to=journal_pg.redact(url), comparison=compare(project, cfg))
    meta = project.meta()
    pending = meta.get(_PENDING)
    if isinstance(pending, dict) and pending.get("url") == journal_pg.redact(url):
        cfg = journal_pg.PgConfig(url=url, campaign=str(pending["campaign"]))
    else:
        try:
            cfg = journal_pg.new_config(url)
        except journal_pg.JournalUnavailable as exc:
            raise InputError(
                f"cannot reach {journal_pg.redact(url)} ({exc.strerror})",
                hint="check the URL, that PostgreSQL runs, and PGPASSWORD",
            ) from exc
        meta[_PENDING] = {"url": journal_pg.redact(url), "campaign": cfg.campaign}
        write_json_atomic(project.meta_path, meta)  # before any row: a rerun resumes
    copied: dict[str, int] = {}
    for (packet, name), (lines, _) in _file_streams(project).items():
        have = journal_pg.read_lines(cfg, packet, name)
        rest = _rest(lines, have, f"lines for {packet}/{name}", url)
        if rest:
            journal_pg.insert_lines(cfg, packet, name, rest)
            copied[f"{packet}/{name}"] = len(rest)
    with journal_pg.registry_transaction(cfg) as people:
        for name, entry in _file_registry(project).items():
            if name in people and people[name] != entry:
                raise InputError(f"the database's registry differs for {name!r}", file=url)
            people[name] = entry
    new = _rest(_file_overrides(project), read_overrides_pg(cfg), "overrides", url)
    for record in new:
        append_override_pg(cfg, record)
    report = MigrateReport(journal_pg.redact(url), copied, len(new), compare(project, cfg))
    _require_same(report)
    meta = project.meta()
    meta.pop(_PENDING, None)
    write_json_atomic(project.meta_path, meta)
    journal_pg.set_backend(project.root, cfg)
    project.forget_settings()
    return report


def to_files(project: Project) -> MigrateReport:
    cfg = journal_pg.config_for(project.root)
    if cfg is None:
        return MigrateReport(to="file")  # already on files: nothing to do
    copied: dict[str, int] = {}
    for packet, name in journal_pg.streams(cfg):
        lines = journal_pg.read_lines(cfg, packet, name)
        path = journal.journal_path(project.journal_dir(packet), name)
        have = journal.FileJournal(path.parent).read(name).lines if path.is_file() else []
        rest = _rest(lines, have, f"lines for {packet}/{name}", path)
        if rest:
            old = path.read_bytes() if path.is_file() else b""
            if old and not old.endswith(b"\n"):
                old += b"\n"  # a crash's partial line stays isolated, as append does
            write_bytes_atomic(path, old + b"".join(canonical(ln) for ln in rest))
            copied[f"{packet}/{name}"] = len(rest)
    write_json_atomic(project.annotators_path, {"annotators": journal_pg.read_registry(cfg)})
    opath = project.decisions_dir / "overrides.jsonl"
    new = _rest(read_overrides_pg(cfg), _file_overrides(project), "overrides", opath)
    if new:
        old = opath.read_bytes() if opath.is_file() else b""
        write_bytes_atomic(opath, old + b"".join(canonical(r) for r in new))
    report = MigrateReport("file", copied, len(new), compare(project, cfg))
    _require_same(report)
    journal_pg.set_backend(project.root, None)
    project.forget_settings()
    return report


def _require_same(report: MigrateReport) -> None:
    comp = report.comparison
    if comp is not None and not comp.same:
        bad = [f"{s.packet}/{s.annotator}" for s in comp.streams if not s.same]
        raise InputError(
            f"copies differ after migration: {', '.join(bad) or 'registry/overrides'}",
            hint="the backend was not switched; see `evaudit journal verify DIR --json`",
        )


def migrate(project: Project, to: str) -> MigrateReport:
    if to == "file":
        return to_files(project)
    if journal_pg.is_pg_url(to):
        return to_database(project, to)
    raise InputError(f"--to {to!r} is neither 'file' nor a postgresql:// URL")
