"""The versioned identity resolver D_v and the witness inverse map ("Does the Selected Object Reach the Reader?", Appendix A).

Resolver file: ``{"version": "...", "objects": {"<canonical id>": ["<member raw id>", ...]}}``.
Every raw member and every canonical id resolves to its canonical object; a raw id
claimed by two objects makes the resolver (and so the declaration) invalid. The
member set M_v(o) used by the ``all`` rule is the listed members, or ``{o}`` when
the list is empty (an object whose only raw id is its canonical id).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from scorers.rop.strings import strings
from vocabulary.jsonread import json_loads, json_problem


@dataclass(frozen=True)
class Resolver:
    version: str
    canonical: tuple[str, ...]  # canonical ids, code = position
    raw_to_canonical: Mapping[str, str]  # every raw id (members and canonical ids)
    members: Mapping[str, tuple[str, ...]]  # M_v(o), never empty

    def resolve(self, raw: str) -> str | None:
        return self.raw_to_canonical.get(raw)

    # Arrays for the vectorised evaluator, built once per resolver.
    def raw_keys(self) -> pa.Array:
        """Every raw id in code order."""
        keys = strings(list(self.raw_to_canonical))
        if not isinstance(keys, pa.Array):
            raise UnicodeEncodeError("utf-8", "", 0, 1, "a raw id is no UTF-8 text")
        return keys

    def raw_to_canonical_codes(self) -> np.ndarray:
        code = {c: i for i, c in enumerate(self.canonical)}
        return np.fromiter(
            (code[c] for c in self.raw_to_canonical.values()),
            dtype=np.int64,
            count=len(self.raw_to_canonical),
        )

    def member_raw_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, raw codes): the raw-key codes of M_v(o) for canonical code o."""
        raw_code = {r: i for i, r in enumerate(self.raw_to_canonical)}
        lengths = np.fromiter((len(self.members[c]) for c in self.canonical), dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        flat = np.fromiter(
            (raw_code[m] for c in self.canonical for m in self.members[c]),
            dtype=np.int64,
            count=int(offsets[-1]),
        )
        return offsets, flat


def _load_json(data: bytes, where: str, problems: list[str]) -> Any:
    try:
        return json_loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        problems.append(f"{where}: not UTF-8 text (save the file as UTF-8)")
    except json.JSONDecodeError as exc:
        problems.append(f"{where}:{exc.lineno}: malformed JSON ({json_problem(exc)})")
    return None


def _clean_objects(
    objects: dict[str, Any],
) -> tuple[dict[str, str], dict[str, tuple[str, ...]]] | None:
    """(raw id -> canonical id, members) built with whole-list operations when no check
    of the loop in `parse_resolver` can fail (every list of non-empty strings, no raw id
    listed twice, none another object's canonical id); None otherwise, and the loop then
    decides and reports. Same maps, same order, as the loop (a 50,000-object resolver:
    3x faster)."""
    if "" in objects:
        return None
    values = list(objects.values())
    if values and set(map(type, values)) != {list}:
        return None
    flat = list(itertools.chain.from_iterable(values))
    if flat and (set(map(type, flat)) != {str} or "" in flat):
        return None
    canon = list(objects)
    owners = itertools.chain.from_iterable(map(itertools.repeat, canon, map(len, values)))
    member_owner = dict(zip(flat, owners, strict=True))
    if len(member_owner) != len(flat):
        return None
    if any(member_owner[m] != m for m in objects.keys() & member_owner.keys()):
        return None
    owner = dict(zip(canon, canon, strict=True))  # a canonical id resolves to itself
    owner.update(member_owner)
    members = {c: tuple(v) if v else (c,) for c, v in zip(canon, values, strict=True)}
    return owner, members


def parse_resolver(data: bytes, where: str) -> tuple[Resolver | None, list[str]]:
    """Parse and check a resolver file; returns (resolver, problems)."""
    problems: list[str] = []
    obj = _load_json(data, where, problems)
    if obj is None:
        return None, problems
    if not isinstance(obj, dict):
        return None, [f"{where}: expected a JSON object with 'version' and 'objects'"]
    version = obj.get("version")
    if not isinstance(version, str) or not version:
        problems.append(f"{where}: 'version' must be a non-empty string")
    objects = obj.get("objects")
    if not isinstance(objects, dict):
        problems.append(f"{where}: 'objects' must map canonical ids to lists of raw member ids")
        return None, problems
    clean = _clean_objects(objects)
    if clean is not None:
        owner, members = clean
        if problems:
            return None, problems
        return Resolver(str(version), tuple(objects), owner, members), []
    owner = {}
    members = {}
    for canon in objects:
        if not canon:
            problems.append(f"{where}: objects: a canonical id is the empty string")
        owner[canon] = canon  # a canonical id resolves to itself
    for canon, raw_members in objects.items():
        if not isinstance(raw_members, list) or not all(
            isinstance(m, str) and m for m in raw_members
        ):
            problems.append(
                f"{where}: objects.{canon}: members must be a list of non-empty strings"
            )
            continue
        for m in raw_members:
            prev = owner.get(m)
            if prev is not None and prev != canon:
                problems.append(
                    f"{where}: objects.{canon}: raw id {m!r} is already owned by {prev!r} "
                    "(each raw id may resolve to one canonical object only)"
                )
                continue
            owner[m] = canon
        members[canon] = tuple(dict.fromkeys(raw_members)) or (canon,)
    if problems:
        return None, problems
    return (
        Resolver(
            version=str(version),
            canonical=tuple(objects),
            raw_to_canonical=owner,
            members=members,
        ),
        [],
    )


def parse_inverse_map(
    data: bytes, where: str, resolver: Resolver | None
) -> tuple[dict[str, str] | None, list[str]]:
    """Parse the witness inverse map ``{"version", "witnesses": {witness: selected key}}``.

    It must be one-to-one, and (when the resolver is valid) every decoded
    selection must resolve; either failure invalidates the declaration.
    """
    problems: list[str] = []
    obj = _load_json(data, where, problems)
    if obj is None:
        return None, problems
    table = obj.get("witnesses") if isinstance(obj, dict) else None
    if not isinstance(table, dict) or not all(isinstance(v, str) and v for v in table.values()):
        return None, [
            f"{where}: expected {{'version': ..., 'witnesses': {{witness: selected key}}}} "
            "with non-empty string keys"
        ]
    seen: dict[str, str] = {}
    for witness, selected in table.items():
        if not witness:
            problems.append(f"{where}: witnesses: a witness value is the empty string")
        if selected in seen:
            problems.append(
                f"{where}: witnesses: {witness!r} and {seen[selected]!r} both decode to "
                f"{selected!r} (the inverse map must be one-to-one)"
            )
        seen[selected] = witness
        if resolver is not None and resolver.resolve(selected) is None:
            problems.append(
                f"{where}: witnesses: {witness!r} decodes to {selected!r}, which is not in the "
                "resolver"
            )
    return (None if problems else dict(table)), problems
