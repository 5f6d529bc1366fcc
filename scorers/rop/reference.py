"""A plain per-record Python loop of the ROP rules: the readable reference.

It shares nothing with the vectorised path except the validated declaration,
so tests can cross-check the two on arbitrary records, and `benchmarks/rop.py`
uses it as the baseline. Hard mode only (other modes never reach membership).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorers.rop.declaration import Declaration, get_path
from scorers.rop.evaluate import RopResult, run_status
from scorers.rop.verdicts import HISTOGRAM_KEYS
from vocabulary.jsonread import json_loads


def _selection(obj: dict[str, Any], rid: str, decl: Declaration) -> tuple[str, list[str]]:
    """(verdict or "", acceptable raw keys)."""
    sel = decl.selection
    value = get_path(obj, sel.path)
    if sel.kind == "field":
        return ("", [value]) if isinstance(value, str) and value else ("SELECTOR_ERROR", [])
    if sel.kind == "alternatives":
        if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
            return "", value
        return "SELECTOR_ERROR", []
    bound = get_path(obj, sel.binding_path)
    if not isinstance(value, str) or not value:
        return "SELECTOR_ERROR", []
    if not isinstance(bound, str) or len(bound) != 64 or set(bound) - set("0123456789abcdef"):
        return "SELECTOR_ERROR", []
    assert sel.inverse_map is not None
    decoded = sel.inverse_map.get(value)
    if decoded is None:
        return "RESOLUTION_ERROR", []
    return ("", [decoded]) if bound == decl.binding(rid, value, decoded) else ("SELECTOR_ERROR", [])


def record_verdict(obj: dict[str, Any], rid: str, decl: Declaration) -> str:
    """Table 11 for one hard-mode record: the first condition that applies."""
    error, keys = _selection(obj, rid, decl)
    if error:
        return error
    resolve = decl.resolver.raw_to_canonical
    targets = [resolve.get(k) for k in keys]
    if any(t is None for t in targets):
        return "RESOLUTION_ERROR"
    returned = get_path(obj, decl.list_path)
    if not isinstance(returned, list):
        return "UNVERIFIABLE"
    raw_ids = []
    for element in returned:
        rid_ = element if decl.element_id_field is None else None
        if isinstance(element, dict) and decl.element_id_field is not None:
            rid_ = element.get(decl.element_id_field)
        if not isinstance(rid_, str) or not rid_:
            return "UNVERIFIABLE"
        raw_ids.append(rid_)
    head = raw_ids[: decl.cutoff]  # cutoff first; duplicates keep their slots
    for target in targets:
        if decl.membership == "any":
            if any(resolve.get(r) == target for r in head):
                return "PASS"
        elif all(m in head for m in decl.resolver.members[str(target)]):
            return "PASS"
    return "FAIL"


def evaluate_reference(
    decl: Declaration, records: bytes, loads: Callable[[bytes], Any] = json_loads
) -> RopResult:
    """Evaluate a valid hard-mode declaration's records one record at a time.

    `loads` reads one line (the benchmark passes a msgspec reader that must behave as
    `json.loads`: same values, ValueError or UnicodeDecodeError for the same lines)."""
    verdicts: dict[str, str] = {}
    histogram = dict.fromkeys(HISTOGRAM_KEYS, 0)
    seen: set[str] = set()
    duplicates: set[str] = set()
    malformed: list[str] = []
    observed = 0
    for lineno, line in enumerate(records.split(b"\n"), start=1):
        if not line.strip():
            continue
        observed += 1
        try:
            obj = loads(line)
        except (ValueError, UnicodeDecodeError):
            malformed.append(f"line {lineno}")
            continue
        rid = get_path(obj, decl.id_path) if isinstance(obj, dict) else None
        if not isinstance(rid, str) or not rid:
            malformed.append(f"line {lineno}")
            continue
        verdict = record_verdict(obj, rid, decl)
        histogram[verdict] += 1
        if rid in seen:
            duplicates.add(rid)
        else:
            seen.add(rid)
            verdicts[rid] = verdict
    population = list(decl.population_ids or ())
    expected = set(population)
    missing = [p for p in population if p not in seen]
    unexpected = sorted(seen - expected)
    histogram["MISSING"] = len(missing)
    evaluable = histogram["PASS"] + histogram["FAIL"]
    status = run_status(
        valid=True,
        hard=True,
        expected_verdicts=[v for r, v in verdicts.items() if r in expected],
        missing=len(missing),
        malformed=len(malformed),
        duplicates=len(duplicates),
        unexpected=len(unexpected),
    )
    return RopResult(
        run_status=status,
        record_verdicts=verdicts,
        histogram=histogram,
        missing_record_ids=missing,
        duplicate_record_ids=sorted(duplicates),
        unexpected_record_ids=unexpected,
        malformed_record_ids=malformed,
        pass_fraction=histogram["PASS"] / evaluable if evaluable else None,
        evaluable_records=evaluable,
        declaration_id=decl.declaration_id,
        mode=decl.mode,
        expected_records=len(population),
        observed_records=observed,
    )
