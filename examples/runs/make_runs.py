"""Per-condition and page-level runs of the sample benchmark (deterministic: same bytes
every run), so `evaudit runs compose`, `runs support` and `score nclue`'s Gold+Support
run on the sample project.

Run: .venv/bin/python examples/runs/make_runs.py [OUT_DIR]  (default: this folder)

The pages are the sample PDFs' pages as `evaudit ingest` extracts them (PyMuPDF
`get_text()`, physical page i + 1, the file name as document id), normalised as the
project normalises text; BM25 (rank_bm25's BM25Okapi) is over all pages of the 20
documents, tokens [a-z0-9]+. Written (docs/runs.md, "On the sample"):

* conditions_pages.trec: one list per condition of each query (query id
  QUERY_ID::CONDITION_ID), the condition name scored against every page, the top 100
  pages (docno doc_id#page), for `runs compose --method injective`;
* conditions_docs.trec: the same lists with each document at its best page (top 100
  documents), for `runs compose --method min|product|harmonic`;
* pages.trec: one list per query, all condition names together against every page,
  the top 100 pages (doc_id#page), for `runs support` and `score nclue --evidence`.

    evaudit runs compose --queries sample_packets/queries.jsonl --method min \\
        --run examples/runs/conditions_docs.trec --out min.trec
    evaudit runs compose --queries sample_packets/queries.jsonl --method injective \\
        --run examples/runs/conditions_pages.trec --out injective.trec
    evaudit runs support --queries sample_packets/queries.jsonl \\
        --qrels sample_packets/qrels.txt --evidence sample_packets/evidence.jsonl \\
        --run examples/runs/pages.trec
    evaudit score nclue --queries sample_packets/queries.jsonl \\
        --qrels sample_packets/qrels.txt --evidence sample_packets/evidence.jsonl \\
        --run examples/runs/pages.trec --run sample_packets/runs/bm25_doc.trec
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pymupdf
from rank_bm25 import BM25Okapi

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from vocabulary.textnorm import normalize  # noqa: E402

SAMPLE = ROOT / "sample_packets"
TOKEN = re.compile(r"[a-z0-9]+")
DEPTH = 100


def _pages() -> list[tuple[str, int, list[str]]]:
    out = []
    for pdf in sorted((SAMPLE / "pdfs").glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            for i in range(doc.page_count):
                text = normalize(doc[i].get_text()).lower()
                out.append((pdf.stem, i + 1, TOKEN.findall(text)))
    return out


def _top(scores: np.ndarray, depth: int) -> list[int]:
    """Indices by score descending, equal scores in page order (stable)."""
    return [int(i) for i in np.argsort(-scores, kind="stable")[:depth]]


def _lines(qid: str, ranked: list[tuple[str, float]], tag: str) -> list[str]:
    return [f"{qid} Q0 {d} {r} {s:.6f} {tag}\n" for r, (d, s) in enumerate(ranked, start=1)]


def make(out: Path) -> list[Path]:
    pages = _pages()
    bm25 = BM25Okapi([p[2] for p in pages])
    names = [f"{d}#{p}" for d, p, _ in pages]
    queries = [json.loads(x) for x in (SAMPLE / "queries.jsonl").read_text().splitlines() if x]
    cond_pages: list[str] = []
    cond_docs: list[str] = []
    page_run: list[str] = []
    for q in queries:
        qid = q["query_id"]
        every: list[str] = []
        for c in q["conditions"]:
            tokens = TOKEN.findall(normalize(c["name"]).lower())
            every += tokens
            sc = np.asarray(bm25.get_scores(tokens))
            top = _top(sc, len(sc))
            lid = f"{qid}::{c['condition_id']}"
            cond_pages += _lines(
                lid, [(names[i], float(sc[i])) for i in top[:DEPTH]], "bm25_cond_page"
            )
            best: dict[str, float] = {}
            for i in top:  # each document at its best page, in page-rank order
                best.setdefault(pages[i][0], float(sc[i]))
            cond_docs += _lines(lid, list(best.items())[:DEPTH], "bm25_cond_doc")
        sc = np.asarray(bm25.get_scores(every))
        page_run += _lines(qid, [(names[i], float(sc[i])) for i in _top(sc, DEPTH)], "bm25_pages")
    out.mkdir(parents=True, exist_ok=True)
    files = {"conditions_pages.trec": cond_pages, "conditions_docs.trec": cond_docs,
             "pages.trec": page_run}  # fmt: skip
    for name, rows in files.items():
        (out / name).write_text("".join(rows), encoding="utf-8")
    return [out / name for name in files]


if __name__ == "__main__":
    for path in make(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(f"wrote {path}")
