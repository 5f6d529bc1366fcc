"""Build in-memory ROP declarations for tests (hashes computed the documented way)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from scorers.rop import evaluate
from scorers.rop.evaluate import RopResult


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bundle(
    rows: list[Any],
    population: list[str],
    resolver: dict[str, Any],
    *,
    selection: dict[str, Any] | None = None,
    output: dict[str, Any] | None = None,
    mode: str = "hard",
    extra_files: dict[str, bytes] | None = None,
    id_field: str = "record_id",
) -> tuple[bytes, dict[str, bytes | None]]:
    """Rows: dicts (one JSON line each), or raw str/bytes written as given."""
    records = b"".join(
        r if isinstance(r, bytes) else r.encode() if isinstance(r, str) else _line(r) for r in rows
    )
    res = json.dumps(resolver).encode()
    ids = sorted(population)
    decl = {
        "rop_version": "1",
        "declaration_id": "test-decl",
        "interface": {"name": "test-api", "version": "v1"},
        "policy": {"authority": "spec", "producer": "tests", "revision": "r1"},
        "mode": mode,
        "population": {
            "id_field": id_field,
            "ids": ids,
            "count": len(ids),
            "sha256": sha("".join(i + "\n" for i in ids).encode()),
        },
        "selection": selection or {"field": "sel"},
        "output": output
        or {"list_field": "ranking", "id_field": None, "cutoff": 3, "membership": "any"},
        "resolver": {"path": "resolver.json", "sha256": sha(res)},
        "records": {"path": "records.jsonl", "sha256": sha(records)},
    }
    files: dict[str, bytes | None] = {"resolver.json": res, "records.jsonl": records}
    files.update(extra_files or {})
    return json.dumps(decl).encode(), files


def _line(row: Any) -> bytes:
    return (json.dumps(row) + "\n").encode()


def run(rows: list[Any], population: list[str], resolver: dict[str, Any], **kw: Any) -> RopResult:
    data, files = bundle(rows, population, resolver, **kw)
    return evaluate(data, files, "decl.json")


def agrees_with_reference(data: bytes, files: dict[str, bytes | None]) -> tuple[Any, bytes]:
    """Assert `evaluate` equals the per-record reference loop on every field but
    `problems` (also with the files hashed in a thread); returns the validated
    (declaration, records bytes)."""
    from scorers.rop import evaluate_reference, validate

    check = validate(data, files, "decl.json")
    decl = check.declaration
    assert decl is not None, check.problems
    assert check.records is not None
    ref = evaluate_reference(decl, check.records).to_json()
    got = evaluate(data, files, "decl.json").to_json()
    for key in ref:
        if key != "problems":
            assert got[key] == ref[key], (key, got[key], ref[key])
    # big=0: files hashed in a thread while the declaration is validated
    assert evaluate(data, files, "decl.json", big=0).to_json() == got
    return decl, check.records
