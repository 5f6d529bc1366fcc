"""`finalize --manifest-out` and `score nclue --manifest-out`: the manifest of what the
command just did verifies with `evaudit reproduce --verify`, and a one-byte change in any
output is reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLE, run_cli
from tests.test_finalize_decisions import _campaign


def _verify(manifest: Path, expect: int) -> dict:
    res = run_cli("reproduce", manifest, "--verify", "--json", expect=expect)
    return json.loads(res.stdout)


def _flip_each(manifest: Path) -> None:
    """Every output: one flipped byte -> verify fails naming exactly that output."""
    outputs = [o["path"] for o in json.loads(manifest.read_text())["outputs"]]
    assert outputs
    for rel in outputs:
        path = manifest.parent / rel
        original = path.read_bytes()
        changed = bytearray(original)
        changed[len(changed) // 2] ^= 0x01
        path.write_bytes(bytes(changed))
        try:
            rep = _verify(manifest, 1)
        finally:
            path.write_bytes(original)
        assert rep["differing"] == [rel] and not rep["ok"]
    assert _verify(manifest, 0)["ok"]


def test_finalize_manifest_verifies_and_catches_a_changed_output(tmp_path: Path) -> None:
    root, _ = _campaign(tmp_path)
    manifest = tmp_path / "finalize.manifest.json"
    out = json.loads(run_cli("finalize", root, "--out", tmp_path / "final", "--manifest-out",
                             manifest, "--json").stdout)  # fmt: skip
    m = json.loads(manifest.read_text())
    assert m["commands"] == [{"argv": ["evaudit", "finalize", "p", "--out", "final", "--json"]}]
    assert sorted(o["path"] for o in m["outputs"]) == sorted(f"final/{n}" for n in out["outputs"])
    ins = {e["path"] for e in m["inputs"]}
    assert {"p/project.json", "p/audit.duckdb"} <= ins
    assert any(p.startswith("p/journals/adj/") for p in ins)
    assert not any(p.startswith("final/") for p in ins)
    rep = _verify(manifest, 0)
    assert rep["ok"] and len(rep["outputs"]) == len(out["outputs"])
    _flip_each(manifest)


def test_finalize_manifest_outside_its_folder_is_refused_before_writing(tmp_path: Path) -> None:
    root, _ = _campaign(tmp_path)
    res = run_cli("finalize", root, "--out", tmp_path / "final", "--manifest-out",
                  tmp_path / "sub" / "m.json", expect=2)  # fmt: skip
    assert "outside the manifest's folder" in res.stderr
    assert not (tmp_path / "final").exists()


@pytest.mark.parametrize("as_json", [True, False])
def test_score_nclue_manifest_verifies_and_catches_a_changed_output(
    tmp_path: Path, as_json: bool
) -> None:
    for rel in ("queries.jsonl", "qrels.txt", "runs/bm25_doc.trec", "runs/rrf.trec"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLE / rel, tmp_path / rel)
    manifest = tmp_path / "score.json"
    args = ["score", "nclue", "--queries", tmp_path / "queries.jsonl", "--qrels",
            tmp_path / "qrels.txt", "--run", tmp_path / "runs/bm25_doc.trec", "--run",
            f"fused={tmp_path / 'runs/rrf.trec'}", "--bootstrap", "40", "--per-query",
            tmp_path / "pq.tsv", "--manifest-out", manifest]  # fmt: skip
    printed = run_cli(*args, *(["--json"] if as_json else [])).stdout
    assert (tmp_path / "score.stdout").read_text() == printed
    m = json.loads(manifest.read_text())
    (cmd,) = m["commands"]
    assert cmd["stdout"] == "score.stdout"
    assert cmd["argv"][:3] == ["evaudit", "score", "nclue"]
    assert "fused=runs/rrf.trec" in cmd["argv"] and "--manifest-out" not in cmd["argv"]
    assert [o["path"] for o in m["outputs"]] == ["pq.tsv", "score.stdout"]
    assert {e["path"] for e in m["inputs"]} == {
        "queries.jsonl",
        "qrels.txt",
        "runs/bm25_doc.trec",
        "runs/rrf.trec",
    }
    assert _verify(manifest, 0)["ok"]
    _flip_each(manifest)
