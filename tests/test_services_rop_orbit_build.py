"""`evaudit rop ...`, `evaudit orbit ...` and `evaudit packet build` print their service's
report: `--json` is the report's `to_json()` exactly as `emit_json` prints it, the text is
its `table()`. An AST check makes sure those command modules only parse, call a service
and print: no statistics, policy or builder import and no arithmetic or number format."""

from __future__ import annotations

import ast
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from campaign.project import open_project
from evaudit.output import dumps
from services import orbit, rop, rop_study
from services.build import BuildSpec, build_packet
from tests.conftest import run_cli
from tests.test_packet_fixtures import make_project

ROOT = Path(__file__).resolve().parent.parent
ROP = ROOT / "examples" / "rop"
STUDY = ROOT / "examples" / "rop-study"
ORBIT = ROOT / "examples" / "orbit"
RECORDS, RESOLVER = STUDY / "records.jsonl", STUDY / "resolver.json"


def _same_output(args: list[Any], report: Any, expect: int = 0, *, nl: bool = True) -> None:
    """The CLI's --json is the report's to_json() as printed; its text is table()."""
    as_json = run_cli(*args, "--json", expect=expect)
    assert as_json.stdout == dumps(report.to_json()) + "\n"
    text = run_cli(*args, expect=expect)
    assert text.stdout == report.table() + ("\n" if nl else "")


# (CLI arguments, the same call of the service, exit code)
CASES: list[tuple[list[Any], Callable[[], Any], int]] = [
    (
        ["rop", "evaluate", ROP / "hard-fixture" / "declaration.json"],
        lambda: rop.evaluate(ROP / "hard-fixture" / "declaration.json"),
        0,
    ),
    (
        ["rop", "evaluate", ROP / "malformed-record" / "declaration.json"],
        lambda: rop.evaluate(ROP / "malformed-record" / "declaration.json"),
        3,
    ),
    (
        ["rop", "evaluate", ROP / "hard-fixture-one-missing" / "declaration.json"],
        lambda: rop.evaluate(ROP / "hard-fixture-one-missing" / "declaration.json"),
        None,
    ),
    (
        ["rop", "validate", ROP / "hard-fixture" / "declaration.json"],
        lambda: rop.validate(ROP / "hard-fixture" / "declaration.json"),
        0,
    ),
    (
        ["rop", "validate", ROP / "invalid-population-count" / "declaration.json"],
        lambda: rop.validate(ROP / "invalid-population-count" / "declaration.json"),
        3,
    ),
    (
        ["rop", "targets", "--records", RECORDS, "--resolver", RESOLVER],
        lambda: rop.targets(RECORDS, [1, 5, 20], resolver=RESOLVER),
        0,
    ),
    (
        [
            "rop",
            "targets",
            "--records",
            RECORDS,
            "--pair",
            "rrf,final",
            "--bootstrap",
            50,
            "--by",
            "model",
            "--subset",
            "distinct",
            "--cutoffs",
            "1,5",
        ],
        lambda: rop.targets(
            RECORDS,
            [1, 5],
            subset="distinct",
            pair=("rrf", "final"),
            resamples=50,
            group_field="model",
        ),
        0,
    ),
    (
        [
            "rop",
            "accounting",
            "--records",
            RECORDS,
            "--resolver",
            RESOLVER,
            "--planned",
            STUDY / "planned.jsonl",
        ],
        lambda: rop_study.accounting(
            RECORDS, RESOLVER, [1, 5, 20], planned=STUDY / "planned.jsonl"
        ),
        0,
    ),
    (
        [
            "rop",
            "misses",
            "--records",
            RECORDS,
            "--resolver",
            RESOLVER,
            "--stack",
            "final",
            "--cutoff",
            5,
            "--depth",
            20,
            "--subset",
            "aligned",
            "--by",
            "model",
        ],
        lambda: rop_study.misses(
            RECORDS, "final", 5, 20, resolver=RESOLVER, subset="aligned", group_field="model"
        ),
        0,
    ),
    (
        [
            "rop",
            "association",
            STUDY / "reader.jsonl",
            "--pair",
            "id:question",
            "--passages",
            5,
            "--bootstrap",
            200,
        ],
        lambda: rop_study.association(
            STUDY / "reader.jsonl", [("id", "question")], passages=5, resamples=200
        ),
        0,
    ),
    (
        ["rop", "deletion", STUDY / "calls.jsonl", "--bootstrap", 200],
        lambda: rop_study.deletion(
            STUDY / "calls.jsonl", ["intact", "trace_drop", "sham_drop"], resamples=200
        ),
        0,
    ),
    (
        ["rop", "replay-check", "--runs", RECORDS, "--reader", STUDY / "reader_records.jsonl"],
        lambda: rop_study.replay_check(RECORDS, STUDY / "reader_records.jsonl"),
        1,  # the example rejects two reader records on purpose
    ),
    (
        ["rop", "envelope", ROP / "envelope" / "declaration.json"],
        lambda: rop_study.envelope(ROP / "envelope" / "declaration.json"),
        0,
    ),
    (
        ["rop", "envelope", ROP / "envelope-mode-differs" / "declaration.json"],
        lambda: rop_study.envelope(ROP / "envelope-mode-differs" / "declaration.json"),
        3,
    ),
]


def _case_id(args: list[Any]) -> str:
    """`rop-evaluate-hard-fixture`: the command and its first file's folder or name."""
    first = next(Path(a) for a in args[2:] if isinstance(a, Path))
    return "-".join(
        [*args[:2], first.parent.name if first.name == "declaration.json" else first.stem]
    )


@pytest.mark.parametrize(
    ("args", "service", "expect"),
    [pytest.param(*c, id=f"{_case_id(c[0])}-{i}") for i, c in enumerate(CASES)],
)
def test_rop_commands_print_the_report(
    args: list[Any], service: Callable[[], Any], expect: int | None
) -> None:
    report = service()
    code = report.exit_code if expect is None else expect
    _same_output(args, report, code)
    if hasattr(report, "exit_code"):
        assert report.exit_code == code


def test_evaluate_report_is_the_evaluator_result_not_a_copy() -> None:
    # `rop evaluate` must not get slower: the report adds no pass over the records.
    report = rop.evaluate(ROP / "hard-fixture" / "declaration.json")
    assert report.to_json()["record_verdicts"] is report.result.record_verdicts
    assert report.rows() == [[k, v] for k, v in report.result.histogram.items()]


def test_rop_schema_prints_the_report() -> None:
    report = rop.schema()
    assert run_cli("rop", "schema").stdout == report.table() + "\n"
    assert json.loads(report.table()) == report.to_json()


CONDITION = {
    **{"condition_id": "c0", "name": "c0", "requirement": "r"},
    **{"counts": [], "does_not_count": [], "aliases": []},
}


def test_from_qrels_prints_the_report(tmp_path: Path) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        "".join(
            json.dumps({"query_id": q, "text": "t", "conditions": [CONDITION]}) + "\n"
            for q in ("q1", "q2", "q3")
        )
    )
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.trec"
    qrels.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    run.write_text("q1 Q0 d1 1 9.0 t\nq3 Q0 d9 1 1.0 t\nq9 Q0 d1 1 1.0 t\n")
    out = tmp_path / "o"
    args = ["rop", "from-qrels", "--queries", queries, "--qrels", qrels, "--run", run]
    args += ["--k", 1, "--out", out]
    for flag in (["--json"], []):
        cli = run_cli(*args, *flag).stdout
        shutil.rmtree(out)  # the same inputs again: the bundle is written all or nothing
        report = rop.from_qrels(queries, qrels, run, cutoff=1, out_dir=out)
        assert report.to_json()["run_queries_not_in_queries"] == ["q9"]
        assert cli == (dumps(report.to_json()) if flag else report.table()) + "\n"
        shutil.rmtree(out)


ORBIT_OPTIONS = ["--base", "BM25", "--variant", "BGE", "--bootstrap", 50, "--splits", 5]


@pytest.mark.parametrize("name", ["orbit_example.csv", "orbit_checks_example.csv"])
def test_orbit_analyze_prints_the_report(name: str) -> None:
    report = orbit.orbit_analyze(
        ORBIT / name, base="BM25", variant="BGE", bootstrap=50, splits=5, coverage_required=0.9
    )
    assert (report.checks is None) == (name == "orbit_example.csv")
    args = ["orbit", "analyze", ORBIT / name, *ORBIT_OPTIONS, "--coverage-required", 0.9]
    _same_output(args, report, nl=False)
    fmt = run_cli(*args, "--format", "json").stdout
    assert fmt == dumps(report.to_json()) + "\n"


def test_orbit_checks_print_the_report() -> None:
    table = ORBIT / "orbit_checks_example.csv"
    diag = orbit.orbit_diagnostics(table)
    assert diag.to_json() is not None and "invalidity" in diag.table()
    _same_output(["orbit", "diagnostics", table], diag, nl=False)
    cov = orbit.orbit_coverage(table, required=0.9)
    _same_output(["orbit", "coverage", table, "--required", 0.9], cov, nl=False)


def test_packet_build_prints_the_report(tmp_path: Path) -> None:
    # Two projects made alike: the CLI builds in one, the service in the other (the same
    # packets, byte for byte, up to the registration time).
    cli_dir, service_dir = make_project(tmp_path / "cli"), make_project(tmp_path / "service")
    options = ["--seed", 11, "--per-stratum", 3]
    as_json = run_cli("packet", "build", cli_dir, "--name", "j", *options, "--json").stdout
    text = run_cli("packet", "build", cli_dir, "--name", "t", *options).stdout
    project = open_project(service_dir)
    want_json = build_packet(project, BuildSpec(name="j", seed=11, per_stratum=3))
    want_text = build_packet(project, BuildSpec(name="t", seed=11, per_stratum=3))
    assert want_text.rows() and "built t (initial)" in want_text.table()
    created = json.loads(as_json)["created_at"]
    assert as_json.replace(created, want_json.to_json()["created_at"]) == (
        dumps(want_json.to_json()) + "\n"
    )
    assert text == want_text.table() + "\n"


# The command modules that may only parse, call a service and print.
COMMANDS = ROOT / "evaudit" / "commands"
FRONT_ENDS = {
    "rop.py": None,
    "rop_study.py": None,
    "orbit.py": None,
    "packet.py": "build_cmd",  # the build command only: the other packet commands are not yet
}
# What such a module may import: the CLI, click, the services, the project handle and the
# vocabulary (the standard library too).
ALLOWED = {"__future__", "click", "evaudit", "services", "campaign", "vocabulary"}
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
NUMERIC_CALLS = {"sum", "min", "max", "round", "abs", "divmod", "pow"}


def _scope(path: Path, function: str | None) -> ast.AST:
    tree = ast.parse(path.read_text("utf-8"))
    if function is None:
        return tree
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)


def _problems(node: ast.AST) -> list[str]:
    """Imports outside ALLOWED, arithmetic, numeric built-ins and number formats."""
    found = []
    for n in ast.walk(node):
        modules: list[str] = []
        if isinstance(n, ast.Import):
            modules = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.module:
            modules = [n.module]
        for m in modules:
            top = m.split(".")[0]
            if top not in ALLOWED and top not in sys.stdlib_module_names:
                found.append(f"line {n.lineno}: imports {m}")
            if m.startswith("campaign.") and m != "campaign.project":
                found.append(f"line {n.lineno}: imports {m} (only campaign.project)")
        if isinstance(n, ast.BinOp | ast.AugAssign) and isinstance(n.op, ARITHMETIC):
            found.append(f"line {n.lineno}: arithmetic {type(n.op).__name__}")
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in NUMERIC_CALLS:
            found.append(f"line {n.lineno}: calls {n.func.id}()")
        if isinstance(n, ast.FormattedValue) and n.format_spec is not None:
            found.append(f"line {n.lineno}: formats a number in the front end")
    return found


@pytest.mark.parametrize("name", sorted(FRONT_ENDS))
def test_commands_only_parse_call_and_print(name: str) -> None:
    bad = _problems(_scope(COMMANDS / name, FRONT_ENDS[name]))
    assert not bad, f"{name}: {bad}: move it into the service's report"
