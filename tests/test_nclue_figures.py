"""Figures 2(a) and 2(b) of "Do Current Retrievers Cover All the Evidence?" (supplement,
"Capability Matrix and Main-Paper Derivation") from `score nclue --plot` and `score
compare --plot` on the sample benchmark: PNG and SVG files, and the values drawn are the
report's (fair runs only in 2(a); paired deltas and their intervals in 2(b))."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.figures import delta_plane, fair_scatter
from tests.conftest import SAMPLE, cli_json, run_cli

RUNS = [a for r in sorted((SAMPLE / "runs").glob("*.trec")) for a in ("--run", r)]
BASE = ["--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt", *RUNS]


def test_fair_method_scatter(tmp_path: Path) -> None:
    cats = tmp_path / "cats.txt"
    cats.write_text(
        "bm25_doc lexical\nbm25_page lexical\nrrf fusion\nbm25_and control privileged\n"
    )
    png = tmp_path / "fig2a.png"
    rep = cli_json("score", "nclue", *BASE, "--bootstrap", "50", "--category", cats, "--plot", png)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    fig, drawn = fair_scatter(rep)
    assert drawn["left_out"] == ["bm25_and"]
    want = {
        t: (100 * r["gold_hit"], 100 * r["nclue"])
        for t, r in rep["runs"].items()
        if t != "bm25_and"
    }
    assert {t: (x, y) for t, x, y in drawn["points"]} == want
    (points,) = [c for c in fig.axes[0].collections if c.get_gid() == "fair"]
    assert sorted(map(tuple, points.get_offsets().tolist())) == sorted(want.values())
    svg = tmp_path / "fig2a.svg"
    run_cli("score", "nclue", *BASE, "--bootstrap", "50", "--plot", svg)
    assert svg.read_text().lstrip().startswith("<?xml") and svg.stat().st_size > 5000


def test_delta_plane(tmp_path: Path) -> None:
    svg = tmp_path / "fig2b.svg"
    pairs = ["--pair", "bm25_doc:rrf", "--pair", "bm25_page:bm25_and"]
    rep = cli_json("score", "compare", *BASE, *pairs, "--draws", "200", "--bootstrap", "50",
                   "--plot", svg)  # fmt: skip
    assert "<svg" in svg.read_text() and svg.stat().st_size > 5000
    fig, drawn = delta_plane(rep)
    for (label, x, y, xlo, xhi, ylo, yhi), p in zip(drawn["points"], rep["pairs"], strict=True):
        assert label == f"{p['base']} -> {p['variant']}"
        assert (x, y) == (100 * p["diff"]["gold_hit"], 100 * p["diff"]["nclue"])
        assert [xlo / 100, xhi / 100] == pytest.approx(p["ci95"]["gold_hit"])
        assert [ylo / 100, yhi / 100] == pytest.approx(p["ci95"]["nclue"])
    (line,) = [ln for ln in fig.axes[0].get_lines() if ln.get_marker() == "o"]
    assert line.get_xdata().tolist() == [p[1] for p in drawn["points"]]
    assert line.get_ydata().tolist() == [p[2] for p in drawn["points"]]
    png = tmp_path / "fig2b.png"
    run_cli("score", "compare", *BASE, *pairs, "--draws", "200", "--bootstrap", "50", "--plot", png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_bad_plot_path_fails_before_any_work(tmp_path: Path) -> None:
    err = run_cli("score", "nclue", *BASE, "--plot", tmp_path / "x.jpg", expect=2).stderr
    assert "--plot takes a .png or .svg file" in err and not (tmp_path / "x.jpg").exists()
    err = run_cli("score", "compare", *BASE, "--pair", "bm25_doc:rrf", "--plot",
                  tmp_path / "no" / "x.png", expect=2).stderr  # fmt: skip
    assert "--plot folder does not exist" in err


def test_admin_figures_are_the_commands_figures(tmp_path: Path) -> None:
    """The admin tab's Figures 2(a)/(b) of an n-Clue project's stored runs are the pictures
    `score nclue --plot` / `score compare --plot` draw from the same runs."""
    from campaign.project import open_project
    from services.figures import figure_bytes
    from services.impact_admin import admin_figures, admin_impact

    d = tmp_path / "proj"
    runs = [SAMPLE / "runs" / "bm25_doc.trec", SAMPLE / "runs" / "rrf.trec"]
    run_cli("init", d, "--admin-password", "pw-for-tests")
    run_cli("ingest", d, "--pdf-dir", SAMPLE / "pdfs", "--workers", "2")
    run_cli("load", d, "--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt",
            "--evidence", SAMPLE / "evidence.jsonl",
            *[a for r in runs for a in ("--run", f"{r.stem}={r}")])  # fmt: skip
    project = open_project(d)
    assert admin_impact(project).report is None  # an n-Clue project: the figures instead
    got = admin_figures(project, ["bm25_doc:rrf"])
    args = ["--project", d, *[a for r in runs for a in ("--run", f"{r.stem}={r}")]]
    nclue = cli_json("score", "nclue", *args)
    cmp = cli_json("score", "compare", *args, "--pair", "bm25_doc:rrf")
    assert got.fair == figure_bytes(fair_scatter(nclue)[0])
    assert got.plane == figure_bytes(delta_plane(cmp)[0])
    assert got.fair is not None and got.fair[:4] == b"\x89PNG"
    _admin_page_shows_both(d)


def _admin_page_shows_both(d: Path) -> None:
    """The Impact tab of the admin page (AppTest): Figure 2(a), then 2(b) once a pair is
    picked (the tab stays computed while pairs are picked)."""
    import os

    from streamlit.testing.v1 import AppTest

    run_cli("packet", "build", d, "--name", "initial", "--seed", 7, "--total", 4)
    app = Path(__file__).resolve().parents[1] / "audit_app" / "streamlit_app.py"
    os.environ["EVAUDIT_PROJECT"] = str(d)
    try:
        at = AppTest.from_file(str(app), default_timeout=180).run()
        at.text_input[0].input("pw-for-tests")
        at.button[0].click().run()
        at.button(key="impact_go").click().run()
        assert not at.exception and len(at.get("image")) == 1
        at.multiselect(key="fig_pairs").set_value(["bm25_doc:rrf"]).run()
        assert not at.exception and len(at.get("image")) == 2
    finally:
        del os.environ["EVAUDIT_PROJECT"]


def test_run_names_are_drawn_literally(tmp_path: Path) -> None:
    from services.figures import save_figure

    body = {"k": 10, "runs": {"a$x^{2}$": {"nclue": 0.5, "gold_hit": 0.6},
                              "b\\alpha": {"nclue": 0.4, "gold_hit": 0.5}}}  # fmt: skip
    fig, _data = fair_scatter(body)
    texts = {t.get_text(): t.get_parse_math() for t in fig.axes[0].texts}
    assert texts == {"a$x^{2}$": False, "b\\alpha": False}
    save_figure(fig, tmp_path / "names.svg")
    assert (
        "x^{2}" in (tmp_path / "names.svg").read_text()
        or (tmp_path / "names.svg").stat().st_size > 0
    )
