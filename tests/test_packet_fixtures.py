"""A small synthetic benchmark for the packet-builder tests (helpers only, no tests here).

16 queries (2 releases x 2 sources, 2 or 3 conditions), 3 judged documents per
query (one gold, two subsets), 10 pages per document of pseudo-word filler,
with one planted page per condition that names the condition. Loaded through
the real `evaudit init / ingest --pages / load` commands.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.conftest import cli_json, run_cli

TOPICS = [
    ("glacier retreat", ["ice sheet loss"]),
    ("tidal energy", ["tidal power"]),
    ("coral bleaching", ["reef whitening"]),
    ("soil erosion", ["topsoil loss"]),
    ("urban heat island", ["city heat"]),
    ("river delta subsidence", ["delta sinking"]),
    ("ocean acidification", ["seawater acidity"]),
    ("peat fire emissions", ["peatland burning"]),
]
SYLLABLES = ["ka", "lo", "mi", "nu", "pe", "ro", "sa", "ti", "vu", "ze", "bo", "da"]
N_QUERIES = 16
PAGES = 10


def filler(rng: random.Random, n_words: int) -> str:
    words = [
        "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))) for _ in range(n_words)
    ]
    return " ".join(words) + "."


def query_rows(note_override: dict[str, str] | None = None) -> list[dict[str, Any]]:
    rows = []
    for i in range(N_QUERIES):
        qid = f"q{i + 1:02d}"
        n = 2 + i % 2
        conds = []
        for j in range(n):
            name, aliases = TOPICS[(i + j) % len(TOPICS)]
            cid = f"c{j + 1}"
            conds.append(
                {
                    "condition_id": cid,
                    "name": name,
                    "requirement": f"The document reports measured {name} data.",
                    "counts": [f"a measured value of {name}"],
                    "does_not_count": ["a passing mention"],
                    "note": (note_override or {}).get(f"{qid}/{cid}", ""),
                    "aliases": aliases,
                }
            )
        rows.append(
            {
                "query_id": qid,
                "text": f"Find reports with measured data on {' and '.join(c['name'] for c in conds)}.",
                "release": "R1" if i < 8 else "R2",
                "source": "S1" if i % 4 < 2 else "S2",
                "conditions": conds,
            }
        )
    return rows


def doc_id(q: int, letter: str) -> str:
    return f"doc{q + 1:02d}{letter}"


def write_benchmark(
    folder: Path, *, note_override: dict[str, str] | None = None, empty_doc: str | None = None
) -> dict[str, Path]:
    """Write pages.jsonl, queries.jsonl, qrels.txt, evidence.jsonl and two runs."""
    rng = random.Random(7)
    folder.mkdir(parents=True, exist_ok=True)
    queries = query_rows(note_override)
    pages, qrels, evidence = [], [], []
    base_lines, variant_lines = [], []
    for i, q in enumerate(queries):
        n = len(q["conditions"])
        docs = [doc_id(i, x) for x in "abcde"]
        for d_idx, d in enumerate(docs):
            texts = [filler(rng, 120) for _ in range(PAGES)]
            for j, cond in enumerate(q["conditions"]):
                planted = 2 + 3 * j  # pages 3, 6, 9
                texts[planted] += f" Measured {cond['name']} was reported here in detail."
                if d_idx < 3:
                    evidence.append(
                        {
                            "query_id": q["query_id"],
                            "doc_id": d,
                            "condition_id": cond["condition_id"],
                            "pages": [planted + 1],
                        }
                    )
            for p, text in enumerate(texts, start=1):
                pages.append({"doc_id": d, "page": p, "text": "" if d == empty_doc else text})
        grades = [n, 1, n - 1]  # a gold and two subsets (n-1 == 1 when n == 2)
        for d, g in zip(docs, grades, strict=False):
            qrels.append(f"{q['query_id']} 0 {d} {g}")
        base = [docs[1], docs[3], docs[0], docs[2], docs[4]]
        variant = [docs[0], docs[4], docs[2], docs[3], docs[1]]
        for r, d in enumerate(base, start=1):
            base_lines.append(f"{q['query_id']} Q0 {d} {r} {10 - r} base")
        for r, d in enumerate(variant, start=1):
            variant_lines.append(f"{q['query_id']} Q0 {d} {r} {10 - r} variant")
    files = {
        "pages": folder / "pages.jsonl",
        "queries": folder / "queries.jsonl",
        "qrels": folder / "qrels.txt",
        "evidence": folder / "evidence.jsonl",
        "base": folder / "base.trec",
        "variant": folder / "variant.trec",
    }
    files["pages"].write_text("".join(json.dumps(p) + "\n" for p in pages))
    files["queries"].write_text("".join(json.dumps(q) + "\n" for q in queries))
    files["qrels"].write_text("\n".join(qrels) + "\n")
    files["evidence"].write_text("".join(json.dumps(e) + "\n" for e in evidence))
    files["base"].write_text("\n".join(base_lines) + "\n")
    files["variant"].write_text("\n".join(variant_lines) + "\n")
    return files


def make_project(tmp: Path, name: str = "proj", **bench_options: Any) -> Path:
    root = tmp / name
    run_cli("init", root, "--admin-password", "pw-for-tests")
    files = write_benchmark(tmp / f"{name}-bench", **bench_options)
    cli_json("ingest", root, "--pages", files["pages"])
    cli_json(
        "load",
        root,
        "--queries",
        files["queries"],
        "--qrels",
        files["qrels"],
        "--evidence",
        files["evidence"],
        "--run",
        f"base={files['base']}",
        "--run",
        f"variant={files['variant']}",
    )
    return root
