"""The per-source extraction gate: `ingest --source` records pages extracted vs expected,
`gate --min-rate 0.98` lists failing sources, `--apply` removes their documents and
queries with every row naming them (and queries left with no gold) in one transaction,
records it in the store (`gate --log`); only a fresh ingest and load undo it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from tests.conftest import cli_json, run_cli

TABLES = ("documents", "pages", "queries", "conditions", "qrels", "evidence", "runs")
DOCS = {"F1": 10, "F2": 5, "E1": 5, "E2": 5}
QRELS = [  # (query, doc, grade); qa/qb/qd are ERIC queries, qc an FDA one
    ("qa", "E1", 2), ("qa", "F1", 1),
    ("qb", "F2", 2), ("qb", "E2", 1),
    ("qc", "F1", 2), ("qc", "E2", 2),
    ("qd", "E2", 1),
]  # fmt: skip
N = {"qa": 2, "qb": 2, "qc": 2, "qd": 1}


def _files(root: Path) -> dict[str, Path]:
    root.mkdir(parents=True, exist_ok=True)
    files = {}
    for src, docs in (("fda", ("F1", "F2")), ("eric", ("E1", "E2"))):
        rows = [
            {"doc_id": d, "page": p, "text": "" if (d, p) == ("F1", 3) else f"{d} page {p} text"}
            for d in docs
            for p in range(1, DOCS[d] + 1)
        ]
        files[src] = root / f"{src}.jsonl"
        files[src].write_text("".join(json.dumps(r) + "\n" for r in rows))
    queries = []
    for q, n in N.items():
        conds = [
            {"condition_id": f"c{i}", "name": f"cond {i}", "requirement": "x"}
            for i in range(1, n + 1)
        ]
        src = "fda" if q == "qc" else "eric"
        queries.append({"query_id": q, "text": f"query {q}", "source": src, "conditions": conds})
    files["queries"] = root / "queries.jsonl"
    files["queries"].write_text("".join(json.dumps(q) + "\n" for q in queries))
    files["qrels"] = root / "qrels.txt"
    files["qrels"].write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS))
    files["evidence"] = root / "evidence.jsonl"
    files["evidence"].write_text(
        "".join(
            json.dumps({"query_id": q, "doc_id": d, "condition_id": f"c{i}", "pages": [i]}) + "\n"
            for q, d, g in QRELS
            for i in range(1, g + 1)
        )
    )
    files["run"] = root / "bm25.trec"
    files["run"].write_text(
        "".join(f"{q} Q0 {d} {r} {10 - r} bm25\n" for q in N for r, d in enumerate(DOCS, start=1))
    )
    return files


def _ingest_and_load(project: Path, f: dict[str, Path]) -> None:
    cli_json("ingest", project, "--pages", f["fda"], "--source", "fda")
    cli_json("ingest", project, "--pages", f["eric"], "--source", "eric")
    cli_json(
        "load", project, "--queries", f["queries"], "--qrels", f["qrels"],
        "--evidence", f["evidence"], "--run", f"bm25={f['run']}",
    )  # fmt: skip


def _snapshot(project: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        out = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}
    finally:
        con.close()
    # ingested_at differs between two ingests of the same files
    out["documents"] = [r[:5] for r in out["documents"]]
    return out


def test_gate_lists_and_removes_failing_sources(project: Path, tmp_path: Path) -> None:
    f = _files(tmp_path / "in")
    _ingest_and_load(project, f)
    before = _snapshot(project)
    rep = cli_json("gate", project, "--min-rate", "0.98")
    by = {s["source"]: s for s in rep["sources"]}
    assert (by["fda"]["pages_extracted"], by["fda"]["pages_expected"]) == (14, 15)
    assert by["fda"]["passed"] is False and by["eric"]["rate"] == 1.0
    assert rep["failing"] == ["fda"] and rep["applied"] is False
    assert _snapshot(project) == before  # listing writes nothing
    # 14/15 = 0.9333...: exactly at the threshold passes
    assert cli_json("gate", project, "--min-rate", str(14 / 15))["failing"] == []

    rep = cli_json("gate", project, "--min-rate", "0.98", "--apply")
    assert rep["applied"] is True
    assert rep["removed"]["documents"] == ["F1", "F2"]
    assert rep["removed"]["queries"] == [
        {"query_id": "qb", "why": "no gold left"},
        {"query_id": "qc", "why": "source"},
    ]
    after = _snapshot(project)
    gone_q, gone_d = {"qb", "qc"}, {"F1", "F2"}

    def kept(table: str, row: tuple[Any, ...]) -> bool:
        if table == "documents" or table == "pages":
            return row[0] not in gone_d
        if table in ("queries", "conditions"):
            return row[0] not in gone_q
        q, d = (row[1], row[2]) if table == "runs" else (row[0], row[1])
        return q not in gone_q and d not in gone_d

    for t in TABLES:
        assert after[t] == [r for r in before[t] if kept(t, r)], t
    assert {r[0] for r in after["qrels"]} == {"qa", "qd"}
    counts = rep["removed"]["counts"]
    assert counts["qrels"] == len(before["qrels"]) - len(after["qrels"]) == 5
    assert counts["runs"] == len(before["runs"]) - len(after["runs"])

    # The audit trail: what was removed, row by row, printable.
    log = cli_json("gate", project, "--log")["log"]
    assert len(log) == 1 and log[0]["failing"][0]["source"] == "fda"
    assert sorted(map(tuple, log[0]["removed"]["qrels"])) == sorted(
        r for r in before["qrels"] if not kept("qrels", r)
    )
    text = run_cli("gate", project, "--log").stdout
    assert "#1" in text and "fda" in text and "qrels 5" in text
    # Nothing brings the rows back but a fresh ingest and load; a second gate is a no-op.
    again = cli_json("gate", project, "--min-rate", "0.98", "--apply")
    assert again["failing"] == [] and again["applied"] is False
    assert _snapshot(project) == after
    _ingest_and_load(project, f)
    assert _snapshot(project) == before


def test_ingest_reports_the_rate_per_source(project: Path, tmp_path: Path) -> None:
    f = _files(tmp_path / "in")
    out = run_cli("ingest", project, "--pages", f["fda"], "--source", "fda").stdout
    assert (
        "source fda: 15 pages in the files, 15 stored (14 extracted with text, 1 empty), "
        "0 in skipped files; extraction rate 93.33%"
    ) in out


def test_gate_without_records_or_bad_rate(project: Path) -> None:
    assert "no extraction records" in run_cli("gate", project, expect=2).stderr
    assert run_cli("gate", project, "--min-rate", "1.5", expect=2).exit_code == 2


def test_pdf_extraction_records(project: Path, tmp_path: Path) -> None:
    from tests.conftest import make_pdf

    make_pdf(tmp_path / "pdfs" / "a.pdf", ["one", "", "three"])  # a page without text
    make_pdf(tmp_path / "pdfs" / "scan.pdf", ["", ""])  # no text layer: skipped without OCR
    rep = cli_json("ingest", project, "--pdf-dir", tmp_path / "pdfs", "--source", "wb",
                   "--ocr", "never")  # fmt: skip
    assert [s["file"].endswith("scan.pdf") for s in rep["skipped"]] == [True]
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        rows = con.execute("SELECT * FROM extraction ORDER BY doc_id").fetchall()
    finally:
        con.close()
    assert rows == [("a", "wb", 3, 2, "pdf"), ("scan", "wb", 2, 0, "pdf (skipped)")]
    assert rep["extraction"]["wb"]["pages_expected"] == 5
    assert cli_json("gate", project)["failing"] == ["wb"]
