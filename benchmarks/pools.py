"""Adjudication-size candidate pools (all routes) for every judged (pair, condition).

Project: `packet_builder` routes over one corpus-wide index (normalized page
text cached once, a scipy.sparse BM25Okapi matrix, rapidfuzz `cdist` per
document, one regex per condition), RRF fusion, 6..9 pages per condition.
Baseline (naive, measured in the same run on a fixed sample of targets): per
target, `rank_bm25.BM25Okapi` built over the document's pages, a per-page
`fuzz.partial_ratio` loop and a per-page substring scan, on text normalized per
target, fused the same way. Target (issue 3): >= 10x, full scale < 2 minutes.

    .venv/bin/python benchmarks/pools.py [--project DIR] [--sample 300]

Without --project it uses the scale project under ~/.cache/evidence-audit/
(built from benchmarks/make_corpus.py output); if there is none, it builds a
synthetic corpus of the same size (20,000 pages, 1,000 queries) there first.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CACHE = Path.home() / ".cache" / "evidence-audit"


def cpu_time() -> float:
    """CPU seconds of this process and its finished children (the fuzzy route's workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def find_scale_project(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    scale = CACHE / "scale"
    for candidate in (scale / "project", scale, CACHE / "scale-project"):
        if (candidate / "project.json").is_file():
            return candidate
    bench = scale / "benchmark" if (scale / "benchmark").is_dir() else scale
    if (bench / "queries.jsonl").is_file():
        return build_project_from(bench, CACHE / "pools-scale-project")
    print("no scale corpus found: using a synthetic one of the same size", file=sys.stderr)
    return synthetic_project(CACHE / "pools-synthetic")


def source_stamp(bench: Path) -> dict[str, list[int]]:
    """Size and mtime of the make_corpus.py outputs, to notice a rebuilt scale corpus."""
    files = [p for p in sorted(bench.rglob("*")) if p.is_file() and p.parent.name != "pdfs"]
    return {str(p.relative_to(bench)): [p.stat().st_size, p.stat().st_mtime_ns] for p in files}


def build_project_from(bench: Path, root: Path) -> Path:
    """Ingest and load make_corpus.py output (PDF folder or pages.jsonl + benchmark files)."""
    from campaign.init import init_project
    from packet_builder.ingest import IngestSpec, ingest
    from packet_builder.loader import load_benchmark

    stamp_file = root / "bench-source.json"
    stamp = source_stamp(bench)
    if (root / "project.json").is_file():
        if stamp_file.is_file() and json.loads(stamp_file.read_text()) == stamp:
            return root
        print(f"scale corpus changed: rebuilding {root}", file=sys.stderr)
        shutil.rmtree(root)  # our own cache folder, built by this script
    project, _ = init_project(root, "bench")
    pages = next(iter(sorted(bench.glob("pages*.jsonl"))), None)
    pdf_dir = next((d for d in (bench / "pdfs", bench.parent / "pdfs") if d.is_dir()), None)
    if pages is not None:
        ingest(project, IngestSpec(pages_file=pages))
    elif pdf_dir is not None:
        ingest(project, IngestSpec(pdf_dir=pdf_dir))
    else:
        sys.exit(f"no pages.jsonl or pdfs/ next to {bench}")
    qrels = next(p for p in (bench / "qrels.txt", bench / "qrels.jsonl") if p.is_file())
    evidence = bench / "evidence.jsonl"
    runs = {p.stem: p for p in sorted((bench / "runs").glob("*.trec"))}
    load_benchmark(
        project,
        queries=bench / "queries.jsonl",
        qrels=qrels,
        evidence=evidence if evidence.is_file() else None,
        runs=runs,
    )
    stamp_file.write_text(json.dumps(stamp))
    return root


def synthetic_project(root: Path, docs: int = 750, pages: int = 27, queries: int = 1000) -> Path:
    """Zipf-vocabulary pages with planted condition phrases (some OCR-garbled)."""
    from campaign.init import init_project
    from packet_builder.ingest import IngestSpec, ingest
    from packet_builder.loader import load_benchmark

    if (root / "project.json").is_file():
        return root
    rng = random.Random(0)
    # Real English words at their frequencies in the system's license texts, so matching
    # meets text like real pages (random letters make partial_ratio several times slower).
    counts: dict[str, int] = {}
    for lic in sorted(Path("/usr/share/common-licenses").glob("*")):
        if lic.is_file():
            for w in re.findall(r"[A-Za-z]+", lic.read_text(errors="ignore")):
                counts[w] = counts.get(w, 0) + 1
    if len(counts) < 2000:
        letters = "etaoinshrdlcumwfgypbvkjxqz"
        for _ in range(20000):
            counts["".join(rng.choices(letters, k=rng.randint(3, 9)))] = 1
    vocab = sorted(counts)
    weights = [counts[w] for w in vocab]
    topics = [" ".join(rng.sample(vocab, 2)) for _ in range(600)]
    texts = {
        (f"d{d:04d}", p): " ".join(rng.choices(vocab, weights, k=420))
        for d in range(docs)
        for p in range(1, pages + 1)
    }
    qrows, qrels, evidence = [], [], []
    for q in range(queries):
        n = rng.choice([2, 3])
        names = rng.sample(topics, n)
        conds = [
            {
                "condition_id": f"c{j + 1}",
                "name": nm,
                "requirement": f"Reports {nm} in detail.",
                "counts": [],
                "does_not_count": [],
                "aliases": [nm.split()[0] + " data"],
            }
            for j, nm in enumerate(names)
        ]
        qrows.append(
            {
                "query_id": f"q{q:04d}",
                "text": "Find " + " and ".join(names),
                "release": "R1",
                "source": f"S{q % 4}",
                "conditions": conds,
            }
        )
        for d in rng.sample(range(docs), 25):
            doc = f"d{d:04d}"
            hits = rng.randint(1, n)
            for j in range(hits):
                page = rng.randint(1, pages)
                phrase = names[j] if rng.random() < 0.8 else names[j].replace("a", "o", 1)
                texts[(doc, page)] += f" {phrase}"
                evidence.append(
                    {
                        "query_id": f"q{q:04d}",
                        "doc_id": doc,
                        "condition_id": f"c{j + 1}",
                        "pages": [page],
                    }
                )
            qrels.append(f"q{q:04d} 0 {doc} {hits}")
    root.parent.mkdir(parents=True, exist_ok=True)
    work = root.parent / (root.name + "-files")
    work.mkdir(exist_ok=True)
    with (work / "pages.jsonl").open("w") as fh:
        for (doc, page), text in texts.items():
            fh.write(json.dumps({"doc_id": doc, "page": page, "text": text}) + "\n")
    (work / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qrows))
    (work / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (work / "evidence.jsonl").write_text("".join(json.dumps(e) + "\n" for e in evidence))
    project, _ = init_project(root, "bench")
    ingest(project, IngestSpec(pages_file=work / "pages.jsonl"))
    load_benchmark(
        project,
        queries=work / "queries.jsonl",
        qrels=work / "qrels.txt",
        evidence=work / "evidence.jsonl",
    )
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", help="an evaudit project with the scale corpus loaded")
    ap.add_argument("--sample", type=int, default=300, help="targets in the baseline sample")
    ap.add_argument("--limit", type=int, default=0, help="cap the project targets (0: all)")
    args = ap.parse_args()

    from campaign import store
    from campaign.project import open_project
    from packet_builder.benchmark_view import read_benchmark, read_corpus
    from packet_builder.build import make_routes, target_for
    from packet_builder.pools import PoolPage, build_pool, cap, expect_targets, fuse
    from packet_builder.routes.base import ROUTE_NAMES, Target, fast_normalize, tokenize
    from packet_builder.sampling import salted_hash

    root = find_scale_project(args.project)
    project = open_project(root)
    t0, c0 = time.perf_counter(), cpu_time()
    with store.connect(project.store_path, read_only=True) as con:
        bench = read_benchmark(con)
        corpus = read_corpus(con)
    t_read, cpu_read = time.perf_counter() - t0, cpu_time() - c0
    targets: list[Target] = [
        target_for(bench.queries[q], d, c)
        for (q, d), g in sorted(bench.qrels.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        if g >= 1 and q in bench.queries and corpus.shown_pages(d)
        for c in bench.queries[q].conditions
    ]
    if args.limit:
        targets = targets[: args.limit]
    print(
        f"project {root}: {len(corpus)} pages, {len(bench.queries)} queries, "
        f"{len(bench.qrels)} qrels, {len(targets)} judged (pair, condition) targets"
    )

    t1, c1 = time.perf_counter(), cpu_time()
    routes = make_routes(ROUTE_NAMES, corpus, bench, project, [])
    t_index, cpu_index = time.perf_counter() - t1, cpu_time() - c1
    t2, c2 = time.perf_counter(), cpu_time()
    # Announce the targets, then pool document by document (the order `packet build` uses).
    expect_targets(routes, targets)
    shown: dict[str, list[int]] = {}
    full: dict[tuple[str, str, str], list[PoolPage]] = {}
    for target in targets:
        if target.doc_id not in shown:
            shown[target.doc_id] = corpus.shown_pages(target.doc_id)
        full[target.key] = build_pool(target, routes, shown[target.doc_id], 6, 9)
    pools = len(full)
    t_pools, cpu_pools = time.perf_counter() - t2, cpu_time() - c2
    total, cpu_total = t_read + t_index + t_pools, cpu_read + cpu_index + cpu_pools

    sample = sorted(targets, key=lambda t: salted_hash("bench", *t.key))[: args.sample]
    t3, c3 = time.perf_counter(), cpu_time()
    in_doc_order = sorted(sample, key=lambda t: (t.doc_id, t.query_id, t.condition_id))
    expect_targets(routes, in_doc_order)
    for target in in_doc_order:
        if build_pool(target, routes, shown[target.doc_id], 6, 9) != full[target.key]:
            sys.exit(f"pool of {target.key} differs between the full run and the sample run")
    t_proj_sample, cpu_proj_sample = time.perf_counter() - t3, cpu_time() - c3

    from rank_bm25 import BM25Okapi
    from rapidfuzz import fuzz

    construction = routes[-1]
    t4, c4 = time.perf_counter(), cpu_time()
    for target in sample:
        rows = corpus.rows(target.doc_id)
        page_nos = [corpus.pages[i] for i in rows]
        norm = [fast_normalize(corpus.texts[i]) for i in rows]
        bm = BM25Okapi([tokenize(t) for t in norm])
        q = tokenize(" ".join((target.name, *target.aliases, target.requirement)))
        bm_scores = bm.get_scores(q)
        phrases = target.phrases()
        lex = {p: sum(t.count(ph) for ph in phrases) for p, t in zip(page_nos, norm, strict=True)}
        fz = {
            p: max((fuzz.partial_ratio(ph, t) for ph in phrases if len(ph) >= 6), default=0.0)
            for p, t in zip(page_nos, norm, strict=True)
        }
        rankings = {
            "lexical": sorted(
                ((p, float(s)) for p, s in lex.items() if s), key=lambda x: (-x[1], x[0])
            ),
            "bm25": sorted(
                ((p, float(s)) for p, s in zip(page_nos, bm_scores, strict=True) if s > 0),
                key=lambda x: (-x[1], x[0]),
            ),
            "fuzzy": sorted(
                ((p, s) for p, s in fz.items() if s >= 80), key=lambda x: (-x[1], x[0])
            ),
            "construction": construction.rank(target),
        }
        cap(fuse(rankings), shown[target.doc_id], 6, 9)
    t_base, cpu_base = time.perf_counter() - t4, cpu_time() - c4

    base_rate, base_cpu_rate = len(sample) / t_base, len(sample) / cpu_base
    print(
        f"read store + normalize {t_read:.1f}s wall / {cpu_read:.1f}s CPU, indexes "
        f"{t_index:.1f}s / {cpu_index:.1f}s, pools {t_pools:.1f}s / {cpu_pools:.1f}s"
    )
    print(
        f"project  (all {pools} targets, incl. read + index): {pools / total:,.1f} pools/s wall "
        f"({total:.1f}s), {pools / cpu_total:,.1f} pools/s CPU ({cpu_total:.1f}s)"
    )
    print(
        f"project  (same {len(sample)}-target sample, warm index, document order): "
        f"{len(sample) / t_proj_sample:,.1f} pools/s wall, "
        f"{len(sample) / cpu_proj_sample:,.1f} pools/s CPU"
    )
    print(
        f"baseline (naive per-document rank_bm25 + per-page loops, {len(sample)} targets): "
        f"{base_rate:,.1f} pools/s wall, {base_cpu_rate:,.1f} pools/s CPU"
    )
    # The machine is shared: CPU-time rates are what the code costs, wall time what it waited.
    print(
        f"ratio project (full run) / baseline: {pools / total / base_rate:.1f}x wall, "
        f"{pools / cpu_total / base_cpu_rate:.1f}x CPU; sample to sample "
        f"{len(sample) / t_proj_sample / base_rate:.1f}x wall, "
        f"{cpu_base / cpu_proj_sample:.1f}x CPU"
    )
    print(
        f"full run {total:.1f}s wall, {cpu_total:.1f}s CPU (target < 120 s); process CPU "
        f"{cpu_time():.1f}s (incl. worker processes); load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
