"""End to end on the sample project: the whole campaign of tests/test_workflow_sample.py,
then `finalize --manifest-out` and `score nclue --project ... --manifest-out` (the run
files copied under the manifest's folder) verify with `evaudit reproduce --verify`, and
a one-byte change in any output is reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import SAMPLE, run_cli
from tests.test_reproduce_commands import _flip_each, _verify
from tests.test_workflow_sample import campaign  # noqa: F401  (the module's fixture)


def test_finalize_and_score_manifests_on_the_sample_campaign(
    campaign: dict[str, Any],  # noqa: F811
) -> None:
    root: Path = campaign["root"]
    fin_m = root / "finalize.manifest.json"
    run_cli("finalize", campaign["dir"], "--out", root / "release", "--manifest-out", fin_m)
    m = json.loads(fin_m.read_text())
    assert m["commands"][0]["argv"] == ["evaudit", "finalize", "proj", "--out", "release"]
    assert any(e["path"].startswith("proj/journals/") for e in m["inputs"])
    assert "release/qrels.txt" in {o["path"] for o in m["outputs"]}
    assert _verify(fin_m, 0)["ok"]
    _flip_each(fin_m)

    (root / "runs").mkdir(exist_ok=True)
    for name in ("bm25_doc.trec", "rrf.trec"):
        shutil.copyfile(SAMPLE / "runs" / name, root / "runs" / name)
    score_m = root / "score.manifest.json"
    run_cli("score", "nclue", "--project", campaign["dir"], "--qrels", root / "release/qrels.txt",
            "--run", root / "runs/bm25_doc.trec", "--run", root / "runs/rrf.trec",
            "--bootstrap", "30", "--manifest-out", score_m, "--json")  # fmt: skip
    m = json.loads(score_m.read_text())
    assert {e["path"] for e in m["inputs"]} == {"release/qrels.txt", "proj/project.json",
        "proj/audit.duckdb", "runs/bm25_doc.trec", "runs/rrf.trec"}  # fmt: skip
    assert _verify(score_m, 0)["ok"]
    _flip_each(score_m)
