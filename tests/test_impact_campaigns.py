"""A BEIR folder and a TREC collection audited from ingest to revised qrels, then
`score impact --project P` with plots: the project finds its revision itself (the
original-scale qrels `finalize` writes), and the revised files finalize wrote are read
in every form (BEIR qrels.tsv failed with "expected 4 fields", qrels.txt with "grade 2
exceeds its 1 conditions"). The admin page's service gives the same figures from the
project's stored runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytrec_eval

from tests.classic_fixture import TOPICS, make_beir, make_trec, run_campaign, write_guideline
from tests.conftest import cli_json, run_cli

ORDERS = {"bm25": [0, 1, 2, 3, 4], "dense": [4, 3, 2, 1, 0], "mix": [1, 0, 4, 2, 3]}


def _runs(root: Path, qids: list[str], doc: Any) -> list[Path]:
    out = []
    for name, order in ORDERS.items():
        path = root / f"{name}.trec"
        path.write_text("".join(
            f"{q} Q0 {doc(q, j)} {r + 1} {10 - r} {name}\n"
            for q in qids for r, j in enumerate(order)
        ))  # fmt: skip
        out.append(path)
    return out


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    lines = path.read_text().splitlines()
    for line in lines[1:] if path.suffix == ".tsv" else lines:
        q, *_, d, g = line.split()
        out.setdefault(q, {})[d] = int(g)
    return out


@pytest.fixture(scope="module", params=["beir", "trec"])
def audited(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    root = tmp_path_factory.mktemp(f"impact_{request.param}")
    d = root / "proj"
    run_cli("init", d, "--admin-password", "pw-for-tests")
    if request.param == "beir":
        beir = make_beir(root / "scifact")
        qids = [f"q{i}" for i in range(1, len(TOPICS) + 1)]
        runs = _runs(root, qids, lambda q, j: f"d{q[1:]}_{j}")
        cli_json("ingest", d, "--beir", beir)
        cli_json("load", d, "--beir", beir, "--split", "test", "--relevant-from", 1,
                 "--guideline", write_guideline(root / "guideline.json"),
                 *[a for r in runs for a in ("--run", f"{r.stem}={r}")])  # fmt: skip
        original, revised = beir / "qrels" / "test.tsv", root / "revised" / "qrels.tsv"
    else:
        trec = make_trec(root / "trec")
        qids = [str(q) for q in range(301, 301 + len(TOPICS))]
        runs = _runs(root, qids, lambda q, j: f"FT{q}-{j}")
        cli_json("ingest", d, "--trec-docs", trec["docs"])
        cli_json("load", d, "--trec-topics", trec["topics"], "--trec-qrels", trec["qrels"],
                 "--relevant-from", 1, *[a for r in runs for a in ("--run", f"{r.stem}={r}")])  # fmt: skip
        original, revised = trec["qrels"], root / "revised" / "qrels.txt"
    c = run_campaign(d, root, cli_json, total=18)
    assert c["finalize"]["changed"] > 0
    return {"dir": d, "root": root, "runs": runs, "original": original, "revised": revised,
            "kind": request.param}  # fmt: skip


def _args(a: dict[str, Any], *extra: Any) -> list[Any]:
    return ["score", "impact", *[x for r in a["runs"] for x in ("--run", r)], "--measure",
            "ndcg_cut_10,map", "--pair", "bm25:dense", "--draws", "500", "--bootstrap", "100",
            *extra]  # fmt: skip


def _strip(rep: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rep.items() if k not in ("qrels", "plot")}


def test_project_finds_its_revision(audited: dict[str, Any]) -> None:
    png = audited["root"] / "impact.png"
    rep = cli_json(*_args(audited, "--project", audited["dir"], "--plot", png))
    assert rep["kind"] == "classic" and "revision, as finalize computes it" in rep["qrels"]["after"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    # The same analysis as on the files finalize wrote, in the original grade scale.
    files = cli_json(*_args(audited, "--qrels-before", audited["original"], "--qrels-after",
                            audited["revised"]))  # fmt: skip
    assert _strip(rep) == _strip(files)
    before, after = _qrels(audited["original"]), _qrels(audited["revised"])
    assert rep["labels_changed"] == sum(
        before[q].get(d) != after.get(q, {}).get(d) for q in before for d in before[q]
    )
    if audited["kind"] == "trec":
        assert -2 in {g for ds in after.values() for g in ds.values()}
    for r in audited["runs"]:
        run: dict[str, dict[str, float]] = {}
        for line in r.read_text().splitlines():
            q, _z, d, _rank, s, _tag = line.split()
            run.setdefault(q, {})[d] = float(s)
        for side, qrels in (("before", before), ("after", after)):
            ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
            want = sum(ev[q]["ndcg_cut_10"] for q in sorted(ev)) / len(ev)
            got = rep["by_measure"]["ndcg_cut_10"]["runs"][r.stem][side]
            assert got == pytest.approx(want, abs=1e-12)
    assert rep["by_measure"]["ndcg_cut_10"]["pairs"][0]["base"] == "bm25"


@pytest.mark.parametrize("name", ["qrels.tsv", "qrels.txt", "qrels.jsonl"])
def test_project_reads_every_revised_file(audited: dict[str, Any], name: str) -> None:
    path = audited["revised"].parent / name
    if not path.exists():
        pytest.skip("a TREC project's revision has no qrels.tsv")
    svg = audited["root"] / f"impact-{name}.svg"
    rep = cli_json(*_args(audited, "--project", audited["dir"], "--qrels-after", path,
                          "--plot", svg))  # fmt: skip
    assert rep["qrels"]["after"] == str(path)
    assert svg.read_text().lstrip().startswith("<?xml")
    whole = cli_json(*_args(audited, "--project", audited["dir"]))
    assert _strip(rep) == _strip(whole)


def test_admin_impact_from_the_stored_runs(audited: dict[str, Any]) -> None:
    from campaign.project import open_project
    from services.impact_admin import admin_impact
    from services.impact_report import ClassicImpactReport

    view = admin_impact(open_project(audited["dir"]))
    assert view.report is not None and view.png is not None and view.png[:4] == b"\x89PNG"
    rep = cli_json("score", "impact", "--project", audited["dir"],
                   *[x for r in audited["runs"] for x in ("--run", r)])  # fmt: skip
    assert view.report.influence_rows() == ClassicImpactReport.from_json(rep).influence_rows()
    assert len(view.report.influence_rows()) == rep["labels_changed"] > 0
    assert _strip(view.report.to_json()) == _strip(rep)


def test_admin_page_shows_the_influence_table(
    audited: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    from campaign.project import open_project
    from services.impact_admin import admin_impact

    if audited["kind"] == "trec":
        pytest.skip("one project is enough for the page")
    app = Path(__file__).resolve().parents[1] / "audit_app" / "streamlit_app.py"
    monkeypatch.setenv("EVAUDIT_PROJECT", str(audited["dir"]))
    at = AppTest.from_file(str(app), default_timeout=120).run()
    at.text_input[0].input("pw-for-tests")
    at.button[0].click().run()
    at.button(key="impact_go").click().run()
    assert not at.exception
    shown = [df.value for df in at.dataframe if "max |change|" in df.value.columns]
    assert len(shown) == 1
    want = admin_impact(open_project(audited["dir"])).report
    assert want is not None
    assert shown[0].to_dict("records") == want.influence_rows()
    assert len(at.get("image")) == 1


def test_a_project_without_a_revision_says_what_to_pass(tmp_path: Path) -> None:
    d, beir = tmp_path / "proj", make_beir(tmp_path / "scifact")
    qids = [f"q{i}" for i in range(1, len(TOPICS) + 1)]
    runs = _runs(tmp_path, qids, lambda q, j: f"d{q[1:]}_{j}")
    run_cli("init", d, "--admin-password", "pw-for-tests")
    cli_json("ingest", d, "--beir", beir)
    cli_json("load", d, "--beir", beir, "--split", "test", "--relevant-from", 1,
             "--guideline", write_guideline(tmp_path / "guideline.json"))  # fmt: skip
    png = tmp_path / "x.png"
    err = run_cli("score", "impact", "--project", d, "--run", runs[0], "--plot", png,
                  expect=2).stderr  # fmt: skip
    assert "cannot recompute the revision with finalize's defaults" in err
    assert "pass --qrels-after" in err and len(err.strip().splitlines()) == 1
    assert not png.exists()
