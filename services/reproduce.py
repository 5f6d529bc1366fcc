"""`evaudit reproduce MANIFEST --verify|--record`: rerun a release's commands, check hashes.

The manifest format and the rules are in `packet_builder.reproduce` and docs/runs.md;
this use case runs a manifest (and with `record`, writes its hashes and runs it again to
verify them) and returns the report the CLI prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packet_builder.reproduce import (
    ReproduceReport,
    read_manifest,
    recorded,
    run_manifest,
    write_manifest,
)
from vocabulary.errors import InputError


@dataclass(frozen=True)
class ReproductionReport:
    """One run of a manifest; `record`: the manifest was (to be) recorded by this run."""

    result: ReproduceReport
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
