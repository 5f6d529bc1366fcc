"""File edge of the ROP study statistics (accounting, miss ranks, reader association,
passage deletion, replay check): read JSONL and resolver files, call the pure scorers.

Kept apart from `formats.rop_files` (the evaluator's file edge) so the two change
independently; only the JSONL reader is shared. Every bad line is reported as
``file:line: what is wrong``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from formats.rop_files import read_resolver
from scorers.rop.accounting import AccountingReport, account, parse_account_records
from scorers.rop.declaration import parse_declaration_json
from scorers.rop.deletion import DeletionReport, deletion_contrasts, parse_calls
from scorers.rop.envelope import EnvelopeReport, envelope_report
from scorers.rop.miss_ranks import MissReport, miss_ranks, parse_or_matches
from scorers.rop.reader_association import AssociationReport, associate, parse_reader_rows
from scorers.rop.replay import ReplayReport, check_replay, parse_run_records
from scorers.rop.targets import parse_target_records
from vocabulary.errors import InputError, InputErrors
from vocabulary.jsonlines import json_lines


def jsonl_rows(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; the first bad line raises."""
    # The same JSONL reading (and error wording) as the evaluator's file edge.
    return list(json_lines(Path(path)))


def accounting_file(
    records: str | Path,
    resolver: str | Path,
    cutoffs: Sequence[int],
    *,
    planned: str | Path | None = None,
    model_field: str = "model",
) -> AccountingReport:
    res = read_resolver(resolver)
    rows = parse_account_records(jsonl_rows(records), str(records), res, model_field=model_field)
    plan = None
    if planned is not None:
        plan = []
        for line, obj in jsonl_rows(planned):
            rid, model = obj.get("record_id"), obj.get(model_field)
            if not isinstance(rid, str) or not rid or not isinstance(model, str) or not model:
                raise InputError(
                    f"needs non-empty strings 'record_id' and {model_field!r}",
                    file=planned,
                    line=line,
                )
            plan.append((rid, model))
        if len({r for r, _ in plan}) != len(plan):
            raise InputError(
                "a planned record_id repeats", file=planned, hint="one line per record"
            )
    return account(rows, cutoffs, plan)


def misses_file(
    records: str | Path,
    stack: str,
    cutoff: int,
    depth: int,
    *,
    resolver: str | Path | None = None,
    subset: str = "all",
    group_field: str | None = None,
) -> MissReport:
    res = read_resolver(resolver) if resolver is not None else None
    rows = jsonl_rows(records)
    parsed = parse_target_records(rows, str(records), res, group_field=group_field)
    if subset == "aligned":
        parsed = [r for r in parsed if r.selected is not None and r.selected == r.trace]
    elif subset == "distinct":
        parsed = [
            r
            for r in parsed
            if r.selected is not None and r.trace is not None and r.selected != r.trace
        ]
    return miss_ranks(parsed, stack, cutoff, depth, parse_or_matches(rows, str(records)))


def association_file(
    reader: str | Path,
    pairs: Sequence[tuple[str, str]],
    *,
    passages: int | None = None,
    resamples: int = 0,
    seed: int = 0,
    cluster_field: str = "question_id",
) -> AssociationReport:
    rows = parse_reader_rows(jsonl_rows(reader), str(reader), cluster_field=cluster_field)
    return associate(
        rows, pairs, passages=passages, resamples=resamples, seed=seed, cluster_field=cluster_field
    )


def deletion_file(
    calls: str | Path,
    arms: Sequence[str],
    contrasts: Sequence[tuple[str, str]] | None = None,
    *,
    resamples: int = 0,
    seed: int = 0,
) -> DeletionReport:
    parsed, ignored = parse_calls(jsonl_rows(calls), str(calls), arms)
    return deletion_contrasts(
        parsed, arms, contrasts, ignored_rows=ignored, resamples=resamples, seed=seed
    )


def replay_file(runs: str | Path, reader: str | Path) -> ReplayReport:
    return check_replay(parse_run_records(jsonl_rows(runs), str(runs)), jsonl_rows(reader))


def envelope_file(path: str | Path) -> EnvelopeReport:
    """The envelope checks of a declaration file (not applicable without an envelope)."""
    p = Path(path)
    if not p.is_file():
        raise InputError("declaration file not found", file=p, hint="check the path")
    raw, problems = parse_declaration_json(p.read_bytes(), str(p))
    if problems:
        raise InputErrors([InputError(x) for x in problems])
    return envelope_report(raw)
