"""Construction end to end: documents -> queries, qrels, evidence, runs; and the file writer."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sample_packets.construction.compose import compose_queries
from sample_packets.construction.config import ConstructionConfig
from sample_packets.construction.extract import DocText
from sample_packets.construction.inventory import eligible, mine_inventory
from sample_packets.construction.rubric import condition_fields, query_text
from sample_packets.construction.runs import RunRow, make_runs, query_specs

RELEASE_SHIFTED_SOURCE = "texlive-science-doc"


@dataclass
class Benchmark:
    queries: list[dict[str, Any]]
    qrels: list[tuple[str, str, int]]  # query_id, doc_id, grade (nonzero only)
    evidence: list[dict[str, Any]]
    runs: dict[str, list[RunRow]]
    stats: dict[str, Any] = field(default_factory=dict)


def release_of(source: str) -> str:
    """Release split for stratified sampling: queries anchored in the science docs form
    the "SourceShift"-like stratum, the LaTeX base/recommended docs the "CrossPage" one."""
    return "SourceShift" if source == RELEASE_SHIFTED_SOURCE else "CrossPage"


def build_benchmark(docs: Sequence[DocText], cfg: ConstructionConfig) -> Benchmark:
    ids = [d.doc_id for d in docs]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate doc_id in the corpus")
    order = sorted(range(len(docs)), key=lambda i: ids[i])
    docs = [docs[i] for i in order]  # canonical order: input order never changes the output
    concepts = mine_inventory(docs, cfg)
    usable = eligible(concepts, docs, cfg)
    composed = compose_queries(usable, docs, cfg)
    text_rng = random.Random(cfg.seed + 1)
    queries: list[dict[str, Any]] = []
    qrels: list[tuple[str, str, int]] = []
    evidence: list[dict[str, Any]] = []
    width = max(3, len(str(len(composed))))
    for qi, comp in enumerate(composed, start=1):
        qid = f"q{qi:0{width}d}"
        conds = [condition_fields(c, f"{qid}_c{ci}") for ci, c in enumerate(comp.concepts, 1)]
        source = docs[comp.anchor].source
        queries.append(
            {
                "query_id": qid,
                "text": query_text(comp.concepts, text_rng),
                "release": release_of(source),
                "source": source,
                "conditions": conds,
            }
        )
        for d in sorted(comp.grades, key=lambda d: docs[d].doc_id):
            qrels.append((qid, docs[d].doc_id, comp.grades[d]))
            for c, fields in zip(comp.concepts, conds, strict=True):
                if d in c.postings:
                    evidence.append(
                        {
                            "query_id": qid,
                            "doc_id": docs[d].doc_id,
                            "condition_id": fields["condition_id"],
                            "pages": list(c.postings[d]),
                        }
                    )
    runs = make_runs(docs, query_specs(queries), cfg.run_depth, cfg.rrf_k)
    n_by_q = {q["query_id"]: len(q["conditions"]) for q in queries}
    gold = sum(1 for q, _, g in qrels if g == n_by_q[q])
    stats = {
        "documents": len(docs),
        "pages": sum(len(d.pages) for d in docs),
        "concepts": len(concepts),
        "eligible_concepts": len(usable),
        "queries": len(queries),
        "three_condition_queries": sum(1 for n in n_by_q.values() if n == 3),
        "qrels": len(qrels),
        "gold": gold,
        "subset": len(qrels) - gold,
        "evidence": len(evidence),
        "runs": {name: len(rows) for name, rows in sorted(runs.items())},
    }
    return Benchmark(queries, qrels, evidence, runs, stats)


def _write(path: Path, lines: list[str]) -> None:
    # Write-then-rename so a crash never leaves a half-written benchmark file behind.
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    tmp.replace(path)


def _jsonl(rows: Sequence[dict[str, Any]]) -> list[str]:
    return [json.dumps(r, ensure_ascii=False) for r in rows]


def write_benchmark(bench: Benchmark, out_dir: str | Path) -> list[Path]:
    """queries.jsonl, qrels.txt, qrels.jsonl, evidence.jsonl, runs/<name>.trec; returns paths."""
    out = Path(out_dir)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    files = {
        out / "queries.jsonl": _jsonl(bench.queries),
        out / "qrels.txt": [f"{q} 0 {d} {g}" for q, d, g in bench.qrels],
        out / "qrels.jsonl": _jsonl(
            [{"query_id": q, "doc_id": d, "grade": g} for q, d, g in bench.qrels]
        ),
        out / "evidence.jsonl": _jsonl(bench.evidence),
    }
    for name, rows in sorted(bench.runs.items()):
        files[out / "runs" / f"{name}.trec"] = [
            f"{q} Q0 {d} {r} {s:.6f} {name}" for q, d, r, s in rows
        ]
    for path, lines in files.items():
        _write(path, lines)
    return sorted(files)
