"""Validate a ROP declaration: JSON Schema, then every cross-file check ("Does the Selected Object Reach the Reader?", App. A).

Pure: the caller passes the declaration bytes and the bytes of every file it
references (``None`` for a file that could not be read). Every problem found is
reported; any problem makes the declaration invalid (DECLARATION_INVALID /
RUN_INVALID).
"""

from __future__ import annotations

import copy
import itertools
import json
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from scorers.rop.envelope import envelope_problems
from scorers.rop.resolver import Resolver, parse_inverse_map, parse_resolver
from scorers.rop.verdicts import HARD_MODE
from scorers.rop.witness import binding_hash, file_sha256, manifest_sha256, population_sha256
from vocabulary.jsonread import json_loads, json_problem

# jsonschema costs ~8 us per array item; the population is checked item by item
# below anyway, so the schema only sees its head (keeps 1M-id declarations fast).
_SCHEMA_IDS_HEAD = 1000
DEFAULT_ID_FIELD = "record_id"


@cache
def schema() -> dict[str, Any]:
    """The shipped JSON Schema of a v1 declaration."""
    text = resources.files("scorers.rop").joinpath("schema.json").read_text(encoding="utf-8")
    return dict(json_loads(text))


@dataclass(frozen=True)
class Selection:
    kind: str  # "field" | "alternatives" | "witness"
    path: tuple[str, ...]
    binding_path: tuple[str, ...] = ()
    inverse_map: Mapping[str, str] | None = None
    inverse_map_sha256: str = ""


@dataclass(frozen=True)
class Declaration:
    """A declaration that passed every check."""

    declaration_id: str
    mode: str
    population_ids: tuple[str, ...] | None
    population_sha256: str
    id_path: tuple[str, ...]
    selection: Selection
    list_path: tuple[str, ...]
    element_id_field: str | None
    cutoff: int
    membership: str
    resolver: Resolver
    # SHA-256 of the envelope's canonical JSON, when the declaration has an envelope: witness
    # bindings then cover it (profile rop-witness-v2).
    manifest_sha256: str | None = None

    def binding(self, record_id: str, witness: str, decoded_selection: str) -> str:
        """The binding hash a record's witness must carry under this declaration."""
        return binding_hash(
            declaration_id=self.declaration_id,
            population_sha256=self.population_sha256,
            record_id=record_id,
            witness=witness,
            decoded_selection=decoded_selection,
            inverse_map_sha256=self.selection.inverse_map_sha256,
            manifest_sha256=self.manifest_sha256,
        )


@dataclass
class Validation:
    """Outcome of validation; best-effort fields stay usable for population accounting."""

    declaration: Declaration | None
    problems: list[str]
    declaration_id: str | None = None
    mode: str | None = None
    id_path: tuple[str, ...] = (DEFAULT_ID_FIELD,)
    population_ids: list[str] | None = None
    records: bytes | None = None
    referenced: dict[str, str] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return not self.problems


def dotted(path: str) -> tuple[str, ...]:
    return tuple(path.split("."))


def get_path(obj: Any, path: tuple[str, ...]) -> Any:
    """The value at a dotted path of nested JSON objects, or None when absent."""
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def referenced_paths(raw: Any) -> dict[str, str]:
    """Role -> relative path of every file a (possibly invalid) declaration references."""
    out: dict[str, str] = {}
    if not isinstance(raw, dict):
        return out
    for role, spec in (
        ("resolver", raw.get("resolver")),
        ("records", raw.get("records")),
        ("inverse_map", get_path(raw, ("selection", "inverse_map"))),
    ):
        if isinstance(spec, dict) and isinstance(spec.get("path"), str) and spec["path"]:
            out[role] = spec["path"]
    return out


def parse_declaration_json(data: bytes, name: str) -> tuple[Any, list[str]]:
    try:
        return json_loads(data.decode("utf-8")), []
    except UnicodeDecodeError:
        return None, [f"{name}: not UTF-8 text (save the declaration as UTF-8)"]
    except json.JSONDecodeError as exc:
        return None, [f"{name}:{exc.lineno}: malformed JSON ({json_problem(exc)})"]


def _schema_problems(raw: Any, name: str) -> list[str]:
    probe = raw
    ids = get_path(raw, ("population", "ids"))
    if isinstance(ids, list) and len(ids) > _SCHEMA_IDS_HEAD:
        probe = copy.copy(raw)
        probe["population"] = dict(raw["population"], ids=ids[:_SCHEMA_IDS_HEAD])
    validator = jsonschema.Draft202012Validator(schema())
    out = []
    for err in sorted(validator.iter_errors(probe), key=lambda e: list(map(str, e.path))):
        where = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        out.append(f"{name}: {where}: {err.message} (see `evaudit rop schema`)")
    return out


def _check_file(
    role: str,
    spec: Any,
    files: Mapping[str, bytes | None],
    name: str,
    problems: list[str],
    digests: Mapping[str, Callable[[], str]],
) -> bytes | None:
    """Read a referenced file from `files` and check its SHA-256."""
    if not isinstance(spec, dict) or not isinstance(spec.get("path"), str) or not spec["path"]:
        return None
    data = files.get(spec["path"])
    if data is None:
        problems.append(
            f"{name}: {role}.path: cannot read {spec['path']!r} (paths are relative to the "
            "declaration file)"
        )
        return None
    digest = digests.get(spec["path"])
    actual = digest() if digest is not None else file_sha256(data)
    if spec.get("sha256") != actual:
        problems.append(
            f"{name}: {role}.sha256: does not match {spec['path']!r} (file has {actual}; "
            "re-seal the declaration or restore the file)"
        )
    return data


def _sorted_unique_strings(ids: list[Any]) -> bool:
    """True when every id is a non-empty string and the list is strictly increasing.

    Python's own comparison (code-point order) in C loops: `map` over `operator.lt`
    compares neighbours without building anything (2.5x faster than `str.__lt__`, a
    slot wrapper, and far faster than converting a million ids to Arrow). Anything
    else answers False (then the item-by-item checks decide).
    """
    if not ids:
        return True
    if set(map(type, ids)) != {str}:  # only str < str compares code points
        return False
    # Strictly increasing: only the first id can be "", the smallest string.
    return ids[0] != "" and all(map(operator.lt, ids, itertools.islice(ids, 1, None)))


def _check_population(pop: Any, name: str, problems: list[str]) -> list[str] | None:
    if not isinstance(pop, dict) or not isinstance(pop.get("ids"), list):
        return None
    ids = pop["ids"]
    ordered = _sorted_unique_strings(ids)
    if not ordered:  # the fast check failed: find the first problem
        bad = [i for i, v in enumerate(ids) if not isinstance(v, str) or not v]
        if bad:
            problems.append(
                f"{name}: population.ids[{bad[0]}]: every id must be a non-empty string "
                f"({len(bad)} bad)"
            )
            return None
        for i in range(1, len(ids)):
            if ids[i - 1] >= ids[i]:
                what = "listed twice" if ids[i - 1] == ids[i] else "out of order"
                problems.append(
                    f"{name}: population.ids[{i}]: {ids[i]!r} is {what} (store the ids sorted "
                    "and unique)"
                )
                break
    if isinstance(pop.get("count"), int) and pop["count"] != len(ids):
        problems.append(
            f"{name}: population.count: {pop['count']} but population.ids lists {len(ids)}"
        )
    actual = population_sha256(ids, presorted=ordered)
    if isinstance(pop.get("sha256"), str) and pop["sha256"] != actual:
        problems.append(
            f"{name}: population.sha256: does not match the ids (they hash to {actual}; the "
            "hash is over the sorted ids joined by \\n with a final \\n)"
        )
    return list(ids)


def validate(
    data: bytes,
    files: Mapping[str, bytes | None],
    name: str,
    digests: Mapping[str, Callable[[], str]] | None = None,
    parsed: tuple[Any, list[str]] | None = None,
) -> Validation:
    """Schema and semantic checks of a declaration and its referenced files.

    `digests` may give, per path, a callable returning that file's SHA-256 (for
    example the result of a hash already running in another thread); `parsed`, the
    result of `parse_declaration_json(data, name)` when the caller already has it.
    """
    digests = digests or {}
    raw, problems = parsed if parsed is not None else parse_declaration_json(data, name)
    problems = list(problems)
    if problems:
        return Validation(None, problems)
    problems = _schema_problems(raw, name)
    if not isinstance(raw, dict):
        return Validation(None, problems)
    out = Validation(None, problems, referenced=referenced_paths(raw))
    if isinstance(raw.get("declaration_id"), str):
        out.declaration_id = raw["declaration_id"]
    if isinstance(raw.get("mode"), str):
        out.mode = raw["mode"]
    id_field = get_path(raw, ("population", "id_field"))
    if isinstance(id_field, str) and id_field:
        out.id_path = dotted(id_field)
    out.population_ids = _check_population(raw.get("population"), name, problems)
    problems.extend(envelope_problems(raw, name))  # envelope vs sheet: scorers/rop/envelope.py

    resolver: Resolver | None = None
    resolver_bytes = _check_file("resolver", raw.get("resolver"), files, name, problems, digests)
    if resolver_bytes is not None:
        where = f"{name}: resolver {raw['resolver']['path']}"
        resolver, res_problems = parse_resolver(resolver_bytes, where)
        problems.extend(res_problems)
    out.records = _check_file("records", raw.get("records"), files, name, problems, digests)

    sel = raw.get("selection")
    inverse: Mapping[str, str] | None = None
    if isinstance(sel, dict) and "inverse_map" in sel:
        inv_bytes = _check_file(
            "selection.inverse_map", sel["inverse_map"], files, name, problems, digests
        )
        if inv_bytes is not None:
            where = f"{name}: inverse map {sel['inverse_map']['path']}"
            inverse, inv_problems = parse_inverse_map(inv_bytes, where, resolver)
            problems.extend(inv_problems)

    if problems or resolver is None or not isinstance(sel, dict):
        return out
    selection = _selection(sel, inverse)
    pop = raw.get("population")
    output = raw["output"]
    out.declaration = Declaration(
        declaration_id=raw["declaration_id"],
        mode=raw["mode"],
        population_ids=tuple(out.population_ids) if out.population_ids is not None else None,
        population_sha256=pop["sha256"] if isinstance(pop, dict) else "",
        id_path=out.id_path,
        selection=selection,
        list_path=dotted(output["list_field"]),
        element_id_field=output["id_field"],
        cutoff=int(output["cutoff"]),
        membership=output["membership"],
        resolver=resolver,
        manifest_sha256=manifest_sha256(raw["envelope"]) if "envelope" in raw else None,
    )
    return out


def _selection(sel: dict[str, Any], inverse: Mapping[str, str] | None) -> Selection:
    if "field" in sel:
        return Selection("field", dotted(sel["field"]))
    if "alternatives_field" in sel:
        return Selection("alternatives", dotted(sel["alternatives_field"]))
    return Selection(
        "witness",
        dotted(sel["witness_field"]),
        dotted(sel["binding_field"]),
        inverse,
        sel["inverse_map"]["sha256"],
    )


def is_hard(decl: Declaration) -> bool:
    return decl.mode == HARD_MODE
