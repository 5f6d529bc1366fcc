"""Regenerate the ROP fixtures in this folder (deterministic; hashes computed here).

Run: .venv/bin/python examples/rop/make_fixtures.py
Each fixture is a folder with declaration.json, resolver.json, records.jsonl
(and inverse_map.json for witness fixtures). The expected verdicts and run
status of every fixture are written by hand below into expected.json, which the
tests read; they are never computed by the evaluator.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
POP = ["run_alpha", "run_beta"]

RESOLVER = {
    "version": "fixture-resolver-v1",
    "objects": {
        "p7": ["/wiki/Xavier_University", "p7#c0", "p7#c1"],
        "p3": ["/wiki/Xavier_Musketeers_football", "p3#c0"],
        "p9": ["/wiki/Cincinnati"],
        "p5": [],
    },
}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pop_sha(ids: list[str]) -> str:
    return sha("".join(i + "\n" for i in sorted(ids)).encode())


def witness_hash(
    decl_id: str, popsha: str, rid: str, w: str, decoded: str, invsha: str, manifest: str = ""
) -> str:
    head = ["rop-witness-v2", decl_id, manifest] if manifest else ["rop-witness-v1", decl_id]
    text = "\n".join([*head, popsha, rid, w, decoded, invsha])
    return sha(text.encode())


def rec(rid: Any, key: Any, ranking: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"record_id": rid}
    if key is not None:
        out["selector"] = {"selected_key": key}
    if ranking is not None:
        out["ranking"] = [{"object_id": r} for r in ranking]
    return out


def dump_json(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()


def dump_jsonl(rows: list[Any]) -> bytes:
    return "".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in rows).encode()


def declaration(
    decl_id: str,
    records: bytes,
    *,
    resolver: bytes,
    population: list[str] = POP,
    mode: str = "hard",
    selection: dict[str, Any] | None = None,
    output: dict[str, Any] | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    decl: dict[str, Any] = {
        "rop_version": "1",
        "declaration_id": decl_id,
        "interface": {"name": "fixture-ranker-api", "version": "v1"},
        "policy": {
            "authority": "fixture-ranker-api interface specification, section 4.2",
            "producer": "evidence-audit synthetic fixtures",
            "revision": "r1",
        },
        "mode": mode,
        "population": {
            "id_field": "record_id",
            "ids": sorted(population),
            "count": len(population),
            "sha256": pop_sha(population),
            "metadata": {"sealed": "before any returned ids were produced"},
        },
        "selection": selection or {"field": "selector.selected_key"},
        "output": output
        or {"list_field": "ranking", "id_field": "object_id", "cutoff": 3, "membership": "any"},
        "resolver": {"path": "resolver.json", "sha256": sha(resolver)},
        "records": {"path": "records.jsonl", "sha256": sha(records)},
        "prompt": "Return the selected object in the top three (provenance only).",
    }
    decl.update(overrides)
    return decl


FIXTURES: dict[str, dict[str, Any]] = {}
EXPECTED: dict[str, dict[str, Any]] = {}


def add(
    name: str,
    rows: list[Any],
    expected: dict[str, Any],
    *,
    resolver_obj: dict[str, Any] = RESOLVER,
    mutate: Any = None,
    extra_files: dict[str, bytes] | None = None,
    **decl_kw: Any,
) -> None:
    records = dump_jsonl(rows)
    resolver = dump_json(resolver_obj)
    decl = declaration(f"fixture-{name}", records, resolver=resolver, **decl_kw)
    if mutate is not None:
        mutate(decl)
    files = {
        "declaration.json": dump_json(decl),
        "resolver.json": resolver,
        "records.jsonl": records,
    }
    files.update(extra_files or {})
    FIXTURES[name] = files
    base: dict[str, Any] = {
        "missing_record_ids": [],
        "duplicate_record_ids": [],
        "unexpected_record_ids": [],
        "malformed_record_ids": [],
    }
    EXPECTED[name] = {**base, **expected}


GOOD_ALPHA = rec("run_alpha", "/wiki/Xavier_University", ["p3", "p7#c1", "p9"])
GOOD_BETA = rec("run_beta", "/wiki/Cincinnati", ["/wiki/Cincinnati", "p5"])

# The seed's synthetic hard-mode fixture (App. B.1) = Table 2 "Complete".
add(
    "hard-fixture",
    [GOOD_ALPHA, GOOD_BETA],
    {
        "run_status": "RUN_PASS",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "PASS"},
        "pass_fraction": 1.0,
        "evaluable_records": 2,
        "table2": {"case": "Complete", "expected": 2, "observed": 2, "pass": 2},
    },
    mutate=lambda d: d.update(declaration_id="fixture-hard-001"),
)
# Table 2 "One missing": same sealed population, run_beta never observed.
add(
    "hard-fixture-one-missing",
    [GOOD_ALPHA],
    {
        "run_status": "RUN_UNVERIFIABLE",
        "record_verdicts": {"run_alpha": "PASS"},
        "missing_record_ids": ["run_beta"],
        "pass_fraction": 1.0,
        "evaluable_records": 1,
        "table2": {"case": "One missing", "expected": 2, "observed": 1, "pass": 1},
    },
)
# FAIL: target resolvable but at rank 4, outside cutoff 3.
add(
    "fail-outside-cutoff",
    [GOOD_ALPHA, rec("run_beta", "/wiki/Cincinnati", ["p3", "p5", "p7", "p9"])],
    {
        "run_status": "RUN_FAIL",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "FAIL"},
        "pass_fraction": 0.5,
        "evaluable_records": 2,
    },
)
# Duplicates keep their positions and use up cutoff slots.
add(
    "duplicates-use-cutoff-slots",
    [GOOD_ALPHA, rec("run_beta", "/wiki/Cincinnati", ["p3", "p3", "p3#c0", "p9"])],
    {
        "run_status": "RUN_FAIL",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "FAIL"},
        "pass_fraction": 0.5,
        "evaluable_records": 2,
    },
)
# Unknown returned ids never match, even when they look like the target.
add(
    "unknown-ids-never-match",
    [GOOD_ALPHA, rec("run_beta", "/wiki/Cincinnati", ["P9", "/wiki/cincinnati", "p9 "])],
    {
        "run_status": "RUN_FAIL",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "FAIL"},
        "pass_fraction": 0.5,
        "evaluable_records": 2,
    },
)
# "all": every raw member of one acceptable object must be in the first k.
add(
    "all-membership",
    [
        rec("run_alpha", "/wiki/Xavier_University", ["p7#c0", "/wiki/Xavier_University", "p7#c1"]),
        rec("run_beta", "p7", ["p7#c0", "p7#c1", "p7", "/wiki/Xavier_University"]),
    ],
    {
        "run_status": "RUN_FAIL",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "FAIL"},
        "pass_fraction": 0.5,
        "evaluable_records": 2,
    },
    output={"list_field": "ranking", "id_field": "object_id", "cutoff": 3, "membership": "all"},
)
# Acceptable alternatives as a list; plain-string returned lists (id_field null).
add(
    "alternatives-plain-list",
    [
        {"record_id": "run_alpha", "accept": ["p5", "/wiki/Cincinnati"], "docs": ["p1", "p9"]},
        {"record_id": "run_beta", "accept": ["p3"], "docs": ["p7", "p9", "p5", "p3"]},
    ],
    {
        "run_status": "RUN_FAIL",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "FAIL"},
        "pass_fraction": 0.5,
        "evaluable_records": 2,
    },
    selection={"alternatives_field": "accept"},
    output={"list_field": "docs", "id_field": None, "cutoff": 3, "membership": "any"},
)
# SELECTOR_ERROR (no selected key) -> RUN_UNVERIFIABLE.
add(
    "selector-error",
    [GOOD_ALPHA, rec("run_beta", None, ["p9"])],
    {
        "run_status": "RUN_UNVERIFIABLE",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "SELECTOR_ERROR"},
        "pass_fraction": 1.0,
        "evaluable_records": 1,
    },
)
# RESOLUTION_ERROR: selected key not in the resolver.
add(
    "resolution-error",
    [GOOD_ALPHA, rec("run_beta", "/wiki/Dayton", ["p9"])],
    {
        "run_status": "RUN_UNVERIFIABLE",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "RESOLUTION_ERROR"},
        "pass_fraction": 1.0,
        "evaluable_records": 1,
    },
)
# UNVERIFIABLE: returned list missing (alpha) or an element without object_id (beta).
add(
    "unverifiable",
    [
        rec("run_alpha", "/wiki/Xavier_University", None),
        {
            "record_id": "run_beta",
            "selector": {"selected_key": "p9"},
            "ranking": [{"object_id": "p9"}, {"id": "p5"}],
        },
    ],
    {
        "run_status": "RUN_UNVERIFIABLE",
        "record_verdicts": {"run_alpha": "UNVERIFIABLE", "run_beta": "UNVERIFIABLE"},
        "pass_fraction": None,
        "evaluable_records": 0,
    },
)
# A FAIL outranks incomplete evidence (Table 12 order).
add(
    "fail-outranks-unverifiable",
    [rec("run_alpha", "/wiki/Xavier_University", ["p3"]), rec("run_beta", "/wiki/Dayton", [])],
    {
        "run_status": "RUN_FAIL",
        "record_verdicts": {"run_alpha": "FAIL", "run_beta": "RESOLUTION_ERROR"},
        "pass_fraction": 0.0,
        "evaluable_records": 1,
    },
)
# NOT_APPLICABLE: a valid soft declaration; the prompt cannot switch hard mode on.
add(
    "soft-mode",
    [GOOD_ALPHA, rec("run_beta", "/wiki/Cincinnati", ["p3"])],
    {
        "run_status": "NOT_APPLICABLE",
        "record_verdicts": {"run_alpha": "NOT_APPLICABLE", "run_beta": "NOT_APPLICABLE"},
        "pass_fraction": None,
        "evaluable_records": 0,
    },
    mode="soft",
    prompt="mode: hard. The selected object MUST be returned.",
)
add(
    "open-mode",
    [GOOD_ALPHA],
    {
        "run_status": "NOT_APPLICABLE",
        "record_verdicts": {"run_alpha": "NOT_APPLICABLE"},
        "missing_record_ids": ["run_beta"],
        "pass_fraction": None,
        "evaluable_records": 0,
    },
    mode="open",
)
# RUN_INVALID through the observed population: duplicate, unexpected, malformed ids.
add(
    "duplicate-record",
    [GOOD_ALPHA, GOOD_BETA, GOOD_BETA],
    {
        "run_status": "RUN_INVALID",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "PASS"},
        "duplicate_record_ids": ["run_beta"],
        "pass_fraction": 1.0,
        "evaluable_records": 3,
    },
)
add(
    "unexpected-record",
    [GOOD_ALPHA, GOOD_BETA, rec("run_gamma", "p5", ["p5"])],
    {
        "run_status": "RUN_INVALID",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "PASS", "run_gamma": "PASS"},
        "unexpected_record_ids": ["run_gamma"],
        "pass_fraction": 1.0,
        "evaluable_records": 3,
    },
)
add(
    "malformed-record",
    [GOOD_ALPHA, GOOD_BETA, rec(17, "p5", ["p5"]), "{not json\n"],
    {
        "run_status": "RUN_INVALID",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "PASS"},
        "malformed_record_ids": ["line 3", "line 4"],
        "pass_fraction": 1.0,
        "evaluable_records": 2,
    },
)
# DECLARATION_INVALID: each a different failed check; every observed record gets it.
INVALID = {
    "run_status": "RUN_INVALID",
    "record_verdicts": {"run_alpha": "DECLARATION_INVALID", "run_beta": "DECLARATION_INVALID"},
    "pass_fraction": None,
    "evaluable_records": 0,
}


def _bad_resolver_hash(d: dict[str, Any]) -> None:
    d["resolver"]["sha256"] = "0" * 64


def _bad_population_order(d: dict[str, Any]) -> None:
    d["population"]["ids"] = ["run_beta", "run_alpha"]


def _bad_population_count(d: dict[str, Any]) -> None:
    d["population"]["count"] = 3


def _bad_records_hash(d: dict[str, Any]) -> None:
    d["records"]["sha256"] = sha(b"something else")


SHARED = {"version": "bad", "objects": {"p7": ["x1"], "p3": ["x1"], "p9": ["/wiki/Cincinnati"]}}
add("invalid-resolver-hash", [GOOD_ALPHA, GOOD_BETA], INVALID, mutate=_bad_resolver_hash)
add("invalid-records-hash", [GOOD_ALPHA, GOOD_BETA], INVALID, mutate=_bad_records_hash)
add("invalid-population-order", [GOOD_ALPHA, GOOD_BETA], INVALID, mutate=_bad_population_order)
add("invalid-population-count", [GOOD_ALPHA, GOOD_BETA], INVALID, mutate=_bad_population_count)
add("invalid-shared-member", [GOOD_ALPHA, GOOD_BETA], INVALID, resolver_obj=SHARED)
add(
    "invalid-schema-missing-policy",
    [GOOD_ALPHA, GOOD_BETA],
    INVALID,
    mutate=lambda d: d.pop("policy"),
)


# Witness selection: decode through a hash-bound one-to-one inverse map.
def _witness_fixture(
    name: str,
    inverse: dict[str, str],
    rows_spec: list[tuple[str, str, str]],
    expected: dict[str, Any],
    population: list[str],
    envelope: dict[str, Any] | None = None,
) -> None:
    inv_bytes = dump_json({"version": "inv-v1", "witnesses": inverse})
    decl_id = f"fixture-{name}"
    popsha = pop_sha(population)
    # With an envelope the binding covers its canonical JSON too (rop-witness-v2).
    manifest = (
        hashlib.sha256(
            json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        ).hexdigest()
        if envelope is not None
        else ""
    )
    rows = []
    for rid, w, how in rows_spec:
        decoded = inverse.get(w, "")
        binding = witness_hash(decl_id, popsha, rid, w, decoded, sha(inv_bytes), manifest)
        if how == "tampered":
            binding = witness_hash(
                decl_id, popsha, rid, w, "/wiki/Cincinnati", sha(inv_bytes), manifest
            )
        if how == "v1":  # bound without the manifest: not valid under an envelope
            binding = witness_hash(decl_id, popsha, rid, w, decoded, sha(inv_bytes))
        row: dict[str, Any] = {"record_id": rid, "trace": {"w": w}, "ranking": ["p7#c1", "p9"]}
        if how != "unbound":
            row["trace"]["binding"] = binding
        rows.append(row)
    add(
        name,
        rows,
        expected,
        population=population,
        selection={
            "witness_field": "trace.w",
            "binding_field": "trace.binding",
            "inverse_map": {"path": "inverse_map.json", "sha256": sha(inv_bytes)},
        },
        output={"list_field": "ranking", "id_field": None, "cutoff": 2, "membership": "any"},
        extra_files={"inverse_map.json": inv_bytes},
        **({"mutate": _with_envelope(envelope)} if envelope is not None else {}),
    )


def _with_envelope(envelope: dict[str, Any]) -> Any:
    def mutate(d: dict[str, Any]) -> None:
        d["envelope"] = envelope
        d["output"]["component"] = envelope["component"]

    return mutate


_witness_fixture(
    "witness",
    {"w-17": "/wiki/Xavier_University", "w-18": "/wiki/Cincinnati", "w-19": "p3"},
    [
        ("run_alpha", "w-17", "ok"),
        ("run_beta", "w-18", "ok"),
        ("run_gamma", "w-19", "ok"),
        ("run_delta", "w-17", "tampered"),
        ("run_eps", "w-99", "ok"),
        ("run_zeta", "w-18", "unbound"),
    ],
    {
        "run_status": "RUN_FAIL",
        "record_verdicts": {
            "run_alpha": "PASS",
            "run_beta": "PASS",
            "run_gamma": "FAIL",
            "run_delta": "SELECTOR_ERROR",
            "run_eps": "RESOLUTION_ERROR",
            "run_zeta": "SELECTOR_ERROR",
        },
        "pass_fraction": 2 / 3,
        "evaluable_records": 3,
    },
    ["run_alpha", "run_beta", "run_delta", "run_eps", "run_gamma", "run_zeta"],
)
_witness_fixture(
    "invalid-witness-not-one-to-one",
    {"w-17": "/wiki/Xavier_University", "w-18": "/wiki/Xavier_University"},
    [("run_alpha", "w-17", "ok"), ("run_beta", "w-18", "ok")],
    INVALID,
    POP,
)
_witness_fixture(
    "invalid-witness-outside-resolver",
    {"w-17": "/wiki/Xavier_University", "w-18": "/wiki/Dayton"},
    [("run_alpha", "w-17", "ok"), ("run_beta", "w-18", "ok")],
    INVALID,
    POP,
)


# The declaration envelope (App. A): interface, component, mode and policy revision must
# equal the instruction sheet's; each broken on its own fixture (scorers/rop/envelope.py).
ENVELOPE = {
    "interface": {"name": "fixture-ranker-api", "version": "v1"},
    "component": "fixture-ranker",
    "mode": "hard",
    "policy_revision": "r1",
}
WITH_COMPONENT = {
    "list_field": "ranking",
    "id_field": "object_id",
    "cutoff": 3,
    "membership": "any",
    "component": "fixture-ranker",
}


def _envelope(**change: Any) -> Any:
    def mutate(d: dict[str, Any]) -> None:
        d["envelope"] = {**ENVELOPE, **change}

    return mutate


add(
    "envelope",
    [GOOD_ALPHA, GOOD_BETA],
    {
        "run_status": "RUN_PASS",
        "record_verdicts": {"run_alpha": "PASS", "run_beta": "PASS"},
        "pass_fraction": 1.0,
        "evaluable_records": 2,
    },
    mutate=_envelope(),
    output=WITH_COMPONENT,
)
for _name, _change in (
    ("interface", {"interface": {"name": "fixture-ranker-api", "version": "v2"}}),
    ("component", {"component": "another-ranker"}),
    ("mode", {"mode": "soft"}),
    ("policy-revision", {"policy_revision": "r2"}),
):
    add(
        f"envelope-{_name}-differs",
        [GOOD_ALPHA, GOOD_BETA],
        INVALID,
        mutate=_envelope(**_change),
        output=WITH_COMPONENT,
    )
# An envelope whose sheet names no component: nothing to compare with, so invalid.
add("envelope-sheet-without-component", [GOOD_ALPHA, GOOD_BETA], INVALID, mutate=_envelope())

# Witness bindings under an envelope cover its canonical JSON (rop-witness-v2): a record
# bound the v1 way (without the manifest) is a SELECTOR_ERROR there.
_witness_fixture(
    "witness-envelope",
    {"w-17": "/wiki/Xavier_University", "w-18": "/wiki/Cincinnati"},
    [("run_alpha", "w-17", "ok"), ("run_beta", "w-18", "ok"), ("run_gamma", "w-17", "v1")],
    {
        "run_status": "RUN_UNVERIFIABLE",
        "record_verdicts": {
            "run_alpha": "PASS",
            "run_beta": "PASS",
            "run_gamma": "SELECTOR_ERROR",
        },
        "pass_fraction": 1.0,
        "evaluable_records": 2,
    },
    ["run_alpha", "run_beta", "run_gamma"],
    envelope=ENVELOPE,
)


def main(out: Path = HERE) -> None:
    for name, files in FIXTURES.items():
        folder = out / name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir()
        for fname, data in files.items():
            (folder / fname).write_bytes(data)
    (out / "expected.json").write_bytes(dump_json(EXPECTED))
    print(f"wrote {len(FIXTURES)} fixtures to {out}")


if __name__ == "__main__":
    main()
