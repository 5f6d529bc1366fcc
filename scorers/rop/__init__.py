"""Returned-Object Profile (ROP, "Does the Selected Object Reach the Reader?"): declarations, resolver, evaluator, target comparison.

Pure library: callers pass bytes and parsed records; file access lives in
`formats.rop_files`.
"""

from __future__ import annotations

from scorers.rop.declaration import Declaration, Validation, schema, validate
from scorers.rop.evaluate import RopResult, evaluate, run_status
from scorers.rop.reference import evaluate_reference, record_verdict
from scorers.rop.verdicts import EXIT_CODES, HISTOGRAM_KEYS, RECORD_VERDICTS, RUN_STATUSES
from scorers.rop.witness import binding_hash, file_sha256, population_sha256

__all__ = [
    "EXIT_CODES",
    "HISTOGRAM_KEYS",
    "RECORD_VERDICTS",
    "RUN_STATUSES",
    "Declaration",
    "RopResult",
    "Validation",
    "binding_hash",
    "evaluate",
    "evaluate_reference",
    "file_sha256",
    "population_sha256",
    "record_verdict",
    "run_status",
    "schema",
    "validate",
]
