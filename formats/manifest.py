"""One-command reproduction check of a release: a manifest of inputs, commands and outputs.

The n-Clue supplement ("Do Current Retrievers Cover All the Evidence?",
release appendix) ships `reproduce.py --verify`, which regenerates every table
from the frozen inputs and checks every file hash. Here the manifest
(docs/runs.md) is JSON beside the release files:

    {"version": 1,
     "inputs":  [{"path": "queries.jsonl", "sha256": "..."}],
     "commands": [{"argv": ["evaudit", "runs", "fuse", ...], "stdout": "fuse.json"}],
     "outputs": [{"path": "fused.trec", "sha256": "..."}]}

Paths are relative to the manifest's folder and stay inside it. Commands are
the evaudit command line only (argv[0] == "evaudit"); "stdout" optionally
saves a command's standard output as a file. Running a manifest is the use case
`services.reproduce` (`run_manifest`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from vocabulary.digest import file_sha256
from vocabulary.errors import InputError
from vocabulary.jsonread import json_loads

HEX = set("0123456789abcdef")


@dataclass(frozen=True)
class FileEntry:
    path: str
    sha256: str | None


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    stdout: str | None = None


@dataclass(frozen=True)
class Manifest:
    inputs: tuple[FileEntry, ...]
    commands: tuple[Command, ...]
    outputs: tuple[FileEntry, ...]

    def to_json(self) -> dict[str, Any]:
        def files(entries: tuple[FileEntry, ...]) -> list[dict[str, Any]]:
            return [{"path": e.path, "sha256": e.sha256} for e in entries]

        cmds: list[dict[str, Any]] = []
        for c in self.commands:
            cmds.append({"argv": list(c.argv), **({"stdout": c.stdout} if c.stdout else {})})
        return {"version": 1, "inputs": files(self.inputs), "commands": cmds,
                "outputs": files(self.outputs)}  # fmt: skip


def _rel_path(value: Any, where: str, file: Path) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: 'path' must be a non-empty string", file=file)
    p = PurePosixPath(value)
    if p.is_absolute() or ".." in p.parts or "\\" in value:
        raise InputError(f"{where}: path {value!r} leaves the manifest's folder", file=file,
                         hint="use a relative path without '..'")  # fmt: skip
    return str(p)


def _entries(obj: dict[str, Any], key: str, file: Path, hashes: bool) -> tuple[FileEntry, ...]:
    raw = obj.get(key, [])
    if not isinstance(raw, list):
        raise InputError(f"{key!r} must be a list", file=file)
    out = []
    for i, e in enumerate(raw, start=1):
        where = f"{key}[{i}]"
        if not isinstance(e, dict):
            raise InputError(f"{where}: expected an object with 'path' and 'sha256'", file=file)
        sha = e.get("sha256")
        if sha is not None and (not isinstance(sha, str) or len(sha) != 64 or set(sha) - HEX):
            raise InputError(f"{where}: 'sha256' must be 64 lowercase hex digits", file=file)
        if sha is None and hashes:
            raise InputError(f"{where}: no 'sha256'", file=file,
                             hint="record the manifest first (evaudit reproduce --record)")  # fmt: skip
        out.append(FileEntry(_rel_path(e.get("path"), where, file), sha))
    return tuple(out)


def read_manifest(path: Path, *, need_hashes: bool) -> Manifest:
    try:
        obj = json_loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("manifest not found", file=path, hint="check the path") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not a JSON manifest ({exc})", file=path) from None
    if not isinstance(obj, dict) or obj.get("version") != 1:
        raise InputError('expected a JSON object with "version": 1', file=path)
    cmds = []
    for i, c in enumerate(obj.get("commands") or [], start=1):
        argv = c.get("argv") if isinstance(c, dict) else None
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise InputError(f"commands[{i}]: 'argv' must be a non-empty list of strings",
                             file=path)  # fmt: skip
        if argv[0] != "evaudit":
            raise InputError(f"commands[{i}]: only evaudit commands may run, not {argv[0]!r}",
                             file=path, hint="start argv with \"evaudit\"")  # fmt: skip
        stdout = c.get("stdout")
        if stdout is not None:
            stdout = _rel_path(stdout, f"commands[{i}].stdout", path)
        cmds.append(Command(tuple(argv), stdout))
    if not cmds:
        raise InputError("the manifest lists no commands", file=path)
    outputs = _entries(obj, "outputs", path, need_hashes)
    if not outputs:
        raise InputError("the manifest lists no outputs", file=path)
    return Manifest(_entries(obj, "inputs", path, need_hashes), tuple(cmds), outputs)


def write_manifest(path: Path, manifest: Manifest) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(manifest.to_json(), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write the manifest ({exc.strerror})", file=path) from exc


def manifest_for(
    home: Path,
    argv: Sequence[str],
    inputs: Sequence[Path],
    outputs: Sequence[Path],
    stdout: str | None = None,
) -> Manifest:
    """A one-command manifest for what a command just did (for `finalize`/`score --manifest`).

    Paths are made relative to ``home`` (the manifest's folder) and must lie
    inside it; hashes are of the files as they are now. ``argv`` is the
    command as run, starting with "evaudit", its paths already relative to ``home``.
    """
    home = Path(home).resolve()

    def entry(p: Path) -> FileEntry:
        full = Path(p).resolve()
        try:
            rel = full.relative_to(home)
        except ValueError:
            raise InputError(f"{p} is outside the manifest's folder {home}",
                             hint="keep inputs and outputs under one folder") from None  # fmt: skip
        if not full.is_file():
            raise InputError("file not found", file=p)
        return FileEntry(rel.as_posix(), file_sha256(full))

    if not argv or argv[0] != "evaudit":
        raise ValueError("argv must start with 'evaudit'")
    return Manifest(
        tuple(entry(p) for p in inputs),
        (Command(tuple(argv), stdout),),
        tuple(entry(p) for p in outputs),
    )


ArgvItem = str | Path | tuple[str, Path]


def project_files(root: Path, exclude: Sequence[Path] = ()) -> list[Path]:
    """Every file of a project folder a command may read (store, packets, keys, journals,
    overrides, ...), sorted; files under ``exclude`` (the command's outputs) and temp
    files are left out. A project whose journals live in PostgreSQL is refused: a
    scratch copy of its folder would not hold the answers."""
    from campaign.journal_pg import config_for

    root = Path(root).resolve()
    if config_for(root) is not None:
        raise InputError("the project's journals are in PostgreSQL, not files", file=root,
                         hint="migrate them to files (evaudit journal migrate) "
                              "before writing a reproduction manifest")  # fmt: skip
    skip = [Path(p).resolve() for p in exclude]
    out = []
    for p in sorted(root.rglob("*")):
        full = p.resolve()
        if not p.is_file() or p.name.endswith((".tmp", ".lock")) or p.name.startswith(".~"):
            continue
        if any(full == s or s in full.parents for s in skip):
            continue
        out.append(p)
    return out


def write_command_manifest(
    manifest_out: Path,
    argv: Sequence[ArgvItem],
    inputs: Sequence[Path],
    outputs: Sequence[Path],
    stdout: Path | None = None,
) -> Manifest:
    """Write the manifest of the command that has just run (`finalize`/`score
    --manifest-out`). ``argv`` items that are paths (or (prefix, path) pairs, as in
    NAME=FILE) are rewritten relative to the manifest's folder, so `reproduce` can rerun
    the command in a scratch copy; ``stdout`` is the file holding what it printed."""
    home = Path(manifest_out).resolve().parent

    def rel(p: Path) -> str:
        try:
            return Path(p).resolve().relative_to(home).as_posix() or "."
        except ValueError:
            raise InputError(f"{p} is outside the manifest's folder {home}",
                             hint="put the manifest in a folder holding the command's "
                                  "inputs and outputs") from None  # fmt: skip

    words = ["evaudit"]
    for a in argv:
        if isinstance(a, tuple):
            words.append(a[0] + rel(a[1]))
        else:
            words.append(rel(a) if isinstance(a, Path) else a)
    outs = [*outputs, *([stdout] if stdout is not None else [])]
    manifest = manifest_for(home, words, inputs, outs, rel(stdout) if stdout else None)
    write_manifest(Path(manifest_out), manifest)
    return manifest


def require_inside(manifest_out: Path, paths: Sequence[Path]) -> None:
    """Refuse, before a command writes anything, paths its manifest could not name."""
    home = Path(manifest_out).resolve().parent
    for p in paths:
        full = Path(p).resolve()
        if full != home and home not in full.parents:
            raise InputError(f"{p} is outside the manifest's folder {home}",
                             hint="put --manifest-out in a folder holding the command's "
                                  "inputs and outputs")  # fmt: skip
