"""A BEIR folder audited end to end through the real CLI: ingest --beir, load --beir,
initial packet, two simulated annotators, agreement, repair plan, adjudication packet,
three simulated adjudicators, adjudicate, finalize. The revised qrels keep the
original grade scale: a confirmed label keeps its grade (2 stays 2), a demoted one
becomes 0, grades below --relevant-from and unreviewed rows are untouched; BEIR's
own loader reads the revised qrels.tsv."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from beir.datasets.data_loader import GenericDataLoader

from policies.revision import QueryInfo, original_scale
from tests.classic_fixture import TOPICS, make_beir, run_campaign, write_guideline
from tests.conftest import cli_json, run_cli


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("beir_campaign")
    d, beir = root / "proj", make_beir(root / "scifact")
    run_cli("init", d, "--admin-password", "pw-for-tests")
    run = root / "bm25.trec"
    run.write_text(
        "".join(
            f"q{qi} Q0 d{qi}_{j} {j + 1} {10 - j} bm25\n"
            for qi in range(1, len(TOPICS) + 1)
            for j in range(5)
        )
    )
    c: dict[str, Any] = {"dir": d, "beir": beir, "root": root}
    c["ingest"] = cli_json("ingest", d, "--beir", beir)
    c["load"] = cli_json(
        "load", d, "--beir", beir, "--split", "test", "--relevant-from", 1,
        "--guideline", write_guideline(root / "guideline.json"), "--run", f"bm25={run}",
    )  # fmt: skip
    c.update(run_campaign(d, root, cli_json))
    return c


def _tsv(path: Path) -> dict[tuple[str, str], int]:
    lines = path.read_text().splitlines()
    assert lines[0] == "query-id\tcorpus-id\tscore"
    return {(q, d): int(g) for q, d, g in (ln.split("\t") for ln in lines[1:])}


def test_the_audit_runs_on_a_beir_project(campaign: dict[str, Any]) -> None:
    assert campaign["load"]["runs"] == {"bm25": 30}
    assert campaign["initial"]["n_items"] == 20
    assert campaign["audit"]["pairs"] == 20 and campaign["audit"]["incomplete_pairs"] == 0
    assert campaign["plan"]["queued_pairs"] == campaign["adj"]["n_items"] > 0
    fin = campaign["finalize"]
    # One condition per query: the audit can only confirm (1) or demote (1 -> 0).
    assert set(fin["transitions"]) == {"1->0"} and fin["left_gold"] == fin["changed"] > 0


def test_revised_qrels_keep_the_original_grade_scale(campaign: dict[str, Any]) -> None:
    out, beir = campaign["root"] / "revised", campaign["beir"]
    original = _tsv(beir / "qrels" / "test.tsv")
    revised = _tsv(out / "qrels.tsv")
    report = json.loads((out / "report.json").read_text())
    demoted = {(c["query_id"], c["doc_id"]) for c in report["changes"]}
    removed = {r["query_id"] for r in report["removed_queries"]}
    expect = {k: (0 if k in demoted else g) for k, g in original.items() if k[0] not in removed}
    assert revised == expect
    assert 2 in revised.values() and 0 in revised.values()
    assert any(original[k] == 2 for k in demoted) or all(original[k] == 1 for k in demoted)
    # qrels.txt and qrels.jsonl carry the same rows; BEIR's loader reads the revised copy.
    trec = {}
    for line in (out / "qrels.txt").read_text().splitlines():
        q, _z, d, g = line.split()
        trec[(q, d)] = int(g)
    assert (
        trec
        == revised
        == (
            {
                (r["query_id"], r["doc_id"]): r["grade"]
                for r in map(json.loads, (out / "qrels.jsonl").read_text().splitlines())
            }
        )
    )
    loader = GenericDataLoader(data_folder=str(beir), qrels_file=str(out / "qrels.tsv"))
    _c, _q, qrels = loader.load_custom()
    assert {(q, d): g for q, ds in qrels.items() for d, g in ds.items()} == revised
    assert (out / "qrels.after_audit.txt").read_text() == (out / "qrels.txt").read_text()


def test_manifest_records_the_scale_and_hashes(campaign: dict[str, Any]) -> None:
    out = campaign["root"] / "revised"
    manifest = json.loads((out / "manifest.json").read_text())
    scale = manifest["grade_scale"]
    assert (scale["format"], scale["relevant_from"], scale["grades"]) == ("beir", 1, [0, 1, 2])
    assert scale["promote_to"] is None
    assert {(c["query_id"], c["doc_id"]) for c in scale["changes"]} == {
        (c["query_id"], c["doc_id"]) for c in manifest["changes"]
    }
    assert all(c["new_grade"] == 0 and c["old_grade"] in (1, 2) for c in scale["changes"])
    for name in ("qrels.tsv", "qrels.txt", "qrels.jsonl"):
        assert manifest["outputs"][name] == hashlib.sha256((out / name).read_bytes()).hexdigest()
    assert "store:graded_qrels" in manifest["inputs"]
    again = cli_json("finalize", campaign["dir"], "--out", campaign["root"] / "again")
    assert again["outputs"] == campaign["finalize"]["outputs"]


def test_promote_to_is_checked(campaign: dict[str, Any], project: Path) -> None:
    err = run_cli(
        "finalize", campaign["dir"], "--out", campaign["root"] / "x", "--promote-to", 0, expect=2
    ).stderr
    assert "--promote-to 0 is below --relevant-from 1" in err
    assert not (campaign["root"] / "x").exists()
    err = run_cli("finalize", project, "--out", project / "x", "--promote-to", 2, expect=2).stderr
    assert "--promote-to applies to a BEIR or TREC project" in err


def test_original_scale_rule() -> None:
    graded = {("a", "1"): 2, ("a", "2"): 1, ("a", "3"): 0, ("a", "4"): 1, ("b", "1"): 3}
    before = {("a", "1"): 1, ("a", "2"): 1, ("a", "4"): 1, ("b", "1"): 1}  # --relevant-from 1
    after = {("a", "1"): 1, ("a", "3"): 1, ("a", "5"): 1, ("a", "4"): 1, ("b", "1"): 1}
    queries = {"a": QueryInfo(1), "b": QueryInfo(1)}
    rows, changes = original_scale(graded, before, after, queries, {"b"}, 2)
    assert rows == [
        {"query_id": "a", "doc_id": "1", "grade": 2},  # confirmed: keeps its grade
        {"query_id": "a", "doc_id": "2", "grade": 0},  # demoted: 0, the row stays
        {"query_id": "a", "doc_id": "3", "grade": 2},  # judged 0, promoted: promote_to
        {"query_id": "a", "doc_id": "4", "grade": 1},
        {"query_id": "a", "doc_id": "5", "grade": 2},  # unjudged, promoted
    ]
    assert [(c["doc_id"], c["old_grade"], c["new_grade"]) for c in changes] == [
        ("2", 1, 0), ("3", 0, 2), ("5", None, 2),
    ]  # fmt: skip
    with pytest.raises(ValueError):
        original_scale(graded, before, after, queries, set(), None)
