"""`evaudit reproduce MANIFEST --verify|--record`: rerun a release's commands, check hashes.

The manifest format is `formats.manifest` (docs/runs.md). `run_manifest` copies the
inputs into an empty scratch folder, creates the folders of the declared outputs, runs the
commands there in order and hashes the outputs it produced; an output differs when that
hash, or the hash of the release's own copy beside the manifest, is not the manifest's.
With `record`, the manifest gets the hashes found and is run again to verify them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from formats.manifest import FileEntry, Manifest, read_manifest, write_manifest
from vocabulary.digest import file_sha256
from vocabulary.errors import InputError


@dataclass(frozen=True)
class FileCheck:
    path: str
    expected: str | None
    actual: str | None  # regenerated in the scratch folder (inputs: the release's copy)
    release: str | None = None  # outputs: the copy beside the manifest, if there is one

    @property
    def ok(self) -> bool:
        same = self.expected is not None and self.actual == self.expected
        return same and (self.release is None or self.release == self.expected)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "expected": self.expected, "actual": self.actual,
                "release": self.release, "ok": self.ok}  # fmt: skip


@dataclass(frozen=True)
class CommandRun:
    argv: tuple[str, ...]
    exit_code: int
    stderr: str

    def to_json(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "exit_code": self.exit_code, "stderr": self.stderr}


@dataclass(frozen=True)
class ManifestRun:
    manifest: str
    inputs: tuple[FileCheck, ...]
    commands: tuple[CommandRun, ...]
    outputs: tuple[FileCheck, ...]
    differing: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        ran = all(c.exit_code == 0 for c in self.commands)
        return ran and all(i.ok for i in self.inputs) and all(o.ok for o in self.outputs)

    def to_json(self) -> dict[str, Any]:
        return {
            "manifest": self.manifest,
            "ok": self.ok,
            "inputs": [i.to_json() for i in self.inputs],
            "commands": [c.to_json() for c in self.commands],
            "outputs": [o.to_json() for o in self.outputs],
            "differing": list(self.differing),
        }


def run_manifest(
    manifest_path: Path, manifest: Manifest, prefix: Sequence[str], *, copy_outputs: bool = False
) -> ManifestRun:
    """Copy inputs to a scratch folder, run the commands there, hash the outputs.

    ``prefix`` replaces argv[0] ("evaudit"), e.g. [python, "-m", "evaudit"].
    Inputs whose hash differs stop the run before any command. With
    ``copy_outputs`` (recording a release) the regenerated outputs are copied
    beside the manifest when every command succeeded.
    """
    home = manifest_path.parent
    inputs = []
    for e in manifest.inputs:
        src = home / e.path
        inputs.append(FileCheck(e.path, e.sha256, file_sha256(src) if src.is_file() else None))
    if any(i.expected is not None and not i.ok for i in inputs):
        bad = tuple(i.path for i in inputs if not i.ok)
        return ManifestRun(str(manifest_path), tuple(inputs), (), (), bad)
    runs: list[CommandRun] = []
    outputs: list[FileCheck] = []
    with tempfile.TemporaryDirectory(prefix="evaudit-reproduce-") as scratch:
        root = Path(scratch)
        for e in manifest.inputs:
            if (home / e.path).is_file():
                (root / e.path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(home / e.path, root / e.path)
        for e in manifest.outputs:  # declared outputs' folders exist, as in the release
            (root / e.path).parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        for c in manifest.commands:
            proc = subprocess.run(
                [*prefix, *c.argv[1:]], cwd=root, capture_output=True, env=env,
                stdin=subprocess.DEVNULL, check=False,
            )  # fmt: skip
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            runs.append(CommandRun(c.argv, proc.returncode, err[-1] if err else ""))
            if proc.returncode != 0:
                break
            if c.stdout:
                (root / c.stdout).parent.mkdir(parents=True, exist_ok=True)
                (root / c.stdout).write_bytes(proc.stdout)
        for e in manifest.outputs:
            made = root / e.path
            rel = home / e.path
            outputs.append(FileCheck(
                e.path, e.sha256,
                file_sha256(made) if made.is_file() else None,
                file_sha256(rel) if rel.is_file() else None,
            ))  # fmt: skip
        if copy_outputs and all(r.exit_code == 0 for r in runs):
            for e in manifest.outputs:
                if (root / e.path).is_file():
                    (home / e.path).parent.mkdir(parents=True, exist_ok=True)
                    tmp = home / f"{e.path}.{os.getpid()}.tmp"
                    shutil.copyfile(root / e.path, tmp)
                    os.replace(tmp, home / e.path)
    differing = tuple(o.path for o in outputs if not o.ok)
    return ManifestRun(str(manifest_path), tuple(inputs), tuple(runs), tuple(outputs),
                           differing)  # fmt: skip


def recorded(manifest: Manifest, report: ManifestRun) -> Manifest:
    """The manifest with the hashes this run found (inputs as given, outputs as regenerated)."""
    ins = tuple(FileEntry(i.path, i.actual) for i in report.inputs)
    outs = tuple(FileEntry(o.path, o.actual) for o in report.outputs)
    return Manifest(ins, manifest.commands, outs)


@dataclass(frozen=True)
class ReproductionReport:
    """One run of a manifest; `record`: the manifest was (to be) recorded by this run."""

    result: ManifestRun
    record: bool
    verify: bool

    @property
    def failed(self) -> bool:
        """Exit 1: `--verify` or `--record` and an input, a command or an output differs."""
        return (self.verify or self.record) and not self.result.ok

    def to_json(self) -> dict[str, Any]:
        return self.result.to_json()

    def table(self) -> str:
        r = self.result
        lines = [f"{'ok ' if c.exit_code == 0 else 'FAIL'} (exit {c.exit_code}) "
                 f"{' '.join(c.argv)}" + (f"  [{c.stderr}]" if c.exit_code else "")
                 for c in r.commands]  # fmt: skip
        for group, checks in (("input", r.inputs), ("output", r.outputs)):
            lines += [f"differs {group} {f.path}: expected {f.expected}, "
                      f"regenerated {f.actual}, release {f.release}"
                      for f in checks if not f.ok]  # fmt: skip
        n_out = len(r.outputs)
        lines.append(f"{'ok' if r.ok else 'NOT OK'}: {n_out - len(r.differing)}/"
                     f"{n_out} outputs match" + (" (manifest recorded)" if self.record else ""))  # fmt: skip
        return "\n".join(lines)


def reproduce(
    manifest: Path, prefix: Sequence[str], *, verify: bool = False, record: bool = False
) -> ReproductionReport:
    """Run `manifest`'s commands (`prefix` starts each one: the CLI's own interpreter) in a
    scratch folder and compare the hashes; `record` writes the hashes into the manifest
    when every command succeeded, then verifies them in a second run."""
    if verify and record:
        raise InputError("give --verify or --record, not both")
    spec = read_manifest(manifest, need_hashes=not record)
    if record:
        missing = [e.path for e in spec.inputs if not (manifest.parent / e.path).is_file()]
        if missing:
            raise InputError(f"input {missing[0]!r} not found beside the manifest", file=manifest)
    report = run_manifest(manifest, spec, prefix, copy_outputs=record)
    failed = [c for c in report.commands if c.exit_code != 0]
    if record and not failed:
        write_manifest(manifest, recorded(spec, report))
        report = run_manifest(manifest, read_manifest(manifest, need_hashes=True), prefix)
    return ReproductionReport(report, record, verify)
