"""The whole audit campaign on the real sample project, through the real CLI.

sample_packets/ -> init, ingest, load -> initial packet -> two simulated annotators ->
agreement audit, integrity, repair plan (queue) -> adjudication packet -> three simulated
adjudicators -> adjudicate, one override -> finalize -> score nclue / compare / impact on
the qrels before and after. The campaign is built once per module; each test checks one
part of it: JSON shapes and the counting invariants that tie the commands together.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from evaudit.cli import cli

SAMPLE = Path(__file__).resolve().parent.parent / "sample_packets"
RUNS = sorted((SAMPLE / "runs").glob("*.trec"))
PAIRS = ("bm25_doc:rrf", "bm25_doc:bm25_page")
# Enough sampled pairs, and enough contested conditions, that the initial audit queues
# several pairs and the three simulated adjudicators do not all answer alike.
PAIRS_N = 30


def invoke(*args: Any, expect: int = 0) -> Result:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == expect, (args, result.output, result.stderr)
    return result


def cli_json(*args: Any) -> dict[str, Any]:
    out = json.loads(invoke(*args, "--json").stdout)
    assert isinstance(out, dict)
    return out


def read_qrels(path: Path) -> dict[tuple[str, str], int]:
    rows = {}
    for line in path.read_text().splitlines():
        qid, _zero, doc, grade = line.split()
        rows[(qid, doc)] = int(grade)
    return rows


def run_args() -> list[str]:
    return [a for f in RUNS for a in ("--run", str(f))]


def latest(journal: Path) -> dict[str, dict[str, Any]]:
    lines = [json.loads(x) for x in journal.read_text().splitlines() if x.strip()]
    return {ln["item_id"]: ln for ln in sorted(lines, key=lambda ln: ln["seq"])}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("workflow")
    d = root / "proj"
    c: dict[str, Any] = {"dir": d, "root": root}
    c["init"] = cli_json("init", d, "--admin-password", "pw-for-tests")
    c["ingest"] = cli_json("ingest", d, "--pdf-dir", SAMPLE / "pdfs", "--workers", "2")
    c["load"] = cli_json(
        "load",
        d,
        "--queries",
        SAMPLE / "queries.jsonl",
        "--qrels",
        SAMPLE / "qrels.txt",
        "--evidence",
        SAMPLE / "evidence.jsonl",
        *[a for f in RUNS for a in ("--run", f"{f.stem}={f}")],
    )
    c["initial"] = cli_json(
        "packet", "build", d, "--name", "initial", "--seed", "7", "--total", str(PAIRS_N)
    )
    c["sim_initial"] = cli_json(
        "responses", "simulate", d, "initial", "--annotators", "A,E", "--seed", "3",
        "--contested", "0.15",
    )  # fmt: skip
    c["audit"] = cli_json("agreement", "audit", d, "initial", "--raters", "A,E")
    c["integrity"] = cli_json("integrity", d, "initial")
    queue = d / "queue.json"
    c["plan"] = cli_json("repair", "plan", d, "initial", "--raters", "A,E", "--queue-out", queue)
    c["queue"] = json.loads(queue.read_text())
    c["adj_packet"] = cli_json(
        "packet", "build", d, "--name", "adjudication", "--kind", "adjudication",
        "--queue", queue, "--seed", "7",
    )  # fmt: skip
    c["sim_adj"] = cli_json(
        "responses", "simulate", d, "adjudication", "--annotators", "F,G,H", "--seed", "1"
    )
    c["audit_adj"] = cli_json("agreement", "audit", d, "adjudication")
    c["integrity_adj"] = cli_json("integrity", d, "adjudication")
    c["adjudicate"] = cli_json("adjudicate", d, "adjudication")
    # One evidence-aware override against a non-unanimous majority.
    target = c["adjudicate"]["non_unanimous"][0]
    args: list[Any] = ["override", d, "adjudication", target["item_id"], target["condition_key"]]
    if target["majority"] == "yes":
        args += ["--answer", "no", "--reason", "the quoted passages do not discuss the condition"]
    else:
        voter = next(v for v, a in sorted(target["votes"].items()) if a == "yes")
        line = latest(d / "journals" / "adjudication" / f"{voter}.jsonl")[target["item_id"]]
        ans = line["conditions"][target["condition_key"]]
        page = ans["pages"][0]
        args += ["--answer", "yes", "--reason", "the page discusses it", "--page", page]
        args += ["--quote", ans["quotes"][page]]
    c["override_target"] = target
    c["override"] = cli_json(*args)
    c["audit_adj_after"] = cli_json("agreement", "audit", d, "adjudication")
    c["adjudicate_after"] = cli_json("adjudicate", d, "adjudication")
    c["finalize"] = cli_json("finalize", d, "--out", root / "revised")
    c["finalize_again"] = cli_json("finalize", d, "--out", root / "revised_again")
    return c


def test_project_and_initial_packet(campaign: dict[str, Any]) -> None:
    assert campaign["ingest"]["documents"] == 20 and campaign["ingest"]["pages"] == 358
    nonzero = [x for x in read_qrels(SAMPLE / "qrels.txt").values() if x > 0]
    assert campaign["load"]["queries"] == 30 and campaign["load"]["qrels"] == len(nonzero)
    assert set(campaign["load"]["runs"]) == {f.stem for f in RUNS}
    assert campaign["initial"]["n_items"] == PAIRS_N
    assert campaign["sim_initial"]["saved"] == {"A": PAIRS_N, "E": PAIRS_N}
    assert campaign["sim_adj"]["saved"] == {
        "F": campaign["adj_packet"]["n_items"],
        "G": campaign["adj_packet"]["n_items"],
        "H": campaign["adj_packet"]["n_items"],
    }


def test_initial_agreement_and_integrity(campaign: dict[str, Any]) -> None:
    audit = campaign["audit"]
    assert audit["pairs"] == PAIRS_N and audit["incomplete_pairs"] == 0
    assert audit["conditions"] == campaign["initial"]["conditions"]
    mat = audit["confusion"]
    assert sum(map(sum, mat)) == audit["pairs"]
    exact = audit["exact_grade_agreement"]
    assert exact["count"] == sum(mat[g][g] for g in range(len(mat)))
    assert exact["total"] == audit["pairs"]
    lo, hi = exact["wilson95"]
    assert lo <= exact["rate"] <= hi
    assert audit["condition_agreement"]["total"] == audit["conditions"]
    assert audit["page_set_agreement"]["total"] == audit["conditions"]
    assert len(audit["pair_grades"]) == audit["pairs"]
    # Realistic: readers mostly agree, but not always.
    assert 0.6 <= exact["rate"] < 1 and 0 < audit["condition_kappa"] < 1
    assert set(audit["strata"]) == {"n", "release", "source"}
    integ = campaign["integrity"]
    assert set(integ["streams"]) == {"A", "E"} and integ["ok"] is True
    for s in integ["streams"].values():
        assert s["structural_errors"] == 0 and s["page_pool_errors"] == 0
        assert s["quotes_exact"]["count"] == s["quotes_exact"]["total"] == s["selected_pages"]
        assert s["positives"] + s["negatives"] == audit["conditions"]
    assert audit["quotes_exact"]["count"] == audit["quotes_exact"]["total"]
    assert audit["positives"] == {k: v["positives"] for k, v in integ["streams"].items()}


def test_repair_plan_counts_add_up(campaign: dict[str, Any]) -> None:
    plan, queue = campaign["plan"], campaign["queue"]
    assert plan["queued_pairs"] == plan["split_pairs"] + plan["decrease_pairs"]
    unresolved = plan["unresolved_conditions"]
    assert unresolved["total"] == unresolved["split"] + unresolved["both_negative"]
    assert (
        plan["accepted_increases"] + plan["queued_pairs"] + plan["unchanged_pairs"]
        == plan["pairs"]
        == PAIRS_N
    )
    assert queue["format"] == "evaudit-adjudication-queue"
    assert len(queue["pairs"]) == plan["queued_pairs"]
    reasons = [p["reason"] for p in queue["pairs"]]
    assert reasons.count("split") == plan["split_pairs"]
    assert reasons.count("decrease") == plan["decrease_pairs"]
    assert sum(len(p["unresolved"]) for p in queue["pairs"]) == unresolved["total"]
    assert sum(len(p["locked"]) for p in queue["pairs"]) == plan["locked_conditions"]
    # This seed exercises every branch the sample can: an increase, splits, decreases.
    assert plan["accepted_increases"] >= 1
    assert plan["split_pairs"] >= 1 and plan["decrease_pairs"] >= 1
    adj = campaign["adj_packet"]
    assert adj["kind"] == "adjudication" and adj["n_items"] == plan["queued_pairs"]
    assert adj["conditions"] == unresolved["total"]


def test_adjudication_votes_override_and_decisions(campaign: dict[str, Any]) -> None:
    n_cond = campaign["plan"]["unresolved_conditions"]["total"]
    audit = campaign["audit_adj"]
    assert audit["conditions"] == n_cond and audit["pairs"] == campaign["plan"]["queued_pairs"]
    assert set(audit["pairwise_agreement"]) == {"F-G", "F-H", "G-H"}
    assert campaign["integrity_adj"]["ok"] is True
    before = campaign["adjudicate"]
    assert before["voters"] == ["F", "G", "H"] and before["conditions"] == n_cond
    assert len(before["non_unanimous"]) == n_cond - audit["unanimous"]["count"] >= 1
    assert before["final_positive"] + before["final_negative"] + len(before["undecided"]) == n_cond
    # The override is logged, decides its condition, and is never a vote.
    target = campaign["override_target"]
    after = campaign["adjudicate_after"]
    assert campaign["audit_adj_after"] == audit
    [ov] = after["overrides"]
    assert ov["departs_from_majority"] is True
    entry = next(
        x
        for x in after["non_unanimous"]
        if (x["item_id"], x["condition_key"]) == (target["item_id"], target["condition_key"])
    )
    assert entry["votes"] == target["votes"] and entry["majority"] == target["majority"]
    assert entry["path"] == "override" and entry["final"] != target["majority"]
    assert after["final_positive"] - before["final_positive"] == (
        1 if entry["final"] == "yes" else -1
    )


def test_finalize_outputs_and_invariants(campaign: dict[str, Any]) -> None:
    fin, root = campaign["finalize"], campaign["root"]
    out = root / "revised"
    assert sum(fin["transitions"].values()) == fin["changed"] >= 1
    for key, detail in fin["transition_detail"].items():
        assert detail["count"] == fin["transitions"][key]
    assert fin["reviewed_pairs"] == PAIRS_N and fin["pending"] == []
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["changes"]) == fin["changed"]
    assert manifest["removed_queries"] == fin["removed_queries"]
    # Every path starts at the initial audit; adjudicated ones name the adjudication.
    assert all(c["path"].startswith("audit:initial:") for c in manifest["changes"])
    target = campaign["override_target"]
    [pair] = [p for p in campaign["adjudicate_after"]["pairs"] if p["item_id"] == target["item_id"]]
    assert "override" in pair["paths"]
    entry = [c for c in manifest["changes"] if (c["query_id"], c["doc_id"]) == (
        target["query_id"], target["doc_id"])]  # fmt: skip
    if pair["new_grade"] != pair["old_grade"]:
        assert "override" in entry[0]["path"]
    else:
        assert entry == []
    for name, digest in fin["outputs"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    for name, digest in manifest["outputs"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    # Byte-identical on a rerun.
    for name in ("qrels.txt", "qrels.jsonl", "report.json", "manifest.json"):
        assert (out / name).read_bytes() == (root / "revised_again" / name).read_bytes()
    assert {**campaign["finalize_again"], "out": None} == {**fin, "out": None}
    # TREC and JSONL agree.
    trec = read_qrels(out / "qrels.txt")
    jsonl = {
        (r["query_id"], r["doc_id"]): r["grade"]
        for r in map(json.loads, (out / "qrels.jsonl").read_text().splitlines())
    }
    assert trec == jsonl and len(trec) == fin["qrels_rows"]


def label_diff(campaign: dict[str, Any]) -> set[tuple[str, str]]:
    before = read_qrels(SAMPLE / "qrels.txt")
    after = read_qrels(campaign["root"] / "revised" / "qrels.txt")
    return {k for k in before.keys() | after.keys() if before.get(k, 0) != after.get(k, 0)}


def test_revised_qrels_differ_exactly_on_the_manifest(campaign: dict[str, Any]) -> None:
    before = read_qrels(SAMPLE / "qrels.txt")
    after = read_qrels(campaign["root"] / "revised" / "qrels.txt")
    manifest = json.loads((campaign["root"] / "revised" / "manifest.json").read_text())
    changed = {(c["query_id"], c["doc_id"]): c for c in manifest["changes"]}
    removed = {r["query_id"]: r for r in manifest["removed_queries"]}
    for (qid, doc), c in changed.items():
        assert before.get((qid, doc), 0) == c["old_grade"] != c["new_grade"]
        if qid not in removed:
            assert after.get((qid, doc), 0) == c["new_grade"]
    for qid, r in removed.items():
        gone = [k for k in before if k[0] == qid]
        assert len(gone) == r["qrels_removed"] and not any(k[0] == qid for k in after)
    expected = set(changed) | {k for k in before if k[0] in removed}
    assert label_diff(campaign) == expected


def test_scoring_before_and_after(campaign: dict[str, Any], tmp_path: Path) -> None:
    d, root = campaign["dir"], campaign["root"]
    revised = root / "revised" / "qrels.txt"
    fin = campaign["finalize"]
    removed = {r["query_id"] for r in fin["removed_queries"]}
    quick = ["--bootstrap", "200"]
    before = cli_json("score", "nclue", "--project", d, *run_args(), *quick)
    assert before["queries"] == 30 and set(before["runs"]) == {f.stem for f in RUNS}
    for r in before["runs"].values():
        assert sum(r["outcomes"].values()) == 30
        assert r["nclue"] == r["outcomes"]["gold_first"] / 30
        lo, hi = r["ci95"]["nclue"]
        assert lo <= r["nclue"] <= hi
    # The same numbers from the sample files as from the project's store.
    files = cli_json(
        "score", "nclue", "--queries", SAMPLE / "queries.jsonl", "--qrels", SAMPLE / "qrels.txt",
        *run_args(), *quick,
    )  # fmt: skip
    assert files["runs"] == before["runs"]
    # With the original query file, removed queries count as misses.
    after_all = cli_json("score", "nclue", "--project", d, "--qrels", revised, *run_args(), *quick)
    assert after_all["queries_without_gold"] == len(removed)
    # finalize writes the kept queries next to the revised qrels.
    kept = root / "revised" / "queries.jsonl"
    kept_ids = [json.loads(line)["query_id"] for line in kept.read_text().splitlines()]
    all_ids = [
        json.loads(line)["query_id"] for line in (SAMPLE / "queries.jsonl").read_text().splitlines()
    ]
    assert kept_ids == [q for q in all_ids if q not in removed]
    after = cli_json("score", "nclue", "--queries", kept, "--qrels", revised, *run_args(), *quick)
    assert after["queries"] == 30 - len(removed) and after["queries_without_gold"] == 0

    pairs = [a for p in PAIRS for a in ("--pair", p)]
    for qrels in (SAMPLE / "qrels.txt", revised):
        comp = cli_json(
            "score", "compare", "--project", d, "--qrels", qrels, *run_args(), *pairs,
            "--draws", "2000", *quick,
        )  # fmt: skip
        assert [(p["base"], p["variant"]) for p in comp["pairs"]] == [
            tuple(p.split(":")) for p in PAIRS
        ]
        for p in comp["pairs"]:
            for m, diff in p["diff"].items():
                assert diff == pytest.approx(p["variant_scores"][m] - p["base_scores"][m])
                assert 0 < p["p"][m] <= p["p_holm"][m] <= 1
            assert sum(p["base_mpg"].values()) == pytest.approx(1)

    impact = cli_json(
        "score", "impact", "--project", d, "--qrels-after", revised, *run_args(),
        "--pair", PAIRS[0], "--draws", "2000",
    )  # fmt: skip
    assert impact["queries"] == {"before": 30, "after": 30 - len(removed)}
    # Impact's label count is the manifest's changed pairs plus the removed queries' rows.
    assert impact["labels_changed"] == impact["labels"]["changed"] == len(label_diff(campaign))
    assert impact["labels"]["nonzero_after"] == fin["qrels_rows"]
    for name, r in impact["runs"].items():
        for m in ("nclue", "gold_hit", "gold_ndcg", "ndcg"):
            assert r["before"][m] == pytest.approx(before["runs"][name][m], abs=1e-12)
            assert r["after"][m] == pytest.approx(after["runs"][name][m], abs=1e-12)
            assert r["delta"][m] == pytest.approx(r["after"][m] - r["before"][m], abs=1e-12)
    order = impact["ordering"]
    assert set(order["rank_before"]) == set(order["rank_after"]) == {f.stem for f in RUNS}
    [pair] = impact["pairs"]
    assert (pair["base"], pair["variant"]) == tuple(PAIRS[0].split(":"))


def test_simulate_refuses_existing_journal_and_unknown_packet(campaign: dict[str, Any]) -> None:
    d = campaign["dir"]
    journal = d / "journals" / "adjudication" / "F.jsonl"
    size = journal.stat().st_size
    res = invoke("responses", "simulate", d, "adjudication", "--annotators", "X,F", expect=2)
    assert "journal already exists" in res.stderr and "F.jsonl" in res.stderr
    assert journal.stat().st_size == size
    assert not (d / "journals" / "adjudication" / "X.jsonl").exists()
    res = invoke("responses", "simulate", d, "nosuch", "--annotators", "X", expect=2)
    assert "no packet named 'nosuch'" in res.stderr
    res = invoke("responses", "simulate", d, "initial", "--annotators", "A/B", expect=2)
    assert "annotator names" in res.stderr


def test_finalize_runs_down_the_layers_only(campaign: dict[str, Any], tmp_path: Path) -> None:
    """Followed through the code as it runs, finalize enters each module once per call
    path and never calls back up a layer (issue 27's done-when)."""
    from services.finalize import finalize
    from tests.call_paths import trace_calls

    with trace_calls() as trace:
        finalize(campaign["dir"], tmp_path / "revised")
    assert trace.up_calls == set()
    assert trace.reentries == set()
    assert {"services", "audit_chain", "campaign", "vocabulary"} <= set(trace.packages())
