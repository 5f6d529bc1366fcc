"""The ROP evaluator: one verdict per observed record, one status per run.

Pure: takes the declaration bytes and the bytes of the files it references.
Population accounting follows "Does the Selected Object Reach the Reader?", Appendix A: every expected id is either
observed or MISSING; malformed, duplicate and unexpected observations are listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from scorers.rop.declaration import Validation, parse_declaration_json, validate
from scorers.rop.membership import assign_verdicts
from scorers.rop.records import parse_records
from scorers.rop.strings import index_codes, strings
from scorers.rop.verdicts import (
    DECLARATION_INVALID,
    EXIT_CODES,
    HARD_MODE,
    HISTOGRAM_KEYS,
    MISSING,
    NOT_APPLICABLE,
    RECORD_VERDICTS,
)
from scorers.rop.witness import file_sha256
from vocabulary.progress import Progress, no_progress

_BACKGROUND_HASH = 1 << 24  # files from 16 MiB up are hashed in a background thread
_NAMES = np.array(RECORD_VERDICTS, dtype=object)  # verdict code -> name


@dataclass
class RopResult:
    run_status: str
    record_verdicts: dict[str, str]
    histogram: dict[str, int]
    missing_record_ids: list[str]
    duplicate_record_ids: list[str]
    unexpected_record_ids: list[str]
    malformed_record_ids: list[str]
    pass_fraction: float | None
    evaluable_records: int
    declaration_id: str | None = None
    mode: str | None = None
    expected_records: int | None = None
    observed_records: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.run_status]

    def to_json(self) -> dict[str, Any]:
        return {
            "run_status": self.run_status,
            "record_verdicts": self.record_verdicts,
            "histogram": self.histogram,
            "missing_record_ids": self.missing_record_ids,
            "duplicate_record_ids": self.duplicate_record_ids,
            "unexpected_record_ids": self.unexpected_record_ids,
            "malformed_record_ids": self.malformed_record_ids,
            "pass_fraction": self.pass_fraction,
            "evaluable_records": self.evaluable_records,
            "declaration_id": self.declaration_id,
            "mode": self.mode,
            "expected_records": self.expected_records,
            "observed_records": self.observed_records,
            "problems": self.problems,
        }


def run_status(
    *,
    valid: bool,
    hard: bool,
    expected_verdicts: list[str] | np.ndarray,
    missing: int,
    malformed: int,
    duplicates: int,
    unexpected: int,
) -> str:
    """Table 12 in order; `expected_verdicts` holds the verdict names of expected rows."""
    if not valid:
        return "RUN_INVALID"
    if not hard:
        return "NOT_APPLICABLE"
    if malformed or duplicates or unexpected:
        return "RUN_INVALID"
    present = set(np.asarray(expected_verdicts, dtype=object).tolist())
    if "FAIL" in present:
        return "RUN_FAIL"
    if missing or present & {"SELECTOR_ERROR", "RESOLUTION_ERROR", "UNVERIFIABLE"}:
        return "RUN_UNVERIFIABLE"
    return "RUN_PASS"


def evaluate(
    data: bytes,
    files: Mapping[str, bytes | None],
    name: str,
    *,
    parsed: tuple[Any, list[str]] | None = None,
    big: int = _BACKGROUND_HASH,
    progress: Progress = no_progress,
) -> RopResult:
    """Evaluate a declaration (`data`) against its referenced files (`files`: path -> bytes).

    `parsed` is `parse_declaration_json(data, name)` when the caller already has it. Files
    of `big` bytes or more are hashed in a thread (hashlib releases the GIL) while the
    declaration, population and resolver are checked; the records are parsed once, after
    validation, with the validated declaration's paths.
    """
    if parsed is None:
        parsed = parse_declaration_json(data, name)
    with ThreadPoolExecutor(1) as pool:
        digests = {
            p: pool.submit(file_sha256, b).result
            for p, b in files.items()
            if b is not None and len(b) >= big
        }
        check = validate(data, files, name, digests, parsed)
    decl = check.declaration
    cols = None
    if check.records is not None:
        hard = decl if decl is not None and decl.mode == HARD_MODE else None
        cols = parse_records(check.records, check.id_path, hard, progress=progress)
    n = cols.n if cols is not None else 0
    if decl is None:
        codes = np.full(n, DECLARATION_INVALID, dtype=np.int8)
    elif decl.mode != HARD_MODE:
        codes = np.full(n, NOT_APPLICABLE, dtype=np.int8)
    else:
        assert cols is not None
        codes = assign_verdicts(cols, decl)
    ids = cols.record_ids if cols is not None else []
    malformed = cols.malformed_lines if cols is not None else []
    return _account(check, ids, malformed, codes)


def _hard(check: Validation) -> bool:
    return check.declaration is not None and check.declaration.mode == HARD_MODE


def _first_verdicts(ids: list[str], codes: np.ndarray) -> dict[str, str]:
    """{record id: verdict of its first row}; one dict build when no id repeats."""
    names = _NAMES[codes].tolist() if len(codes) else []
    verdicts = dict(zip(ids, names, strict=True))
    if len(verdicts) == len(ids):
        return verdicts
    verdicts = {}
    for rid, verdict in zip(ids, names, strict=True):
        verdicts.setdefault(rid, verdict)  # a duplicate keeps its first verdict
    return verdicts


def _missing(population: list[str], observed: dict[str, str], ids: list[str]) -> list[str]:
    """Expected ids never observed, in population order (hash lookups in Arrow).

    Records that list the population in its order (no duplicates, no gaps; a run
    written by iterating over the sealed population) need one list comparison.
    """
    if len(ids) == len(population) and ids == population:
        return []
    pop, seen = strings(population), strings(list(observed))
    if not isinstance(pop, pa.Array) or not isinstance(seen, pa.Array):
        return [p for p in population if p not in observed]  # lone surrogates: not UTF-8
    found = index_codes(pop, seen) >= 0
    return [population[i] for i in np.flatnonzero(~found).tolist()]


def _account(
    check: Validation, ids: list[str], malformed_lines: list[int], codes: np.ndarray
) -> RopResult:
    record_verdicts = _first_verdicts(ids, codes)
    duplicates: list[str] = []
    if len(record_verdicts) < len(ids):
        counts = Counter(ids)
        duplicates = sorted(r for r, c in counts.items() if c > 1)
    population = check.population_ids
    missing: list[str] = []
    unexpected: list[str] = []
    if population is not None:
        missing = _missing(population, record_verdicts, ids)
        if len(record_verdicts) != len(population) - len(missing):
            expected = set(population)
            unexpected = sorted(r for r in record_verdicts if r not in expected)
    malformed = [f"line {ln}" for ln in malformed_lines]
    tally = np.bincount(codes, minlength=len(RECORD_VERDICTS)) if len(codes) else None
    histogram = {k: 0 for k in HISTOGRAM_KEYS}
    for i, key in enumerate(RECORD_VERDICTS):
        histogram[key] = int(tally[i]) if tally is not None else 0
    histogram[MISSING] = len(missing)
    evaluable = histogram["PASS"] + histogram["FAIL"]
    expected_codes = codes
    if unexpected:
        unexpected_set = set(unexpected)
        mask = np.fromiter((r not in unexpected_set for r in ids), dtype=bool, count=len(ids))
        expected_codes = codes[mask]
    present = [RECORD_VERDICTS[c] for c in np.unique(expected_codes).tolist()]
    status = run_status(
        valid=check.valid,
        hard=_hard(check),
        expected_verdicts=present,
        missing=len(missing),
        malformed=len(malformed),
        duplicates=len(duplicates),
        unexpected=len(unexpected),
    )
    return RopResult(
        run_status=status,
        record_verdicts=record_verdicts,
        histogram=histogram,
        missing_record_ids=missing,
        duplicate_record_ids=duplicates,
        unexpected_record_ids=unexpected,
        malformed_record_ids=malformed,
        pass_fraction=(histogram["PASS"] / evaluable) if evaluable else None,
        evaluable_records=evaluable,
        declaration_id=check.declaration_id,
        mode=check.mode,
        expected_records=len(population) if population is not None else None,
        observed_records=len(ids) + len(malformed),
        problems=check.problems,
    )
