"""Each audit-chain command's `--json`, its text and the admin page's table come from one
report object: the service's. The CLI prints `to_json()` (exactly as `emit_json` prints
it) or `table()`; the admin page shows `rows()`. An AST check makes sure neither front end
imports a statistics or policy function, so no figure is computed twice."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from campaign.project import Project, open_project
from evaudit.output import dumps
from services.adjudicate import adjudicate
from services.agreement import agreement_audit
from services.estimate import label_error_estimate
from services.finalize import finalize
from services.integrity import integrity
from services.ratings import ratings_stats
from services.repair import repair_plan
from tests.classic_fixture import TOPICS, make_beir, run_campaign, write_guideline
from tests.conftest import cli_json, run_cli

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "audit_app" / "streamlit_app.py")
PASSWORD = "pw-for-tests"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A BEIR project audited end to end (initial, repair plan, adjudication, finalize)."""
    root = tmp_path_factory.mktemp("reports_shared")
    d, beir = root / "proj", make_beir(root / "scifact")
    run_cli("init", d, "--admin-password", PASSWORD)
    run = root / "bm25.trec"
    run.write_text(
        "".join(
            f"q{qi} Q0 d{qi}_{j} {j + 1} {10 - j} bm25\n"
            for qi in range(1, len(TOPICS) + 1)
            for j in range(5)
        )
    )
    cli_json("ingest", d, "--beir", beir)
    cli_json(
        "load", d, "--beir", beir, "--split", "test", "--relevant-from", 1,
        "--guideline", write_guideline(root / "guideline.json"), "--run", f"bm25={run}",
    )  # fmt: skip
    return {"dir": d, "root": root, **run_campaign(d, root, cli_json)}


def _project(campaign: dict[str, Any]) -> Project:
    return open_project(campaign["dir"])


def _same_output(args: list[Any], report: Any) -> None:
    """The CLI's --json is the report's to_json() as printed; its text is table()."""
    as_json = run_cli(*args, "--json")
    assert as_json.stdout == dumps(report.to_json()) + "\n"
    text = run_cli(*args)
    assert text.stdout == report.table() + "\n"


def test_agreement_integrity_repair_adjudicate_cli_print_the_report(
    campaign: dict[str, Any],
) -> None:
    d, project = campaign["dir"], _project(campaign)
    _same_output(["agreement", "audit", d, "initial"], agreement_audit(project, "initial", None))
    _same_output(["integrity", d, "initial"], integrity(project, "initial"))
    queue = campaign["root"] / "queue.json"
    plan = repair_plan(project, "initial", "A,E", queue)
    _same_output(["repair", "plan", d, "initial", "--raters", "A,E", "--queue-out", queue], plan)
    assert "queue written to" in plan.table()
    report = adjudicate(project, "adj", None, None, None, None)
    assert report.rows() and report.to_json()["pairs"]  # non-trivial: some votes split
    _same_output(["adjudicate", d, "adj"], report)


def test_finalize_and_estimate_cli_print_the_report(campaign: dict[str, Any]) -> None:
    d, project = campaign["dir"], _project(campaign)
    out = campaign["root"] / "revised"
    report = finalize(project, out)
    assert report.rows() and report.to_json()["changed"] > 0
    _same_output(["finalize", d, "--out", out], report)
    estimate = label_error_estimate(project, "initial")
    _same_output(["agreement", "estimate", d, "initial"], estimate)


def test_agreement_stats_cli_prints_the_report(tmp_path: Path) -> None:
    ratings = tmp_path / "r.csv"
    ratings.write_text("unit,rater,value\n1,a,0\n1,b,1\n2,a,1\n2,b,1\n3,a,0\n3,b,0\n")
    _same_output(["agreement", "stats", "--ratings", ratings], ratings_stats(ratings))


def _frame(at: AppTest, first_col: str, first_value: str) -> pd.DataFrame:
    for df in at.dataframe:
        frame = df.value
        if first_col in frame.columns and first_value in set(frame[first_col].astype(str)):
            return frame.reset_index(drop=True)
    raise AssertionError(f"no table with {first_col}={first_value!r} on the page")


def _same_table(shown: pd.DataFrame, rows: list[dict[str, Any]]) -> None:
    want = pd.DataFrame(rows)
    assert list(shown.columns) == list(want.columns)
    pd.testing.assert_frame_equal(shown, want, check_dtype=False)


def test_admin_tables_are_the_reports_rows(
    campaign: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(campaign)
    monkeypatch.setenv("EVAUDIT_PROJECT", str(campaign["dir"]))
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input[0].input(PASSWORD)
    at.button[0].click().run()
    at.selectbox(key="admin_packet").set_value("initial").run()
    assert not at.exception
    # Two streams answered: the page shows their pairwise figures, as `--raters A,E` does.
    agreement = agreement_audit(project, "initial", "A,E")
    _same_table(_frame(at, "statistic", "pairs / conditions"), agreement.rows())
    _same_table(_frame(at, "stream", "A"), integrity(project, "initial").rows())
    captions = " ".join(str(c.value) for c in at.caption)
    assert integrity(project, "initial").line() in captions
    next(b for b in at.button if b.key == "estimate_initial").click().run()
    assert not at.exception
    estimate = label_error_estimate(project, "initial")
    _same_table(_frame(at, "share", "gold that is not gold"), estimate.rows())
    assert estimate.caption() in " ".join(str(c.value) for c in at.caption)


# Modules that may only parse, call a service and render.
FRONT_ENDS = [
    ROOT / "evaudit" / "commands" / "audit.py",
    *(ROOT / "audit_app" / "admin").glob("*.py"),
]


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", FRONT_ENDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_front_ends_compute_no_figure(path: Path) -> None:
    """No statistics or policy import (anywhere in the file, inside functions too)."""
    bad = sorted(m for m in _imports(path) if m.split(".")[0] in ("scorers", "policies"))
    assert not bad, f"{path.name} imports {bad}: call a service in services/ instead"
