"""`packet build`: select pairs (initial / adjudication / challenge), pool pages, blind, register.

Everything is built in memory first; `packets.register` then writes the packet,
the key and the store row all-or-nothing. No timestamp enters the packet or the
key (the store row has `created_at`), so the same project state, name and seed
give byte-identical files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaign import store
from campaign.project import Project
from formats.records import Condition, Query
from packet_builder import history
from packet_builder.benchmark_view import (
    Benchmark,
    read_benchmark,
    read_corpus,
    read_run,
    run_names,
)
from packet_builder.blinding import BuiltCondition, BuiltItem, blind, packet_bytes
from packet_builder.challenge import cap_targets, promotions, split_targets
from packet_builder.leaks import ordinary_values
from packet_builder.packet_size import (
    DEFAULT_MAX_PACKET_MB,
    DEFAULT_SECONDS_PER_CONDITION,
    PacketPlan,
    check_limits,
    plan_for,
    refuse_oversize,
)
from packet_builder.packets import PacketRow, check_name, earlier_packets, register
from packet_builder.pools import build_pool, expect_targets
from packet_builder.routes.base import ROUTE_NAMES, Corpus, Route, Target
from packet_builder.routes.bm25 import BM25Index, BM25Route
from packet_builder.routes.construction import construction_route
from packet_builder.routes.fuzzy import FuzzyRoute
from packet_builder.routes.lexical import LexicalRoute
from packet_builder.routes.original import original_route
from packet_builder.routes.selected import selected_route
from packet_builder.sampling import Candidate, salt_for, salted_hash, sample, summary_table
from vocabulary.errors import InputError, InputErrors
from vocabulary.jsonread import json_document
from vocabulary.progress import Progress, no_progress

KINDS = ("initial", "adjudication", "challenge")
QUEUE_FORMAT = "evaudit-adjudication-queue"


PairGrades = dict[tuple[str, str], int]


@dataclass(frozen=True)
class ChainInputs:
    """What a build needs from the audit chain above it, handed in by the service
    (services/build.py) so that the builder never imports the chain: the check of an
    adjudication queue against its repair plan, and the qrels copy a challenge targets."""

    check_queue: Callable[[Project, Path, dict[str, Any]], None]
    challenge_qrels: Callable[
        [Project, Mapping[tuple[str, str], int], str | None], tuple[PairGrades, str]
    ]
    describe: Callable[[Mapping[tuple[str, str], int], str], dict[str, object]]


@dataclass
class BuildSpec:
    name: str
    kind: str = "initial"
    seed: int = 0
    strata: Sequence[str] = ("release", "source", "label")
    per_stratum: int | None = None
    total: int | None = None
    one_per_query: bool = False
    pages_per_condition: int = 3
    min_pages: int = 6
    max_pages: int = 9
    queue: Path | None = None
    base: str | None = None
    variant: str | None = None
    k: int = 10
    controls: int = 25
    routes: Sequence[str] = ROUTE_NAMES
    # challenge: the qrels copy the targets come from (audit_chain/challenge_qrels.py;
    # None = finalize-output when an audited stage exists) and the releases it covers
    qrels_from: str | None = None
    releases: Sequence[str] = ()
    # challenge: at most this many targets, stratified by contrast reduction (challenge.cap_targets)
    max_targets: int | None = None
    # every kind: refuse a packet over this size; the time estimate's stated assumption
    max_packet_mb: float = DEFAULT_MAX_PACKET_MB
    seconds_per_condition: float = DEFAULT_SECONDS_PER_CONDITION

    def page_bounds(self) -> tuple[int, int]:
        if self.kind == "initial":
            return self.pages_per_condition, self.pages_per_condition
        return self.min_pages, self.max_pages

    def params(self) -> dict[str, Any]:
        lo, hi = self.page_bounds()
        out: dict[str, Any] = {
            "kind": self.kind,
            "seed": self.seed,
            "salt": salt_for(self.seed),
            "min_pages": lo,
            "max_pages": hi,
            "routes": list(self.routes),
        }
        if self.kind == "initial":
            out.update(strata=list(self.strata), per_stratum=self.per_stratum, total=self.total)
            out["one_per_query"] = self.one_per_query
        elif self.kind == "adjudication":
            out["queue"] = self.queue.name if self.queue else None
        else:
            out.update(base=self.base, variant=self.variant, k=self.k, controls=self.controls)
            out.update(qrels_from=self.qrels_from, releases=list(self.releases))
            if self.max_targets is not None:  # absent otherwise: earlier keys stay byte-stable
                out["max_targets"] = self.max_targets
        return out


# (query, doc, grade, order hash, condition ids to judge, status, extra key fields)
Pair = tuple[Query, str, int, str, list[str], str | None, dict[str, Any]]


@dataclass
class Selection:
    """The pairs to judge and, for initial packets, the sampling record."""

    pairs: list[Pair]
    sampling: dict[str, Any] | None = None
    summary: list[dict[str, object]] = field(default_factory=list)


@dataclass
class BuildResult:
    row: PacketRow | None  # None: a --dry-run, nothing written
    packet: dict[str, Any]
    key: dict[str, Any]
    summary: list[dict[str, object]]
    plan: PacketPlan | None = None

    @property
    def name(self) -> str:
        return self.row.name if self.row is not None else str(self.packet["packet_id"])

    @property
    def kind(self) -> str:
        return self.row.kind if self.row is not None else str(self.packet["kind"])

    @property
    def n_items(self) -> int:
        return self.row.n_items if self.row is not None else len(self.packet["items"])

    @property
    def conditions(self) -> int:
        return sum(len(it["conditions"]) for it in self.packet["items"])

    @property
    def page_contexts(self) -> int:
        return sum(len(c["pages"]) for it in self.packet["items"] for c in it["conditions"])

    @property
    def target_selection(self) -> dict[str, Any] | None:
        """A challenge packet's choice of targets by band (`--max-targets`), else None."""
        sampling = self.key.get("sampling") or {}
        selection: dict[str, Any] | None = sampling.get("target_selection")
        return selection

    def to_json(self) -> dict[str, Any]:
        sampling = self.key.get("sampling") or {}
        head: dict[str, Any] = (
            self.row.to_json()
            if self.row is not None
            else {"name": self.name, "kind": self.kind}
            | {"n_items": self.n_items, "path": None, "key_path": None}
        )
        out = {
            **head,
            "written": self.row is not None,
            "conditions": self.conditions,
            "page_contexts": self.page_contexts,
            "allocation": sampling.get("allocation"),
            "summary": self.summary,
            "size": self.plan.to_json() if self.plan else None,
        }
        if "target_selection" in sampling:
            out["target_selection"] = sampling["target_selection"]
        return out


def _check_spec(spec: BuildSpec) -> None:
    if spec.kind not in KINDS:
        raise InputError(f"unknown packet kind {spec.kind!r}", hint=f"use {', '.join(KINDS)}")
    unknown = [r for r in spec.routes if r not in ROUTE_NAMES]
    if unknown or not spec.routes:
        raise InputError(
            f"unknown route(s): {', '.join(unknown) or '(none given)'}",
            hint=f"choose from {','.join(ROUTE_NAMES)}",
        )
    lo, hi = spec.page_bounds()
    if lo < 1 or hi < lo:
        raise InputError(f"bad page bounds min {lo} / max {hi}", hint="need 1 <= min <= max")
    if spec.kind == "adjudication" and spec.queue is None:
        raise InputError("--kind adjudication needs --queue QUEUE.json")
    if spec.kind == "challenge" and not (spec.base and spec.variant):
        raise InputError("--kind challenge needs --base RUN and --variant RUN")
    if spec.kind == "challenge" and (spec.k < 1 or spec.controls < 0):
        raise InputError("--k must be >= 1 and --controls >= 0")
    if spec.max_targets is not None and (spec.kind != "challenge" or spec.max_targets < 1):
        raise InputError(
            f"--max-targets {spec.max_targets} needs --kind challenge and N >= 1",
            hint="give --kind challenge --max-targets N with N >= 1, or leave it out",
        )
    check_limits(spec.max_packet_mb, spec.seconds_per_condition)


def select_initial(spec: BuildSpec, bench: Benchmark, salt: str) -> Selection:
    candidates = [
        Candidate(q, d, g, bench.queries[q].n, bench.queries[q].release, bench.queries[q].source)
        for (q, d), g in sorted(bench.qrels.items())
        if g >= 1 and q in bench.queries
    ]
    s = sample(
        candidates,
        salt,
        spec.strata,
        per_stratum=spec.per_stratum,
        total=spec.total,
        one_per_query=spec.one_per_query,
    )
    pairs: list[Pair] = [
        (
            bench.queries[c.query_id],
            c.doc_id,
            c.grade,
            s.hashes[c.pair_id],
            [x.condition_id for x in bench.queries[c.query_id].conditions],
            None,
            {},
        )
        for c in s.selected
    ]
    sampling = {
        "candidates": s.hashes,
        "allocation": s.allocation,
        "selection_sha256": s.selection_sha256,
    }
    return Selection(pairs, sampling, summary_table(s.selected))


def read_queue(
    path: Path, bench: Benchmark, project: Project, chain: ChainInputs
) -> list[dict[str, Any]]:
    """The queue's pairs after structural checks and the check against its repair plan."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError("queue file not found", file=path) from exc
    obj = json_document(text, "not valid JSON", path)
    if not isinstance(obj, dict) or obj.get("format") != QUEUE_FORMAT:
        raise InputError(
            f"not an adjudication queue (format must be {QUEUE_FORMAT!r})",
            file=path,
            hint="produce it with `evaudit repair plan --queue-out`",
        )
    pairs = obj.get("pairs")
    if not isinstance(pairs, list) or not pairs:
        raise InputError("the queue has no pairs", file=path)
    problems: list[InputError] = []
    seen: set[tuple[str, str]] = set()
    for i, p in enumerate(pairs):
        where = f"pairs[{i}]"
        if not isinstance(p, dict):
            problems.append(InputError(f"{where} is not an object", file=path))
            continue
        q, d, unresolved = p.get("query_id"), p.get("doc_id"), p.get("unresolved")
        if q not in bench.queries:
            problems.append(InputError(f"{where}: unknown query_id {q!r}", file=path))
            continue
        if (q, d) in seen:
            problems.append(InputError(f"{where}: pair {q} / {d} is queued twice", file=path))
        seen.add((str(q), str(d)))
        known = {c.condition_id for c in bench.queries[q].conditions}
        pages = p.get("page_adjudication", [])
        if not isinstance(unresolved, list) or not isinstance(pages, list):
            problems.append(
                InputError(
                    f"{where}: 'unresolved' and 'page_adjudication' must be lists", file=path
                )
            )
        elif not unresolved and not pages:
            problems.append(
                InputError(
                    f"{where}: pair {q} / {d} has nothing to adjudicate "
                    "(no unresolved or page_adjudication condition)",
                    file=path,
                )
            )
        elif bad := [c for c in [*unresolved, *pages] if c not in known]:
            problems.append(
                InputError(
                    f"{where}: condition(s) {', '.join(map(str, bad))} not in query {q}",
                    file=path,
                    hint=f"known: {', '.join(sorted(known))}",
                )
            )
    if problems:
        raise InputErrors(problems)
    chain.check_queue(project, path, obj)
    return pairs


def select_adjudication(
    spec: BuildSpec, bench: Benchmark, salt: str, project: Project, chain: ChainInputs
) -> Selection:
    assert spec.queue is not None
    pairs: list[Pair] = []
    for p in read_queue(spec.queue, bench, project, chain):
        q, d = str(p["query_id"]), str(p["doc_id"])
        query = bench.queries[q]
        # Page-adjudication conditions are shown like unresolved ones (policies/repair.py).
        wanted = set(p["unresolved"]) | set(p.get("page_adjudication") or [])
        judge = [c.condition_id for c in query.conditions if c.condition_id in wanted]
        extra = {
            "reason": p.get("reason"),
            "unresolved": [c for c in judge if c in set(p["unresolved"])],
            "locked": list(p.get("locked") or []),
            "page_adjudication": list(p.get("page_adjudication") or []),
        }
        pairs.append(
            (query, d, bench.qrels.get((q, d), 0), salted_hash(salt, q, d), judge, None, extra)
        )
    return Selection(pairs)


def select_challenge(
    spec: BuildSpec,
    bench: Benchmark,
    salt: str,
    runs: dict[str, dict[str, list[str]]],
    qrels: dict[tuple[str, str], int] | None = None,
) -> Selection:
    """Targets and controls from `qrels` (the copy the challenge targets; default: as loaded),
    restricted to the queries of spec.releases when given."""
    assert spec.base and spec.variant
    grades = bench.qrels if qrels is None else qrels
    if spec.releases:
        wanted = set(spec.releases)
        grades = {k: g for k, g in grades.items() if bench.queries[k[0]].release in wanted}
    n = {q: query.n for q, query in bench.queries.items()}
    promos = promotions(grades, n, runs[spec.base], runs[spec.variant], spec.k)
    targets, neutral = split_targets(promos)
    selection: dict[str, Any] | None = None
    if spec.max_targets is not None and targets:
        found = len(targets)
        targets, bands = cap_targets(targets, spec.max_targets, salt)
        selection = {
            "max_targets": spec.max_targets,
            "targets_found": found,
            "targets_taken": len(targets),
            "method": "equal-count bands of contrast reduction; proportional "
            "(largest remainder); lowest salted hash within a band",
            "bands": [b.to_json() for b in bands],
        }
    neutral.sort(key=lambda p: salted_hash(salt, "control", p.query_id, p.doc_id))
    if len(neutral) < spec.controls:
        raise InputError(
            f"only {len(neutral)} neutral judged pairs in the top-{spec.k} union for "
            f"{spec.controls} controls",
            hint="lower --controls",
        )
    if not targets:
        raise InputError(
            f"no judged subset in the top-{spec.k} union can reduce the "
            f"{spec.variant} - {spec.base} contrast",
            hint="check the runs, or raise --k",
        )
    pairs: list[Pair] = []
    for status, group in (("target", targets), ("control", neutral[: spec.controls])):
        for p in group:
            query = bench.queries[p.query_id]
            extra = {"contrast_before": p.before, "contrast_after": p.after}
            ids = [c.condition_id for c in query.conditions]
            h = salted_hash(salt, p.query_id, p.doc_id)
            pairs.append((query, p.doc_id, p.grade, h, ids, status, extra))
    summary = [
        {"status": "target", "pairs": len(targets)},
        {"status": "control", "pairs": min(spec.controls, len(neutral))},
    ]
    return Selection(pairs, {"target_selection": selection} if selection else None, summary)


def make_routes(
    names: Sequence[str], corpus: Corpus, bench: Benchmark, project: Project, before: list[str]
) -> list[Route]:
    routes: list[Route] = []
    for name in names:
        if name == "original":
            routes.append(original_route(history.shown_pages(project, before)))
        elif name == "selected":
            routes.append(selected_route(history.selected_pages(project, before)))
        elif name == "lexical":
            routes.append(LexicalRoute(corpus))
        elif name == "bm25":
            routes.append(BM25Route(corpus, BM25Index.from_corpus(corpus)))
        elif name == "fuzzy":
            routes.append(FuzzyRoute(corpus))
        elif name == "construction":
            routes.append(construction_route(bench.evidence))
    return routes


def target_for(query: Query, doc_id: str, cond: Condition) -> Target:
    return Target(
        query.query_id, doc_id, cond.condition_id, cond.name, cond.requirement, cond.aliases
    )


Announce = Callable[[PacketPlan], None]


def build(
    project: Project,
    spec: BuildSpec,
    chain: ChainInputs,
    progress: Progress = no_progress,
    announce: Announce | None = None,
    dry_run: bool = False,
) -> BuildResult:
    """Build packet `spec.name` in memory, measure it (`announce` sees the plan before
    anything is written), refuse it over `spec.max_packet_mb`, then register it
    (not with `dry_run`)."""
    _check_spec(spec)
    check_name(project, spec.name)
    salt = salt_for(spec.seed)
    with store.connect(project.store_path, read_only=True) as con:
        bench = read_benchmark(con)
        known_runs = run_names(con)
        runs: dict[str, dict[str, list[str]]] = {}
        if spec.kind == "challenge":
            for run in (spec.base, spec.variant):
                if run not in known_runs:
                    raise InputError(
                        f"unknown run {run!r}",
                        file=project.store_path,
                        hint=f"loaded runs: {', '.join(known_runs) or 'none'}",
                    )
                runs[str(run)] = read_run(con, str(run))
        if spec.kind == "initial":
            selection = select_initial(spec, bench, salt)
        elif spec.kind == "adjudication":
            selection = select_adjudication(spec, bench, salt, project, chain)
        else:
            releases = {q.release for q in bench.queries.values()}
            if unknown := sorted(set(spec.releases) - releases):
                raise InputError(
                    f"unknown release(s) {', '.join(unknown)}",
                    hint=f"the project's releases: {', '.join(sorted(releases)) or 'none'}",
                )
            targeted, spec.qrels_from = chain.challenge_qrels(project, bench.qrels, spec.qrels_from)
            selection = select_challenge(spec, bench, salt, runs, targeted)
            selection.sampling = {
                **chain.describe(targeted, spec.qrels_from),
                **(selection.sampling or {}),
            }
        corpus = read_corpus(con)
    missing = sorted({d for _q, d, *_ in selection.pairs if not corpus.shown_pages(d)})
    if missing:
        raise InputErrors(
            [
                InputError(
                    f"document {d!r} has no page text",
                    file=project.store_path,
                    hint="ingest the document (or its OCR) before building packets",
                )
                for d in missing
            ]
        )
    routes = make_routes(spec.routes, corpus, bench, project, earlier_packets(project))
    construction = construction_route(bench.evidence)
    lo, hi = spec.page_bounds()
    items: list[BuiltItem] = []
    # Pool document by document (route caches are per document); item order is set by blind().
    by_doc = sorted(selection.pairs, key=lambda p: (p[1], p[0].query_id))
    # Batching routes (fuzzy) do a whole document's work at once when told what is coming.
    expect_targets(
        routes,
        [
            target_for(q, d, c)
            for q, d, _g, _h, judge, _s, _e in by_doc
            for c in q.conditions
            if c.condition_id in judge
        ],
    )
    for query, doc_id, grade, order_hash, judge, status, extra in progress(by_doc, desc="pools"):
        shown = corpus.shown_pages(doc_id)
        conds = []
        for pos, cond in enumerate(query.conditions, start=1):
            if cond.condition_id not in judge:
                continue
            target = target_for(query, doc_id, cond)
            pool = build_pool(target, routes, shown, lo, hi)
            cpages = [p for p, _ in construction.rank(target)]
            conds.append(BuiltCondition(f"C{pos}", cond, pool, cpages))
        items.append(
            BuiltItem(
                query, doc_id, grade, order_hash, conds, bench.files.get(doc_id, ""), status, extra
            )
        )
    params = spec.params()
    packet, key = blind(
        spec.name, spec.kind, items, salt, corpus.page_text, params, selection.sampling
    )
    key["leak_check"] = {"ordinary_values": ordinary_values(key, corpus.vocabulary())}
    plan = plan_for(
        spec.name,
        spec.kind,
        packet,
        len(packet_bytes(packet)),
        spec.seconds_per_condition,
        spec.max_packet_mb,
    )
    if announce is not None:
        announce(plan)
    refuse_oversize(plan, spec.controls if spec.kind == "challenge" else 0)
    row = None if dry_run else register(project, packet, key, params)
    return BuildResult(row, packet, key, selection.summary, plan)
