"""Benchmark loading: validation errors name file and line, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tests.conftest import cli_json, make_pdf, run_cli

QUERIES = [
    {
        "query_id": "q1",
        "text": "Find a manual that defines tables and figures.",
        "release": "R1",
        "source": "S1",
        "conditions": [
            {
                "condition_id": "c1",
                "name": "tables",
                "requirement": "Explains tables.",
                "counts": ["a definition"],
                "does_not_count": ["an index entry"],
                "aliases": ["tabular"],
            },
            {
                "condition_id": "c2",
                "name": "figures",
                "requirement": "Explains figures.",
                "counts": [],
                "does_not_count": [],
            },
        ],
    },
    {
        "query_id": "q2",
        "text": "Find a manual about bibliographies, tables and figures.",
        "release": "R2",
        "source": "S1",
        "conditions": [
            {
                "condition_id": "c1",
                "name": "bibliography",
                "requirement": "Explains bibliographies.",
            },
            {"condition_id": "c2", "name": "tables", "requirement": "Explains tables."},
            {"condition_id": "c3", "name": "figures", "requirement": "Explains figures."},
        ],
    },
]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def bench(project: Path, tmp_path: Path) -> dict[str, Path]:
    pdfs = tmp_path / "pdfs"
    make_pdf(pdfs / "d1.pdf", ["tables here", "figures here"])
    make_pdf(pdfs / "d2.pdf", ["tables only"])
    make_pdf(pdfs / "d3.pdf", ["bibliography", "tables", "figures"])
    cli_json("ingest", project, "--pdf-dir", pdfs)
    files = {
        "queries": _write_jsonl(tmp_path / "queries.jsonl", QUERIES),
        "qrels": tmp_path / "qrels.txt",
        "evidence": _write_jsonl(
            tmp_path / "evidence.jsonl",
            [
                {"query_id": "q1", "doc_id": "d1", "condition_id": "c1", "pages": [1]},
                {"query_id": "q1", "doc_id": "d1", "condition_id": "c2", "pages": [2]},
                {"query_id": "q2", "doc_id": "d3", "condition_id": "c1", "pages": [1, 2]},
            ],
        ),
        "run": tmp_path / "bm25.trec",
    }
    files["qrels"].write_text("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d3 3\nq2 0 d1 2\n")
    files["run"].write_text(
        "q1 Q0 d1 1 3.5 bm25\nq1 Q0 d2 2 2.0 bm25\nq2 Q0 d3 1 9.0 bm25\nq2 Q0 d2 2 1.0 bm25\n"
    )
    return files


def _load_args(project: Path, b: dict[str, Path]) -> list[object]:
    return [
        "load",
        project,
        "--queries",
        b["queries"],
        "--qrels",
        b["qrels"],
        "--evidence",
        b["evidence"],
        "--run",
        f"bm25={b['run']}",
    ]


def _table_counts(project: Path) -> dict[str, int]:
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        return {
            t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("queries", "conditions", "qrels", "evidence", "runs")
        }
    finally:
        con.close()


def test_load_and_status(project: Path, bench: dict[str, Path]) -> None:
    out = cli_json(*_load_args(project, bench))
    assert out == {
        "queries": 2,
        "conditions": 5,
        "qrels": 4,
        "evidence": 3,  # records, as `status` counts them
        "evidence_pages": 4,
        "runs": {"bm25": 4},
        # `evaudit check` on what was stored: this fixture's evidence is partial
        "check": {
            "page_outside_document": 0, "no_evidence": 2, "grade_mismatch": 3,
            "no_distinct_pages": 0, "single_page": 0,
        },
        "require_cross_page": False,
        "explained_by_cross_page": 0,
    }  # fmt: skip
    assert out["check"] == cli_json("check", project)["counts"]
    status = cli_json("status", project)
    assert status == {
        "documents": 3,
        "pages": 6,
        # the page kinds ingest and gate name, from the same extraction records
        "pages_expected": 6,
        "pages_extracted": 6,
        "pages_empty": 0,
        "pages_skipped": 0,
        "queries": 2,
        "conditions": 5,
        "qrels": 4,
        "gold": 2,
        "subset": 2,
        "evidence": 3,
        "evidence_pages": 4,
        "runs": 1,
    }
    human = run_cli("status", project).stdout
    assert "gold" in human and "subset" in human


def test_load_runs_later_against_stored_queries(project: Path, bench: dict[str, Path]) -> None:
    cli_json(*_load_args(project, bench))
    out = cli_json("load", project, "--run", f"again={bench['run']}")
    assert out["runs"] == {"again": 4} and out["queries"] == 0
    assert cli_json("status", project)["runs"] == 2


@pytest.mark.parametrize(
    ("target", "content", "line", "needle"),
    [
        ("qrels", "q1 0 d1 2\nq1 0 d2\n", 2, "expected 4 fields"),
        ("qrels", "q1 0 d1 2\nq1 0 d2 two\n", 2, "not a valid int"),
        ("qrels", "q1 0 d1 2\nq9 0 d2 1\n", 2, "unknown query id 'q9'"),
        ("qrels", "q1 0 d1 2\n\nq1 0 dX 1\n", 3, "unknown document id 'dX'"),
        ("qrels", "q1 0 d1 2\nq1 0 d2 3\n", 2, "outside 0..2"),
        ("qrels", "q1 0 d1 2\nq1 0 d2 1\nq1 0 d1 1\n", 3, "duplicate qrel"),
        (
            "qrels",
            '{"query_id": "q1", "doc_id": "d1", "grade": 1}\n{"query_id": "q1"\n',
            2,
            "malformed JSON",
        ),
        (
            "evidence",
            '{"query_id": "q1", "doc_id": "d1", "condition_id": "c1", "pages": [3]}\n',
            1,
            "page 3 is outside document 'd1'",
        ),
        (
            "evidence",
            '{"query_id": "q1", "doc_id": "d1", "condition_id": "c9", "pages": [1]}\n',
            1,
            "has no condition 'c9'",
        ),
        ("run", "q1 Q0 d1 1 3.5 t\nq1 Q0 d2 x 2.0 t\n", 2, "rank 'x'"),
        ("run", "q1 Q0 d1 1 3.5 t\nq1 Q0 d1 2 2.0 t\n", 2, "appears twice"),
        ("run", "q1 Q0 d1 1 3.5 t\nq7 Q0 d1 1 2.0 t\n", 2, "unknown query id 'q7'"),
        ("queries", '{"query_id": "q1", "text": "x", "conditions": []}\n', 1, "non-empty list"),
        (
            "queries",
            json.dumps(QUERIES[0]) + "\n" + json.dumps(QUERIES[0]) + "\n",
            2,
            "duplicate query_id 'q1'",
        ),
    ],
)
def test_load_errors_name_file_and_line_and_write_nothing(
    project: Path, bench: dict[str, Path], target: str, content: str, line: int, needle: str
) -> None:
    cli_json(*_load_args(project, bench))
    before = _table_counts(project)
    bench[target].write_text(content)
    res = run_cli(*_load_args(project, bench), expect=2)
    first = res.stderr.strip().splitlines()[0]
    assert first.startswith(f"error: {bench[target]}:{line}: "), first
    assert needle in first
    assert "Traceback" not in res.output
    assert _table_counts(project) == before


def test_load_into_empty_corpus_is_refused(
    project: Path, bench: dict[str, Path], tmp_path: Path
) -> None:
    other = tmp_path / "empty-proj"
    run_cli("init", other, "--admin-password", "pw-for-tests")
    res = run_cli("load", other, "--queries", bench["queries"], expect=2)
    assert "corpus is empty" in res.stderr and "evaudit ingest" in res.stderr


def test_bad_run_argument(project: Path, bench: dict[str, Path]) -> None:
    res = run_cli("load", project, "--queries", bench["queries"], "--run", "nofile", expect=2)
    assert "NAME=FILE" in res.stderr
