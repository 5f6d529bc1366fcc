"""The score options that name runs (--pair, --block, --drop), the --by slices and
`score bound`'s --k budgets.

They are read here, not in the CLI, because they are checked against the run names,
which are known only once the run files are read (a run is named by its tag unless
NAME= is given), and a run name may itself contain ':'.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from services.score_inputs import page_counts, query_attrs
from vocabulary.errors import InputError

if TYPE_CHECKING:
    from scorers.runs import BoundQrels, PerQuery
    from scorers.runs.slices import SliceReport


def parse_budgets(text: str) -> list[int]:
    """`score bound --k K1,K2,...`: the promotion budgets, each a count >= 0."""
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        ks = []
    if not ks or any(x < 0 for x in ks):
        raise InputError(f"--k {text!r} is not a list of promotion budgets", hint="e.g. --k 1,2,3")
    return ks


def parse_pairs(pairs: tuple[str, ...], tags: list[str]) -> list[tuple[str, str]]:
    """BASE:VARIANT; the split point is the colon that leaves two known run names."""
    out = []
    known = set(tags)
    for spec in pairs:
        cuts = [i for i, ch in enumerate(spec) if ch == ":"]
        found = [(spec[:i], spec[i + 1 :]) for i in cuts if {spec[:i], spec[i + 1 :]} <= known]
        if not found:
            raise InputError(
                f"--pair {spec!r} does not name two runs as BASE:VARIANT",
                hint=f"run names: {', '.join(tags)}",
            )
        out.append(found[0])
    return out


def parse_blocks(specs: tuple[str, ...], tags: list[str]) -> list[tuple[str, str, list[str]]]:
    """NAME=BASE:VARIANT1,VARIANT2,... ; run names may contain ':' (the known split wins)."""
    out: list[tuple[str, str, list[str]]] = []
    known = set(tags)
    for spec in specs:
        name, eq, rest = spec.partition("=")
        cuts = [i for i, ch in enumerate(rest) if ch == ":"]
        found = [
            (rest[:i], rest[i + 1 :].split(","))
            for i in cuts
            if rest[:i] in known and all(v in known for v in rest[i + 1 :].split(","))
        ]
        if not eq or not name or not found:
            raise InputError(
                f"--block {spec!r} is not NAME=BASE:VARIANT1,VARIANT2,... over known run names",
                hint=f"run names: {', '.join(tags)}",
            )
        base, variants = found[0]
        if base in variants or len(set(variants)) != len(variants):
            raise InputError(
                f"--block {spec!r} repeats a run", hint="list each variant once, not the base"
            )
        out.append((name, base, variants))
    if len({b[0] for b in out}) != len(out):
        raise InputError("two --block options have the same NAME", hint="name blocks uniquely")
    return out


def parse_drops(specs: tuple[str, ...], tags: list[str]) -> list[tuple[str, int, str]]:
    """NAME:POS=FILE -> (system, position, file spec)."""
    out = []
    for spec in specs:
        head, eq, file = spec.partition("=")
        name, colon, pos = head.rpartition(":")
        if not eq or not colon or not pos.isdigit() or int(pos) < 1 or name not in tags:
            raise InputError(
                f"--drop {spec!r} is not NAME:POSITION=FILE with NAME a --run name",
                hint=f"run names: {', '.join(tags)}; positions are 1-based",
            )
        out.append((name, int(pos), file))
    return out


def slices_for(
    by: tuple[str, ...],
    bound: BoundQrels,
    scored: dict[str, PerQuery],
    pairs: list[tuple[str, str]],
    *,
    queries: Path | None,
    project: Path | None,
    pages: Path | None,
    bootstrap: int,
    seed: int,
) -> SliceReport:
    """The --by slices: n-Clue / Gold Hit per cell, and the pairs' effects per cell."""
    from scorers.runs.slices import parse_slice, query_factors, slice_report

    specs = []
    for text in by:
        try:
            specs.append(parse_slice(text))
        except ValueError as exc:
            raise InputError(f"--by {text!r}: {exc}") from exc
    factors = {s.factor for s in specs}
    release = source = None
    if factors & {"release", "source"}:
        release, source = query_attrs(queries, project)
    counts = None
    if "lmin" in factors:
        counts = page_counts(pages, project)
        from scorers.runs.sensitivity import memberships

        lacking = [d for d in memberships(bound, "gold").doc_ids if d not in counts]
        if lacking:
            raise InputError(
                f"gold document {lacking[0]!r} has no page count "
                f"({len(lacking)} gold document(s) lack one)",
                file=pages or project,
                hint="ingest every gold document, or give the corpus pages.jsonl",
            )
    f = query_factors(bound, release, source, counts)
    return slice_report(bound, scored, specs, f, pairs, bootstrap=bootstrap, seed=seed)
