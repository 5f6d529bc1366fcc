"""Rebuild the sample benchmark from the PDFs in sample_packets/pdfs (deterministic).

    .venv/bin/python sample_packets/build.py [--out DIR] [--workers N]

Writes queries.jsonl, qrels.txt, qrels.jsonl, evidence.jsonl and runs/<name>.trec
(default: next to this script). Same PDFs -> byte-identical files.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # runnable from a clone without installing the package

from sample_packets.construction import (  # noqa: E402
    ConstructionConfig,
    DocSpec,
    build_benchmark,
    extract_corpus,
    write_benchmark,
)

# The sample's construction parameters (see docs/sample_project.md).
SAMPLE_CONFIG = ConstructionConfig(seed=2, n_queries=30, df_min=3, df_max=10)


def sample_specs(root: Path = HERE) -> list[DocSpec]:
    with open(root / "sources.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [
        DocSpec(r["doc_id"], r["package"], str(root / "pdfs" / f"{r['doc_id']}.pdf"))
        for r in sorted(rows, key=lambda r: r["doc_id"])
    ]


def build(out: Path, workers: int = 2) -> dict[str, object]:
    docs = extract_corpus(sample_specs(), workers=workers)
    bench = build_benchmark(docs, SAMPLE_CONFIG)
    write_benchmark(bench, out)
    return bench.stats


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--out", type=Path, default=HERE, help="output folder (default: sample_packets/)"
    )
    ap.add_argument("--workers", type=int, default=2, help="extraction processes (default 2)")
    args = ap.parse_args(argv)
    print(json.dumps(build(args.out, args.workers), sort_keys=True))


if __name__ == "__main__":
    main()
