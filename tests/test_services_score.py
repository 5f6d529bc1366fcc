"""`evaudit score ...` prints its service's report: for every subcommand, `--json` is the
report's `to_json()` and the text is its `table()`, byte for byte, on the sample benchmark
(files and a loaded project); the command modules compute nothing themselves."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evaudit.output import dumps
from services.impact_classic import ClassicImpactReport
from services.score import ImpactReport, score_compare, score_impact, score_nclue
from services.score_inputs import ScoreReport, ScoreSource
from services.score_robust import score_bound, score_drop_condition, score_sensitivity
from services.score_trec import score_trec
from tests.conftest import SAMPLE, run_cli

ROOT = Path(__file__).resolve().parents[1]
RUNS = SAMPLE / "runs"
PAGE_RUN = ROOT / "examples" / "runs" / "pages.trec"
QUERIES = SAMPLE / "queries.jsonl"
QRELS = SAMPLE / "qrels.txt"


def _src(*runs: Path, queries: Path | None = QUERIES, project: Path | None = None,
         ties: str = "file") -> ScoreSource:  # fmt: skip
    return ScoreSource(queries, project, tuple((None, r) for r in runs), ties)


def _run_args(*runs: Path) -> list[Any]:
    return [a for r in runs for a in ("--run", r)]


def _same(args: list[Any], report: ScoreReport) -> None:
    """The command's --json is the report's to_json(), its text the report's table()."""
    assert run_cli(*args, "--json").stdout == dumps(report.to_json()) + "\n"
    assert run_cli(*args).stdout == report.table() + "\n"
    assert isinstance(report.rows(), list) and report.rows()


@pytest.fixture(scope="module")
def sample_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample benchmark loaded into a project (its store gives queries, qrels, pages)."""
    d = tmp_path_factory.mktemp("score_service") / "proj"
    run_cli("init", d, "--admin-password", "pw-for-tests")
    run_cli("ingest", d, "--pdf-dir", SAMPLE / "pdfs", "--workers", "2")
    run_cli("load", d, "--queries", QUERIES, "--qrels", QRELS, "--evidence",
            SAMPLE / "evidence.jsonl")  # fmt: skip
    return d


def test_nclue_files_with_page_run_and_slices(tmp_path: Path) -> None:
    runs = (RUNS / "bm25_doc.trec", RUNS / "rrf.trec", PAGE_RUN)
    rep = score_nclue(_src(*runs), qrels=QRELS, k=10, bootstrap=30, seed=5,
                      per_query=tmp_path / "service.tsv", by=("n", "source"),
                      evidence=SAMPLE / "evidence.jsonl")  # fmt: skip
    assert rep.support is not None and rep.slices is not None
    _same(["score", "nclue", "--queries", QUERIES, "--qrels", QRELS, *_run_args(*runs),
           "--bootstrap", "30", "--seed", "5", "--by", "n", "--by", "source",
           "--evidence", SAMPLE / "evidence.jsonl", "--per-query", tmp_path / "cli.tsv"], rep)  # fmt: skip
    assert (tmp_path / "cli.tsv").read_bytes() == (tmp_path / "service.tsv").read_bytes()


def test_nclue_categories(tmp_path: Path) -> None:
    cats = tmp_path / "cats.txt"
    cats.write_text("bm25_and BL\nbm25_doc BL\nbm25_page BL privileged\nrrf FUS\n")
    runs = tuple(sorted(RUNS.glob("*.trec")))
    rep = score_nclue(_src(*runs), qrels=QRELS, k=5, bootstrap=0, seed=11, category=cats)
    assert rep.categories is not None
    _same(["score", "nclue", "--queries", QUERIES, "--qrels", QRELS, *_run_args(*runs), "--k",
           "5", "--bootstrap", "0", "--category", cats], rep)  # fmt: skip


def test_nclue_and_compare_from_the_project_store(sample_project: Path) -> None:
    runs = (RUNS / "bm25_doc.trec", RUNS / "bm25_page.trec")
    src = _src(*runs, queries=None, project=sample_project)
    rep = score_nclue(src, qrels=None, k=10, bootstrap=20, seed=11, by=("lmin:10,30",))
    _same(["score", "nclue", "--project", sample_project, *_run_args(*runs), "--bootstrap",
           "20", "--by", "lmin:10,30"], rep)  # fmt: skip
    cmp = score_compare(src, qrels=None, k=10, pairs=("bm25_doc:bm25_page",), draws=50,
                        bootstrap=20, seed=11, by=("release",))  # fmt: skip
    _same(["score", "compare", "--project", sample_project, *_run_args(*runs), "--pair",
           "bm25_doc:bm25_page", "--draws", "50", "--bootstrap", "20", "--by", "release"], cmp)  # fmt: skip


def test_compare_pairs_blocks_and_slices() -> None:
    runs = tuple(sorted(RUNS.glob("*.trec")))
    rep = score_compare(_src(*runs, ties="trec_eval"), qrels=QRELS, k=10,
                        pairs=("bm25_doc:rrf",), draws=60, bootstrap=20, seed=3,
                        blocks=("comp=bm25_doc:bm25_and,bm25_page",), by=("n",))  # fmt: skip
    assert rep.selection is not None and rep.has_pairs
    _same(["score", "compare", "--queries", QUERIES, "--qrels", QRELS, *_run_args(*runs),
           "--ties", "trec_eval", "--pair", "bm25_doc:rrf", "--draws", "60", "--bootstrap",
           "20", "--seed", "3", "--block", "comp=bm25_doc:bm25_and,bm25_page", "--by", "n"],
          rep)  # fmt: skip


def test_compare_form_matrix_without_pairs() -> None:
    named = {"bm25@raw": RUNS / "bm25_doc.trec", "bm25@natural": RUNS / "bm25_and.trec",
             "fusion@raw": RUNS / "rrf.trec", "fusion@natural": RUNS / "bm25_page.trec"}  # fmt: skip
    forms = tuple(f"{n}={n.split('@')[1]}" for n in named)
    src = ScoreSource(QUERIES, None, tuple(named.items()), "file")
    rep = score_compare(src, qrels=QRELS, k=10, pairs=(), draws=40, bootstrap=10, seed=11,
                        forms=forms)  # fmt: skip
    assert rep.forms is not None and not rep.has_pairs
    args: list[Any] = ["score", "compare", "--queries", QUERIES, "--qrels", QRELS, "--draws",
                       "40", "--bootstrap", "10"]  # fmt: skip
    for (name, path), form in zip(named.items(), forms, strict=True):
        args += ["--run", f"{name}={path}", "--form", form]
    assert run_cli(*args, "--json").stdout == dumps(rep.to_json()) + "\n"
    assert run_cli(*args).stdout == rep.table() + "\n"


def _after(tmp_path: Path) -> Path:
    rows = QRELS.read_text().splitlines()
    after = tmp_path / "after.txt"
    after.write_text("\n".join(rows[3:]) + "\n")  # a revision that removes a few labels
    return after


def test_impact_with_trec_measures(tmp_path: Path) -> None:
    after = _after(tmp_path)
    runs = (RUNS / "bm25_doc.trec", RUNS / "rrf.trec")
    rep = score_impact(_src(*runs), qrels_before=QRELS, qrels_after=after, k=10,
                       pairs=("bm25_doc:rrf",), draws=50, metric="gold_hit", keep_removed=False,
                       bootstrap=20, seed=11, trec_measures=("ndcg_cut_10,P_10",))  # fmt: skip
    assert isinstance(rep, ImpactReport) and rep.trec is not None
    _same(["score", "impact", "--queries", QUERIES, "--qrels-before", QRELS, "--qrels-after",
           after, *_run_args(*runs), "--pair", "bm25_doc:rrf", "--draws", "50", "--metric",
           "gold_hit", "--bootstrap", "20", "--trec-measures", "ndcg_cut_10,P_10"], rep)  # fmt: skip


def test_impact_of_a_classic_benchmark(tmp_path: Path) -> None:
    after = _after(tmp_path)
    runs = (RUNS / "bm25_doc.trec", RUNS / "rrf.trec")
    rep = score_impact(_src(*runs, queries=None), qrels_before=QRELS, qrels_after=after, k=10,
                       pairs=(), draws=10, metric="nclue", keep_removed=False, bootstrap=10,
                       seed=11, trec_measures=("map",))  # fmt: skip
    assert isinstance(rep, ClassicImpactReport)
    _same(["score", "impact", "--qrels-before", QRELS, "--qrels-after", after,
           *_run_args(*runs), "--trec-measures", "map", "--draws", "10", "--bootstrap", "10"],
          rep)  # fmt: skip


def test_sensitivity_and_bound() -> None:
    runs = (RUNS / "bm25_page.trec", RUNS / "rrf.trec")
    rep = score_sensitivity(_src(*runs), qrels=QRELS, k=10, seed=11, membership="judged",
                            draws=100, remove_top=3, metric="gold_ndcg")  # fmt: skip
    _same(["score", "sensitivity", "--queries", QUERIES, "--qrels", QRELS, *_run_args(*runs),
           "--membership", "judged", "--draws", "100", "--remove-top", "3", "--metric",
           "gold_ndcg"], rep)  # fmt: skip
    bound = score_bound(_src(*runs), qrels=QRELS, pairs=("bm25_page:rrf",), budgets=[0, 2],
                        cutoff=5)  # fmt: skip
    _same(["score", "bound", "--queries", QUERIES, "--qrels", QRELS, *_run_args(*runs),
           "--pair", "bm25_page:rrf", "--k", "0,2", "--cutoff", "5"], bound)  # fmt: skip


def test_drop_condition(sample_project: Path) -> None:
    full, dropped = RUNS / "bm25_doc.trec", RUNS / "bm25_and.trec"
    drops = (f"S:1={dropped}", f"S:2={dropped}")
    src = ScoreSource(QUERIES, None, (("S", full),), "file")
    rep = score_drop_condition(src, qrels=QRELS, evidence=SAMPLE / "evidence.jsonl",
                               drops=drops, k=10, bootstrap=30, seed=11)  # fmt: skip
    _same(["score", "drop-condition", "--queries", QUERIES, "--qrels", QRELS, "--evidence",
           SAMPLE / "evidence.jsonl", "--run", f"S={full}", "--drop", drops[0], "--drop",
           drops[1], "--bootstrap", "30"], rep)  # fmt: skip
    # The project's conditions and evidence give the same figures as the files.
    on_store = score_drop_condition(
        ScoreSource(None, sample_project, (("S", full),), "file"), qrels=None, evidence=None,
        drops=drops, k=10, bootstrap=30, seed=11,
    )  # fmt: skip
    assert on_store.to_json() == rep.to_json()


def test_trec(sample_project: Path) -> None:
    runs = (RUNS / "bm25_doc.trec", RUNS / "rrf.trec")
    specs = [(None, r) for r in runs]
    rep = score_trec(qrels=QRELS, project=None, queries=QUERIES, runs=specs,
                     measures=("ndcg_cut_10,map",), ties="trec_eval", per_query=True)  # fmt: skip
    _same(["score", "trec", "--qrels", QRELS, "--queries", QUERIES, *_run_args(*runs),
           "--measure", "ndcg_cut_10,map", "--per-query"], rep)  # fmt: skip
    rep = score_trec(qrels=None, project=sample_project, queries=None, runs=specs,
                     measures=("P_10",), ties="file")  # fmt: skip
    _same(["score", "trec", "--project", sample_project, *_run_args(*runs), "--measure", "P_10",
           "--ties", "file"], rep)  # fmt: skip


# ---- the command modules only parse, call a service and render --------------------------

COMMANDS = sorted((ROOT / "evaudit" / "commands").glob("score*.py"))
# Packages whose import means a front end computes a figure itself.
_FIGURES = ("scorers", "policies", "numpy", "pandas", "math", "statistics")
_ARITHMETIC = (ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)
_NUMERIC_CALLS = {"sum", "min", "max", "round", "abs", "divmod", "pow"}


def computations(source: str) -> list[str]:
    """What in a module computes a number: figure imports, arithmetic, numeric builtins.

    `+` is left alone (the text is joined with it); an option string is parsed with int().
    """
    found: list[str] = []
    check: dict[type, Callable[[Any], str | None]] = {
        ast.Import: lambda n: next(
            (f"import {a.name}" for a in n.names if a.name.split(".")[0] in _FIGURES), None
        ),
        ast.ImportFrom: lambda n: (
            f"from {n.module} import" if (n.module or "").split(".")[0] in _FIGURES else None
        ),
        ast.BinOp: lambda n: (
            type(n.op).__name__ if isinstance(n.op, _ARITHMETIC) and not _is_text(n) else None
        ),
        ast.AugAssign: lambda n: (
            f"{type(n.op).__name__}=" if isinstance(n.op, _ARITHMETIC) else None
        ),
        ast.Call: lambda n: (
            f"{n.func.id}()"
            if isinstance(n.func, ast.Name) and n.func.id in _NUMERIC_CALLS
            else None
        ),
    }
    for node in ast.walk(ast.parse(source)):
        rule = check.get(type(node))
        hit = rule(node) if rule else None
        if hit:
            found.append(f"line {node.lineno}: {hit}")
    return found


def _is_text(node: ast.BinOp) -> bool:
    """`"..." % args` formats a string and `path / "name"` joins a path: no number."""
    text = ast.Constant | ast.JoinedStr
    if isinstance(node.op, ast.Mod):
        return isinstance(node.left, text)
    return isinstance(node.op, ast.Div) and isinstance(node.right, text)


def test_score_commands_compute_nothing_on_old_code_shape() -> None:
    """The check finds the computations the command modules held before the services."""
    old = (
        "import numpy as np\nfrom scorers.runs import nclue_report\n"
        "d = a.values()[j] - b.values()[j]\nn = sum(x)\nt = 'x' + 'y'\n"
        "p = root / 'audit.duckdb'\nr = hits / total\n"
    )
    assert sorted(c.split(": ")[1] for c in computations(old)) == [
        "Div", "Sub", "from scorers.runs import", "import numpy", "sum()"
    ]  # fmt: skip


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: p.name)
def test_score_commands_compute_nothing(path: Path) -> None:
    """No statistics or policy import and no arithmetic (anywhere in the file)."""
    found = computations(path.read_text("utf-8"))
    assert not found, f"{path.name} computes {found}: move it into services/score*.py"
