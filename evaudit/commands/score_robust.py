"""`evaudit score sensitivity | bound | drop-condition`, nclue/compare `--block`/`--by`/`--category`.

Thin: parse options, load inputs with the helpers of `evaudit.commands.score`,
call one pure function of `scorers.runs` (selection, sensitivity, qrel_bound,
slices) and print its typed report. Imported at the end of score.py, which
registers these commands on the `score` group.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from evaudit.commands.score import (
    _bind,
    _common_options,
    _load_qrels,
    _load_queries,
    _parse_pairs,
    _path,
    _score_run_files,
    _store_path,
    score,
)
from vocabulary.errors import InputError

if TYPE_CHECKING:
    from scorers.runs import BoundQrels, PerQuery
    from scorers.runs.slices import SliceReport


# ---- --block NAME=BASE:V1,V2 ---------------------------------------------------------------


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


# ---- --by SPEC ----------------------------------------------------------------------------


def _query_attrs(queries: Path | None, project: Path | None) -> tuple[list[str], list[str]]:
    """(release, source) per query, in the order _load_queries returns the queries."""
    if queries is not None:
        from packet_builder.readers import read_queries

        qs = read_queries(queries)
        return [q.release for q in qs], [q.source for q in qs]
    assert project is not None
    from campaign import store

    rows = store.query_strata(_store_path(project))
    return [r[0] for r in rows], [r[1] for r in rows]


def _page_counts(pages: Path | None, project: Path | None) -> dict[str, int]:
    """Pages per document: a pages.jsonl (distinct pages per doc_id) or the store's documents."""
    if pages is not None:
        from packet_builder.readers import json_lines

        seen: dict[str, set[Any]] = {}
        for lineno, obj in json_lines(pages):
            doc = obj.get("doc_id")
            if not isinstance(doc, str) or "page" not in obj:
                raise InputError(
                    "expected {\"doc_id\", \"page\", ...}", file=pages, line=lineno,
                    hint="give the corpus pages.jsonl",
                )  # fmt: skip
            seen.setdefault(doc, set()).add(obj["page"])
        return {d: len(p) for d, p in seen.items()}
    if project is not None:
        from campaign import store

        return store.document_pages(_store_path(project))
    raise InputError(
        "--by lmin needs page counts", hint="pass --pages pages.jsonl or --project DIR"
    )


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
        release, source = _query_attrs(queries, project)
    counts = None
    if "lmin" in factors:
        counts = _page_counts(pages, project)
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


def emit(as_json: bool, obj: dict[str, Any], text: str) -> None:
    from evaudit.output import emit_json

    emit_json(obj) if as_json else click.echo(text)


# ---- --category FILE ---------------------------------------------------------------------


def read_categories(path: Path, tags: list[str]) -> tuple[dict[str, str], set[str]]:
    """Lines `RUN CATEGORY [privileged]` (whitespace-separated; blank and # lines skipped)."""
    cats: dict[str, str] = {}
    privileged: set[str] = set()
    known = set(tags)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise InputError("category file not found", file=path) from exc
    for lineno, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) not in (2, 3) or (len(fields) == 3 and fields[2] != "privileged"):
            raise InputError(
                "expected `RUN CATEGORY` or `RUN CATEGORY privileged`", file=path, line=lineno
            )
        run, cat = fields[0], fields[1]
        if run not in known:
            raise InputError(
                f"run {run!r} is not among the scored runs", file=path, line=lineno,
                hint=f"run names: {', '.join(tags)}",
            )  # fmt: skip
        if run in cats:
            raise InputError(f"run {run!r} is listed twice", file=path, line=lineno)
        cats[run] = cat
        if len(fields) == 3:
            privileged.add(run)
    return cats, privileged


# ---- score sensitivity --------------------------------------------------------------------


@score.command("sensitivity")
@_common_options(k=True)
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@click.option(
    "--membership", type=click.Choice(["gold", "judged"]), default="gold", show_default=True,
    help="Query-document memberships: gold documents, or every judged gold/partial document.",
)  # fmt: skip
@click.option("--draws", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Crossed and one-query-per-document draws.")  # fmt: skip
@click.option("--remove-top", type=click.IntRange(min=0), default=20, show_default=True,
              help="Remove the queries of this many highest-degree documents.")  # fmt: skip
@click.option("--metric", type=click.Choice(["nclue", "gold_hit", "gold_ndcg", "ndcg"]),
              default="nclue", show_default=True, help="Per-query measure of the gap.")  # fmt: skip
def sensitivity_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, membership: str, draws: int, remove_top: int,
    metric: str,
) -> None:  # fmt: skip
    """Shared-document sensitivity of VARIANT - BASE (the first --run is BASE, the second VARIANT)."""
    from scorers.runs import METRICS
    from scorers.runs.sensitivity import sensitivity_report

    if len(runs) != 2:
        raise InputError(
            f"score sensitivity takes exactly two runs, got {len(runs)}",
            hint="pass --run BASE --run VARIANT",
        )
    qids, n = _load_queries(queries, project)
    frame, source = _load_qrels(qrels, project, "--qrels")
    bound = _bind(qids, n, frame, source, k)
    (scored,) = _score_run_files(runs, [bound], ties, as_json)
    base, variant = list(scored)
    j = METRICS.index(metric)
    d = scored[variant].values()[j] - scored[base].values()[j]
    rep = sensitivity_report(
        bound, d, base=base, variant=variant, metric=metric, membership=membership,
        draws=draws, seed=seed, remove_top=remove_top,
    )  # fmt: skip
    emit(as_json, rep.to_json(), rep.to_text())


# ---- score bound --------------------------------------------------------------------------


def _budgets(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        ks = []
    if not ks or any(x < 0 for x in ks):
        raise InputError(f"--k {text!r} is not a list of promotion budgets", hint="e.g. --k 1,2,3")
    return ks


@score.command("bound")
@_common_options(k=False, seed=False)
@click.option("--qrels", type=_path, help="Qrels (TREC or JSONL); default: the project's.")
@click.option("--pair", "pairs", multiple=True, metavar="BASE:VARIANT", required=True,
              help="A contrast to bound (repeatable).")  # fmt: skip
@click.option("--k", "budgets", default="1,2,3", show_default=True, metavar="K1,K2,...",
              help="Promotion budgets: at most k judged subsets per query become gold.")  # fmt: skip
@click.option("--cutoff", type=click.IntRange(min=1), default=10, show_default=True,
              help="Rank cutoff of n-Clue Score and of the top-k union.")  # fmt: skip
def bound_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], ties: str,
    as_json: bool, qrels: Path | None, pairs: tuple[str, ...], budgets: str, cutoff: int,
) -> None:  # fmt: skip
    """Exact min and max of variant - base n-Clue Score after promoting judged subsets to gold."""
    from scorers.runs.qrel_bound import bound_report

    ks = _budgets(budgets)
    qids, n = _load_queries(queries, project)
    frame, source = _load_qrels(qrels, project, "--qrels")
    bound = _bind(qids, n, frame, source, cutoff)
    (scored,) = _score_run_files(runs, [bound], ties, as_json)
    rep = bound_report(bound, scored, _parse_pairs(pairs, list(scored)), ks)
    emit(as_json, rep.to_json(), rep.to_text())


# ---- score drop-condition -----------------------------------------------------------------


def _conditions(queries: Path | None, project: Path | None) -> dict[str, list[str]]:
    """Condition ids of every query, in position order."""
    if queries is not None:
        from packet_builder.readers import read_queries

        return {q.query_id: [c.condition_id for c in q.conditions] for q in read_queries(queries)}
    assert project is not None
    from campaign import store

    out: dict[str, list[str]] = {}
    with store.connect(_store_path(project), read_only=True) as con:
        for q, c, *_ in store.condition_rows(con):
            out.setdefault(str(q), []).append(str(c))
    return out


def _evidence(
    path: Path | None, project: Path | None
) -> dict[tuple[str, str], dict[str, list[int]]]:
    out: dict[tuple[str, str], dict[str, list[int]]] = {}
    if path is not None:
        from packet_builder.readers import read_evidence

        for _lineno, ev in read_evidence(path):
            out.setdefault((ev.query_id, ev.doc_id), {}).setdefault(ev.condition_id, []).extend(
                ev.pages
            )
        return out
    if project is None:
        raise InputError(
            "no evidence given", hint="pass --evidence evidence.jsonl or --project DIR"
        )
    from campaign import store

    with store.connect(_store_path(project), read_only=True) as con:
        for q, d, c, page in store.evidence_rows(con):
            out.setdefault((str(q), str(d)), {}).setdefault(str(c), []).append(int(page))
    return out


def _drop_specs(specs: tuple[str, ...], tags: list[str]) -> list[tuple[str, int, str]]:
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


@score.command("drop-condition")
@_common_options(k=True)
@click.option("--qrels", type=_path, help="Qrels of the full runs; default: the project's.")
@click.option("--evidence", type=_path, help="Construction evidence; default: the project's.")
@click.option(
    "--drop", "drops", multiple=True, required=True, metavar="NAME:POS=FILE",
    help="The run of system NAME (a --run name) with condition POS (1-based) dropped "
    "(repeatable).",
)  # fmt: skip
@click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Exact-family bootstrap replicates of each change.")  # fmt: skip
def drop_condition_cmd(
    queries: Path | None, project: Path | None, runs: tuple[str, ...], k: int, ties: str,
    seed: int, as_json: bool, qrels: Path | None, evidence: Path | None, drops: tuple[str, ...],
    bootstrap: int,
) -> None:  # fmt: skip
    """Gold-NDCG@k change after dropping one condition (grades recomputed from the evidence)."""
    from scorers.runs.bind import bind_qrels
    from scorers.runs.drop_condition import drop_report, dropped_qrels

    qids, n = _load_queries(queries, project)
    frame, source = _load_qrels(qrels, project, "--qrels")
    full = _bind(qids, n, frame, source, k)
    (scored,) = _score_run_files(runs, [full], ties, as_json)
    conds = _conditions(queries, project)
    ev = _evidence(evidence, project)
    specs = _drop_specs(drops, list(scored))
    bounds: dict[int, BoundQrels] = {}
    dropped = []
    for system, pos, file in specs:
        if pos not in bounds:
            eq, en, rows = dropped_qrels({q: conds[q] for q in qids}, ev, pos)
            if not eq:
                raise InputError(f"no query has {max(pos, 2)} or more conditions for --drop {pos}")
            bounds[pos] = bind_qrels(
                eq, en, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], k=k
            )
        (pq,) = _score_run_files((file,), [bounds[pos]], ties, as_json)
        dropped.append((system, pos, bounds[pos], next(iter(pq.values()))))
    rep = drop_report(full, scored, dropped, bootstrap=bootstrap, seed=seed)
    emit(as_json, rep.to_json(), rep.to_text())
