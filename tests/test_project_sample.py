"""`status` on the real sample project equals counts taken straight from its files."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf

from tests.conftest import SAMPLE, cli_json


def test_status_counts_on_sample_project(project: Path) -> None:
    pdfs = sorted((SAMPLE / "pdfs").glob("*.pdf"))
    ingest = cli_json("ingest", project, "--pdf-dir", SAMPLE / "pdfs")
    assert ingest["skipped"] == [] and ingest["documents"] == len(pdfs)
    runs = sorted((SAMPLE / "runs").glob("*.trec"))
    cli_json(
        "load", project,
        "--queries", SAMPLE / "queries.jsonl",
        "--qrels", SAMPLE / "qrels.txt",
        "--evidence", SAMPLE / "evidence.jsonl",
        *[a for r in runs for a in ("--run", f"{r.stem}={r}")],
    )  # fmt: skip
    queries = [json.loads(x) for x in (SAMPLE / "queries.jsonl").read_text().splitlines()]
    n = {q["query_id"]: len(q["conditions"]) for q in queries}
    grades = [
        (parts[0], int(parts[3]))
        for parts in (line.split() for line in (SAMPLE / "qrels.txt").read_text().splitlines())
        if parts and int(parts[3]) > 0
    ]
    evidence = (SAMPLE / "evidence.jsonl").read_text().splitlines()
    pages = with_text = 0
    for f in pdfs:
        with pymupdf.open(f) as doc:
            pages += doc.page_count
            with_text += sum(1 for page in doc if page.get_text().strip())
    expected = {
        "documents": len(pdfs),
        "pages": pages,
        # the page kinds ingest and gate name: every page of every PDF, none skipped
        "pages_expected": pages,
        "pages_extracted": with_text,
        "pages_empty": pages - with_text,
        "pages_skipped": 0,
        "queries": len(queries),
        "conditions": sum(n.values()),
        "qrels": len(grades),
        "gold": sum(1 for q, g in grades if g == n[q]),
        "subset": sum(1 for q, g in grades if 1 <= g < n[q]),
        "evidence": len([e for e in evidence if e.strip()]),
        "evidence_pages": sum(len(json.loads(e)["pages"]) for e in evidence if e.strip()),
        "runs": len(runs),
    }
    assert cli_json("status", project) == expected
    assert expected["gold"] >= len(queries) and expected["subset"] > expected["gold"]
