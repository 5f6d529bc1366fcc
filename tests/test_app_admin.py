"""Admin page (AppTest): the live agreement and integrity figures equal the CLI's JSON.

The journals come from `services.simulate` (two people, partly disagreeing, verbatim
quotes), so the figures are non-trivial. The page must show exactly what
`evaudit agreement audit DIR PACKET --json` and `evaudit integrity DIR PACKET --json`
print for the same project, and those figures agree with the reference libraries.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint
from streamlit.testing.v1 import AppTest

from services.simulate import simulate
from tests.app_fixture import PASSWORD, Fixture, build

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "audit_app" / "streamlit_app.py")
EVAUDIT = str(ROOT / ".venv" / "bin" / "evaudit")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    fx = build(tmp_path_factory.mktemp("admin") / "proj", items=16, conditions=2, pages=3)
    saved = simulate(fx.project, "initial", ("alice", "bob"))
    assert saved["alice"] > 0 and saved["bob"] > 0
    return fx


def _cli(*args: str) -> dict[str, Any]:
    res = subprocess.run([EVAUDIT, *args, "--json"], capture_output=True, text=True, check=True)
    return dict(json.loads(res.stdout))


def _admin(fx: Fixture, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("EVAUDIT_PROJECT", str(fx.project.root))
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input[0].input(PASSWORD)
    at.button[0].click().run()
    assert not at.exception
    return at


def _frame(at: AppTest, first_col: str, first_value: str) -> pd.DataFrame:
    for df in at.dataframe:
        frame = df.value
        if first_col in frame.columns and first_value in set(frame[first_col].astype(str)):
            return frame
    raise AssertionError(f"no table with {first_col}={first_value!r} on the page")


def _row(frame: pd.DataFrame, statistic: str) -> pd.Series:
    rows = frame[frame["statistic"] == statistic]
    assert len(rows) == 1, statistic
    return rows.iloc[0]


def _same(shown: Any, expected: Any) -> bool:
    if expected is None:  # the CLI prints NaN as null
        return shown is None or (isinstance(shown, float) and math.isnan(shown))
    return float(shown) == float(expected)


def _heatmap(at: AppTest) -> pd.DataFrame:
    charts = [c for c in at.get("vega_lite_chart") if "grade" in c.proto.spec]
    assert len(charts) == 1
    table = pa.ipc.open_stream(charts[0].proto.datasets[0].data.data).read_all()
    return table.to_pandas()


def test_agreement_figures_equal_cli(campaign: Fixture, monkeypatch) -> None:
    fx = campaign
    # bob has not finished (coverage 0.9): he counts only when named (issue 31), as the
    # page names the only two streams with answers
    cli = _cli("agreement", "audit", str(fx.project.root), "initial", "--raters", "alice,bob")
    at = _admin(fx, monkeypatch)
    shown = _frame(at, "statistic", "exact derived-grade agreement")
    assert _row(shown, "pairs / conditions")["count"] == cli["pairs"]
    assert _row(shown, "pairs / conditions")["total"] == cli["conditions"]
    for label, key in (
        ("exact derived-grade agreement", "exact_grade_agreement"),
        ("condition support agreement", "condition_agreement"),
    ):
        row, want = _row(shown, label), cli[key]
        assert (row["count"], row["total"]) == (want["count"], want["total"])
        assert _same(row["rate"], want["rate"])
        assert _same(row["wilson95 lo"], want["wilson95"][0])
        assert _same(row["wilson95 hi"], want["wilson95"][1])
    page_set = _row(shown, "page-set agreement")
    assert (page_set["count"], page_set["total"]) == (
        cli["page_set_agreement"]["count"],
        cli["page_set_agreement"]["total"],
    )
    assert _same(_row(shown, "linearly weighted grade kappa")["value"], cli["grade_kappa_linear"])
    assert _same(_row(shown, "condition kappa")["value"], cli["condition_kappa"])
    for label, key in (
        ("quotes passing exact check", "quotes_exact"),
        ("judged clear by all", "clear_by_all"),
    ):
        row = _row(shown, label)
        assert (row["count"], row["total"]) == (cli[key]["count"], cli[key]["total"])
    # The heatmap is the CLI's confusion matrix, cell by cell (rows: alice, columns: bob).
    heat = _heatmap(at)
    cells = {(int(r.row), int(r.col)): int(r["count"]) for _, r in heat.iterrows()}
    matrix = cli["confusion"]
    assert cells == {(i, j): v for i, row in enumerate(matrix) for j, v in enumerate(row)}
    assert "#### Derived-grade confusion (rows: alice, columns: bob)" in [
        m.value for m in at.markdown
    ]
    # The figures are real: disagreement exists, and they match the reference libraries.
    assert 0 < cli["exact_grade_agreement"]["count"] < cli["pairs"]
    grades = [(p["grades"]["alice"], p["grades"]["bob"]) for p in cli["pair_grades"]]
    kappa = cohen_kappa_score(
        [a for a, _ in grades], [b for _, b in grades], weights="linear", labels=[0, 1, 2]
    )
    assert abs(kappa - cli["grade_kappa_linear"]) < 1e-9
    exact = cli["exact_grade_agreement"]
    lo, hi = proportion_confint(exact["count"], exact["total"], method="wilson")
    assert abs(lo - exact["wilson95"][0]) < 1e-9 and abs(hi - exact["wilson95"][1]) < 1e-9
    assert sum(a == b for a, b in grades) == exact["count"]


def test_integrity_per_stream_equals_cli(campaign: Fixture, monkeypatch) -> None:
    fx = campaign
    cli = _cli("integrity", str(fx.project.root), "initial")
    at = _admin(fx, monkeypatch)
    shown = _frame(at, "stream", "alice").set_index("stream")
    assert sorted(shown.index) == sorted(cli["streams"]) == ["alice", "bob"]
    for name, figures in cli["streams"].items():
        for key, value in figures.items():
            if key == "quotes_exact":
                assert shown.loc[name, "quotes exact"] == value["count"]
                assert shown.loc[name, "quotes total"] == value["total"]
            else:
                assert shown.loc[name, key] == value, (name, key)
    captions = " ".join(str(c.value) for c in at.caption)
    assert ("Integrity ok: no structural or page-pool errors" in captions) == cli["ok"]
    assert "problems" not in captions


def test_three_streams_and_picked_raters(tmp_path: Path, monkeypatch) -> None:
    fx = build(tmp_path / "proj", items=8, conditions=2, pages=3)
    simulate(fx.project, "initial", ("alice", "bob"), coverage=(1.0, 1.0))
    simulate(fx.project, "initial", ("carol", "dave"), seed=5, coverage=(1.0, 0.0))
    at = _admin(fx, monkeypatch)
    cli = _cli("agreement", "audit", str(fx.project.root), "initial")
    assert cli["raters"] == ["alice", "bob", "carol"]
    shown = _frame(at, "statistic", "unanimous conditions")
    for pair, want in cli["pairwise_agreement"].items():
        row = _row(shown, f"agreement {pair} ({want['items']} items)")
        assert (row["count"], row["total"]) == (want["count"], want["total"])
        assert _same(row["value"], want["kappa"])
    assert _same(_row(shown, "Fleiss kappa (support)")["value"], cli["fleiss_kappa"])
    # Picking two raters gives that pair's two-rater table, as `--raters carol,alice` does.
    picker = next(m for m in at.multiselect if str(m.key).startswith("agr_raters"))
    picker.set_value(["carol", "alice"]).run()
    two = _cli("agreement", "audit", str(fx.project.root), "initial", "--raters", "carol,alice")
    shown = _frame(at, "statistic", "exact derived-grade agreement")
    row = _row(shown, "exact derived-grade agreement")
    assert (row["count"], row["total"]) == (
        two["exact_grade_agreement"]["count"],
        two["exact_grade_agreement"]["total"],
    )
    assert _same(_row(shown, "condition kappa")["value"], two["condition_kappa"])


def test_one_stream_shows_integrity_and_a_note(tmp_path: Path, monkeypatch) -> None:
    fx = build(tmp_path / "proj", items=4, conditions=2, pages=3)
    simulate(fx.project, "initial", ("alice", "bob"), coverage=(1.0, 0.0))
    at = _admin(fx, monkeypatch)
    notes = " ".join(str(i.value) for i in at.info)
    assert "needs at least two complete response streams" in notes
    assert list(_frame(at, "stream", "alice")["stream"]) == ["alice"]
    assert not at.get("vega_lite_chart") or all(
        "grade" not in c.proto.spec for c in at.get("vega_lite_chart")
    )


def test_number_formats_blank_and_integer_counts() -> None:
    from audit_app.admin.data import agreement_rows
    from audit_app.admin.display import number_formats

    table = agreement_rows(
        {"pairs": 21, "conditions": 46, "condition_kappa": 0.80123,
         "condition_agreement": {"count": 43, "total": 46, "rate": 0.93, "wilson95": [0.8, 0.9]}}
    )  # fmt: skip
    formats = number_formats(table)
    assert formats["count"] == "%d" and formats["total"] == "%d"  # float (gaps) but counts
    assert formats["rate"] == formats["value"] == "%.4f"
    assert table["value"].isna().tolist() == [True, True, False]  # the data keep their nulls


def test_two_streams_with_answers_open_pairwise_and_say_which_raters(
    tmp_path: Path, monkeypatch
) -> None:
    from audit_app.admin.display import choose_raters, raters_line
    from campaign import journal

    fx = build(tmp_path / "proj", items=6, conditions=2, pages=3)
    simulate(fx.project, "initial", ("alice", "bob"))
    # carol has a journal, but only lines of another packet version: no answers here.
    journal.append(
        journal.journal_path(fx.project.journal_dir("initial"), "carol"),
        {"item_id": "J001", "packet_sha256": "0" * 64, "answers": {}},
    )
    at = _admin(fx, monkeypatch)
    captions = " ".join(str(c.value) for c in at.caption)
    assert "Only alice and bob have answers: their pairwise figures." in captions
    assert "--raters alice,bob --json" in captions
    assert "#### Derived-grade confusion (rows: alice, columns: bob)" in [
        m.value for m in at.markdown
    ]
    assert choose_raters(["bob"], ["alice", "bob", "dave"]).raters is None
    assert choose_raters(["bob", "alice"], ["alice", "bob", "dave"]).raters == "bob,alice"
    three = raters_line({"raters": ["alice", "bob", "dave"]})
    assert three.startswith("Multi-rater figures (unanimous conditions, positive votes, Fleiss")
    assert "3 raters: alice, bob, dave" in three


def test_integrity_line_never_contradicts_itself() -> None:
    from audit_app.admin.display import integrity_line

    clean = {
        "structural_errors": 0,
        "page_pool_errors": 0,
        "quotes_exact": {"count": 3, "total": 3},
    }
    ok = {"ok": True, "streams": {"a": clean}, "streams_after_collapse": ["a"]}
    assert integrity_line(ok).startswith("Integrity ok: no structural or page-pool errors")
    bad = {**clean, "page_pool_errors": 2, "quotes_exact": {"count": 1, "total": 3}}
    line = integrity_line({"ok": False, "streams": {"a": clean, "b": bad}})
    assert line == "Integrity problems: b: 2 page-pool errors, 2 quotes not exact."


def test_local_times_and_literal_html() -> None:
    from zoneinfo import ZoneInfo

    from audit_app.admin.display import local_time, responses_html, wall_clock

    kolkata = ZoneInfo("Asia/Kolkata")
    assert local_time("2026-12-01T15:41:32.17+00:00", kolkata) == "2026-12-01 21:11:32 IST"
    assert local_time("2026-07-01T23:05:00+00:00", ZoneInfo("Europe/Berlin")).endswith(
        "01:05:00 CEST"
    )
    assert local_time(None, kolkata) == ""
    shifted = wall_clock(pd.Series(["2026-12-01T15:41:32+00:00"]), kolkata)
    assert str(shifted.iloc[0]) == "2026-12-01 21:11:32+00:00"
    hostile = "<script>alert(1)</script> **bold** [x](http://evil)"
    table = pd.DataFrame([{"quotes": hostile, "count": 3.0, "value": None, "ok": True}])
    out = responses_html(table)
    assert "<script>" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert ">3<" in out and "None" not in out and ">yes<" in out


def test_figure_tables_show_blanks_and_integer_counts(campaign: Fixture, monkeypatch) -> None:
    """The grid is a canvas (no DOM text), so check what it is told: an empty placeholder
    for missing values and "%d" for counts."""
    at = _admin(campaign, monkeypatch)
    assert len(at.dataframe) >= 4
    for df in at.dataframe:
        assert df.proto.HasField("placeholder") and df.proto.placeholder == ""
    figures = next(df for df in at.dataframe if "statistic" in df.value.columns)
    columns = json.loads(figures.proto.columns)
    assert columns["count"]["type_config"]["format"] == "%d"
    assert columns["rate"]["type_config"]["format"] == "%.4f"
