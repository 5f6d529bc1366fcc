"""`evaudit reproduce MANIFEST --record / --verify` on the sample benchmark."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLE, run_cli

COMMANDS = [
    {"argv": ["evaudit", "runs", "fuse", "--run", "runs/bm25_doc.trec", "--run",
              "runs/bm25_page.trec", "--out", "out/rrf.trec", "--tag", "rrf", "--json"],
     "stdout": "out/fuse.json"},
    {"argv": ["evaudit", "queries", "render", "--queries", "queries.jsonl", "--form",
              "clean_v2", "--out", "out/clean_v2.jsonl"]},
    {"argv": ["evaudit", "score", "nclue", "--queries", "queries.jsonl", "--qrels", "qrels.txt",
              "--run", "out/rrf.trec", "--bootstrap", "50", "--json"],
     "stdout": "out/score.json"},
]  # fmt: skip
OUTPUTS = ["out/fuse.json", "out/rrf.trec", "out/clean_v2.jsonl", "out/score.json"]
INPUTS = ["queries.jsonl", "qrels.txt", "runs/bm25_doc.trec", "runs/bm25_page.trec"]


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("release")
    for rel in INPUTS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLE / rel, root / rel)
    manifest = {
        "version": 1,
        "inputs": [{"path": p} for p in INPUTS],
        "commands": COMMANDS,
        "outputs": [{"path": p} for p in OUTPUTS],
    }
    (root / "MANIFEST.json").write_text(json.dumps(manifest))
    rep = json.loads(run_cli("reproduce", root / "MANIFEST.json", "--record", "--json").stdout)
    assert rep["ok"] and rep["differing"] == []
    return root


def _verify(root: Path, expect: int) -> dict:
    return json.loads(
        run_cli("reproduce", root / "MANIFEST.json", "--verify", "--json", expect=expect).stdout
    )


def test_record_writes_hashes_and_outputs_then_verify_passes(release: Path) -> None:
    m = json.loads((release / "MANIFEST.json").read_text())
    assert [o["path"] for o in m["outputs"]] == OUTPUTS
    assert all(len(e["sha256"]) == 64 for e in m["inputs"] + m["outputs"])
    assert all((release / p).is_file() for p in OUTPUTS)
    assert json.loads((release / "out/fuse.json").read_text())["rows"] > 0
    rep = _verify(release, 0)
    assert rep["ok"] and [c["exit_code"] for c in rep["commands"]] == [0, 0, 0]
    assert all(o["actual"] == o["expected"] == o["release"] for o in rep["outputs"])


@pytest.mark.parametrize("output", OUTPUTS)
def test_a_one_byte_change_in_any_output_is_caught(release: Path, output: str) -> None:
    path = release / output
    original = path.read_bytes()
    changed = bytearray(original)
    changed[len(changed) // 2] ^= 0x01
    path.write_bytes(bytes(changed))
    try:
        rep = _verify(release, 1)
    finally:
        path.write_bytes(original)
    assert rep["differing"] == [output] and not rep["ok"]
    res = run_cli("reproduce", release / "MANIFEST.json")
    assert res.stdout.strip().endswith("4/4 outputs match")


def test_a_regenerated_output_that_differs_from_the_manifest_is_caught(release: Path) -> None:
    work = release.parent / "release_copy"
    shutil.copytree(release, work)
    m = json.loads((work / "MANIFEST.json").read_text())
    # The fusion now uses CombSUM: regenerated rrf.trec and fuse.json differ from the record.
    m["commands"][0]["argv"] += ["--method", "combsum"]
    (work / "MANIFEST.json").write_text(json.dumps(m))
    rep = _verify(work, 1)
    assert rep["differing"][:2] == ["out/fuse.json", "out/rrf.trec"]
    assert "out/clean_v2.jsonl" not in rep["differing"]
    assert all(o["release"] == o["expected"] for o in rep["outputs"])
    text = run_cli("reproduce", work / "MANIFEST.json", "--verify", expect=1).stdout
    assert "differs output out/rrf.trec" in text and "NOT OK: " in text


def test_changed_input_stops_before_any_command(release: Path) -> None:
    work = release.parent / "release_input"
    shutil.copytree(release, work)
    with (work / "qrels.txt").open("a") as fh:
        fh.write("q001 0 extra 1\n")
    rep = _verify(work, 1)
    assert rep["commands"] == [] and rep["differing"] == ["qrels.txt"]


def test_bad_manifests_are_refused(tmp_path: Path) -> None:
    def refused(manifest: dict, needle: str) -> None:
        (tmp_path / "m.json").write_text(json.dumps(manifest))
        res = run_cli("reproduce", tmp_path / "m.json", "--verify", expect=2)
        assert needle in res.stderr and not res.stdout

    out = [{"path": "x", "sha256": "0" * 64}]
    refused({"version": 1, "commands": [{"argv": ["python", "x.py"]}], "outputs": out},
            "only evaudit commands")  # fmt: skip
    refused({"version": 1, "commands": [{"argv": ["evaudit", "status"]}],
             "outputs": [{"path": "../x", "sha256": "0" * 64}]}, "leaves the manifest")  # fmt: skip
    refused({"version": 1, "commands": [{"argv": ["evaudit", "status"]}],
             "outputs": [{"path": "x"}]}, "no 'sha256'")  # fmt: skip
    refused({"commands": []}, '"version": 1')


def test_manifest_for_a_command_just_run_verifies(tmp_path: Path) -> None:
    from formats.manifest import manifest_for, write_manifest

    for rel in ("runs/bm25_doc.trec", "runs/bm25_page.trec"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLE / rel, tmp_path / rel)
    argv = ["evaudit", "runs", "fuse", "--run", "runs/bm25_doc.trec", "--run",
            "runs/bm25_page.trec", "--out", "rrf.trec"]  # fmt: skip
    run_cli(*argv[1:4], tmp_path / argv[4], argv[5], tmp_path / argv[6], "--out",
            tmp_path / "rrf.trec")  # fmt: skip
    m = manifest_for(tmp_path, argv, [tmp_path / "runs/bm25_doc.trec",
                     tmp_path / "runs/bm25_page.trec"], [tmp_path / "rrf.trec"])  # fmt: skip
    assert [e.path for e in m.outputs] == ["rrf.trec"]
    write_manifest(tmp_path / "MANIFEST.json", m)
    assert _verify(tmp_path, 0)["ok"]
    from vocabulary.errors import InputError

    with pytest.raises(InputError, match="outside the manifest"):
        manifest_for(tmp_path / "runs", argv, [tmp_path / "rrf.trec"], [])
