"""Reproducible stratified sampling of judged query-document pairs ("Do Current Retrievers Cover All the Evidence?" (supplement), "Scope and Sampling").

Candidates are judged pairs (grade >= 1). Each is ordered by a salted SHA-256
of its ids, the salt derived from the seed, and the first N per stratum are
taken (`per_stratum`), or a total is split over strata by largest-remainder
proportional allocation (`total`). With `one_per_query`, a query already used
is skipped (strata are visited in sorted order). Everything here is pure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from vocabulary.errors import InputError

STRATUM_FIELDS = ("release", "source", "label")


def salt_for(seed: int) -> str:
    return hashlib.sha256(f"evaudit-packet-salt:{seed}".encode()).hexdigest()


def salted_hash(salt: str, *parts: object) -> str:
    return hashlib.sha256("\t".join([salt, *map(str, parts)]).encode()).hexdigest()


@dataclass(frozen=True)
class Candidate:
    query_id: str
    doc_id: str
    grade: int
    n: int
    release: str = ""
    source: str = ""

    @property
    def label(self) -> str:
        return "gold" if self.grade >= self.n else "subset"

    @property
    def pair_id(self) -> str:
        return f"{self.query_id}\t{self.doc_id}"

    def stratum(self, fields: Sequence[str]) -> tuple[str, ...]:
        return tuple(str(getattr(self, f)) for f in fields)


@dataclass(frozen=True)
class Sample:
    selected: list[Candidate]  # in salted-hash order (= item order)
    hashes: dict[str, str]  # pair_id -> salted hash, for every candidate
    allocation: list[dict[str, object]]
    selection_sha256: str


def check_strata(fields: Sequence[str]) -> None:
    bad = [f for f in fields if f not in STRATUM_FIELDS]
    if bad or len(set(fields)) != len(fields):
        raise InputError(
            f"unknown or repeated stratum field(s): {', '.join(bad) or ','.join(fields)}",
            hint=f"use a comma list of {', '.join(STRATUM_FIELDS)}",
        )


def proportional(sizes: dict[tuple[str, ...], int], total: int) -> dict[tuple[str, ...], int]:
    """Largest-remainder (Hamilton) allocation; remainder ties go to the larger, then first stratum."""
    population = sum(sizes.values())
    quotas = {s: total * size / population for s, size in sizes.items()}
    alloc = {s: int(q) for s, q in quotas.items()}
    left = total - sum(alloc.values())
    order = sorted(sizes, key=lambda s: (-(quotas[s] - alloc[s]), -sizes[s], s))
    for s in order[:left]:
        alloc[s] += 1
    return alloc


def selection_sha256(selected: Sequence[Candidate]) -> str:
    """SHA-256 of the selected pair ids, one `query_id<TAB>doc_id` line each, in item order."""
    return hashlib.sha256("".join(f"{c.pair_id}\n" for c in selected).encode()).hexdigest()


def sample(
    candidates: Sequence[Candidate],
    salt: str,
    strata: Sequence[str],
    *,
    per_stratum: int | None = None,
    total: int | None = None,
    one_per_query: bool = False,
) -> Sample:
    check_strata(strata)
    if (per_stratum is None) == (total is None):
        raise InputError("give exactly one of --per-stratum N or --total N")
    if (per_stratum or total or 0) < 1:
        raise InputError("the sample size must be at least 1", hint="--per-stratum/--total N >= 1")
    if not candidates:
        raise InputError("no judged pairs (grade >= 1) to sample", hint="run `evaudit load` first")
    hashes = {c.pair_id: salted_hash(salt, c.query_id, c.doc_id) for c in candidates}
    groups: dict[tuple[str, ...], list[Candidate]] = {}
    for c in sorted(candidates, key=lambda c: hashes[c.pair_id]):
        groups.setdefault(c.stratum(strata), []).append(c)
    sizes = {s: len(g) for s, g in groups.items()}
    if total is not None:
        if total > sum(sizes.values()):
            raise InputError(
                f"--total {total} exceeds the {sum(sizes.values())} judged pairs",
                hint="lower --total",
            )
        wanted = proportional(sizes, total)
    else:
        wanted = dict.fromkeys(sizes, int(per_stratum or 0))
    used_queries: set[str] = set()
    chosen: list[Candidate] = []
    allocation: list[dict[str, object]] = []
    for stratum in sorted(groups):
        picks: list[Candidate] = []
        for c in groups[stratum]:
            if len(picks) == wanted[stratum]:
                break
            if one_per_query and c.query_id in used_queries:
                continue
            picks.append(c)
            used_queries.add(c.query_id)
        if len(picks) < wanted[stratum]:
            label = ", ".join(f"{f}={v}" for f, v in zip(strata, stratum, strict=True))
            raise InputError(
                f"stratum ({label}) has only {len(picks)} eligible pairs, {wanted[stratum]} wanted",
                hint="lower --per-stratum, use --total, or drop --one-per-query",
            )
        chosen.extend(picks)
        allocation.append(
            {
                "stratum": dict(zip(strata, stratum, strict=True)),
                "available": sizes[stratum],
                "selected": len(picks),
                "gold": sum(c.label == "gold" for c in picks),
                "subset": sum(c.label == "subset" for c in picks),
            }
        )
    chosen.sort(key=lambda c: hashes[c.pair_id])
    return Sample(chosen, hashes, allocation, selection_sha256(chosen))


def summary_table(selected: Sequence[Candidate]) -> list[dict[str, object]]:
    """Rows like the "Stratified audit sample" of "Do Current Retrievers Cover All the Evidence?" (supplement): release, source, pairs, pre-gold, pre-subset."""
    counts: dict[tuple[str, str], list[int]] = {}
    for c in selected:
        row = counts.setdefault((c.release, c.source), [0, 0, 0])
        row[0] += 1
        row[1 if c.label == "gold" else 2] += 1
    return [
        {"release": r, "source": s, "pairs": v[0], "gold": v[1], "subset": v[2]}
        for (r, s), v in sorted(counts.items())
    ]
