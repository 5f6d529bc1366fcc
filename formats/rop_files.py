"""File edge of the ROP scorer: read a declaration and the files it references, write bundles.

The evaluator in `scorers.rop` is pure; this module does the reading (paths in
a declaration are relative to the declaration file) and the all-or-nothing
writing of generated declaration bundles.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scorers.rop.declaration import Validation, parse_declaration_json, referenced_paths, validate
from scorers.rop.envelope import EnvelopeReport, envelope_report
from scorers.rop.evaluate import RopResult, evaluate
from scorers.rop.resolver import Resolver, parse_resolver
from scorers.rop.targets import TargetComparison, compare_targets, parse_target_records
from vocabulary.errors import InputError, InputErrors
from vocabulary.jsonlines import json_lines
from vocabulary.jsonread import json_loads
from vocabulary.progress import Progress, no_progress


@dataclass(frozen=True)
class DeclarationBundle:
    """A declaration file's bytes, its JSON (parsed once, with any problem) and the bytes of
    every file it references (None when unreadable; paths relative to the declaration)."""

    data: bytes
    parsed: tuple[Any, list[str]]
    files: dict[str, bytes | None]
    name: str


def read_declaration_bundle(path: str | Path) -> DeclarationBundle:
    """Read a declaration and the files it references."""
    path = Path(path)
    if not path.is_file():
        raise InputError(
            "declaration file not found", file=path, hint="check the path", exit_code=3
        )
    data = path.read_bytes()
    parsed = parse_declaration_json(data, str(path))
    files: dict[str, bytes | None] = {}
    for rel in referenced_paths(parsed[0]).values():
        target = path.parent / rel
        try:
            files[rel] = target.read_bytes()
        except OSError:
            files[rel] = None
    return DeclarationBundle(data, parsed, files, str(path))


def read_json_file(path: str | Path) -> Any:
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", file=path, hint="check the path")
    try:
        return json_loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"malformed JSON ({exc})", file=path, hint="fix the JSON") from exc


def write_bundle(out_dir: str | Path, files: Mapping[str, bytes]) -> list[Path]:
    """Write every file or none: stage in a temporary folder beside `out_dir`, then move."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=out, hint="choose another --out")
    clash = [name for name in files if (out / name).exists()]
    if clash:
        raise InputError(
            f"would overwrite {clash[0]}", file=out, hint="choose an empty or new --out folder"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".rop-") as tmp:
        for name, data in files.items():
            staged = Path(tmp) / name
            with staged.open("wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        out.mkdir(parents=True, exist_ok=True)
        for name in files:
            os.replace(Path(tmp) / name, out / name)
            written.append(out / name)
    return written


def evaluate_declaration_file(path: str | Path, progress: Progress = no_progress) -> RopResult:
    """Read a declaration and its files, then run the pure evaluator."""
    b = read_declaration_bundle(path)
    return evaluate(b.data, b.files, b.name, parsed=b.parsed, progress=progress)


def evaluate_with_envelope(
    path: str | Path, progress: Progress = no_progress
) -> tuple[RopResult, EnvelopeReport]:
    """`evaluate_declaration_file` and the envelope checks of the same declaration (read
    once): not applicable when it has no envelope."""
    b = read_declaration_bundle(path)
    result = evaluate(b.data, b.files, b.name, parsed=b.parsed, progress=progress)
    return result, envelope_report(b.parsed[0])


def validate_declaration_file(path: str | Path) -> Validation:
    b = read_declaration_bundle(path)
    return validate(b.data, b.files, b.name, parsed=b.parsed)


def read_resolver(path: str | Path) -> Resolver:
    """A resolver file, every problem of it reported at once."""
    rpath = Path(path)
    if not rpath.is_file():
        raise InputError("resolver file not found", file=rpath, hint="check --resolver")
    resolver, problems = parse_resolver(rpath.read_bytes(), str(rpath))
    if resolver is None:
        raise InputErrors([InputError(p) for p in problems])
    return resolver


def compare_targets_file(
    records: str | Path,
    cutoffs: Sequence[int],
    *,
    resolver: str | Path | None = None,
    subset: str = "all",
    pair: tuple[str, str] | None = None,
    resamples: int = 0,
    cluster_field: str = "question_id",
    seed: int = 0,
    group_field: str | None = None,
) -> TargetComparison:
    """`rop targets`: read the records (and resolver), then compare targets."""
    res = read_resolver(resolver) if resolver is not None else None
    rows = list(json_lines(Path(records)))
    parsed = parse_target_records(
        rows,
        str(records),
        res,
        cluster_field=cluster_field if resamples else None,
        group_field=group_field,
    )
    report = compare_targets(
        parsed,
        list(cutoffs),
        subset=subset,
        pair=pair,
        resamples=resamples,
        seed=seed,
        by_group=group_field is not None,
    )
    return replace(report, resolver=str(resolver) if resolver is not None else None)


def rop_from_qrels_files(
    queries_path: str | Path,
    qrels_path: str | Path,
    run_path: str | Path,
    *,
    cutoff: int,
    out_dir: str | Path,
) -> dict[str, Any]:
    """`rop from-qrels`: read the benchmark files, build the bundle, write it all-or-nothing."""
    from formats.qrels import read_qrels
    from formats.readers import read_queries, read_run
    from scorers.rop.from_qrels import build_from_qrels
    from scorers.rop.witness import file_sha256

    queries = read_queries(queries_path)
    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    files, summary = build_from_qrels(
        queries,
        qrels,
        run,
        cutoff=cutoff,
        run_name=Path(run_path).name,
        qrels_sha256=file_sha256(Path(qrels_path).read_bytes()),
    )
    write_bundle(out_dir, files)
    summary["out_dir"] = str(out_dir)
    summary["declaration"] = str(Path(out_dir) / "declaration.json")
    return summary
