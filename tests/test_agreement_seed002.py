"""The published audit figures of "Do Current Retrievers Cover All the Evidence?" (supplement), reproduced through the CLI on a constructed campaign."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from evaudit.cli import cli
from tests.seed002_campaign import Campaign, build_adjudication, build_initial


def run(*args: str) -> dict[str, Any]:
    res = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return build_initial(tmp_path_factory.mktemp("seed002") / "proj")


def test_initial_audit_table(campaign: Campaign) -> None:
    out = run("agreement", "audit", str(campaign.project.root), "initial", "--raters", "A,E")
    assert out["confusion"] == [[2, 6, 0, 0], [2, 72, 14, 0], [0, 11, 128, 1], [0, 1, 11, 52]]
    ex = out["exact_grade_agreement"]
    assert (ex["count"], ex["total"]) == (254, 300)
    assert round(ex["rate"] * 100, 1) == 84.7
    assert [round(100 * x, 1) for x in ex["wilson95"]] == [80.2, 88.3]
    assert round(out["grade_kappa_linear"], 3) == 0.801
    cond = out["condition_agreement"]
    assert (cond["count"], cond["total"]) == (661, 710)
    assert [round(100 * x, 1) for x in cond["wilson95"]] == [91.0, 94.7]
    assert round(out["condition_kappa"], 3) == 0.795
    assert out["positives"] == {"A": 560, "E": 555}
    assert round(100 * out["page_set_agreement"]["rate"], 1) == 78.7
    assert out["quotes_exact"] == {"count": 2304, "total": 2304}
    assert out["clear_by_all"] == {"count": 300, "total": 300}
    n = out["strata"]["n"]
    assert round(100 * n["2"]["exact_grade_agreement"]["rate"], 1) == 85.3
    assert round(100 * n["3"]["exact_grade_agreement"]["rate"], 1) == 83.6
    rel = out["strata"]["release"]
    assert round(100 * rel["CrossPage"]["exact_grade_agreement"]["rate"], 1) == 81.0
    assert round(100 * rel["SourceShift"]["exact_grade_agreement"]["rate"], 1) == 86.5
    assert set(out["strata"]["source"]) == {
        "World Bank",
        "PMC OA",
        "arXiv",
        "ERIC",
        "Federal Register",
    }


def test_integrity_initial(campaign: Campaign) -> None:
    out = run("integrity", str(campaign.project.root), "initial")
    assert out["ok"] and out["duplicate_streams"] == []
    assert out["streams"]["A"]["positives"] == 560 and out["streams"]["E"]["positives"] == 555
    assert out["totals"]["quotes_exact"] == {"count": 2304, "total": 2304}


def test_repair_adjudicate_finalize_chain(campaign: Campaign, tmp_path: Path) -> None:
    root = str(campaign.project.root)
    queue_path = tmp_path / "queue.json"
    plan = run("repair", "plan", root, "initial", "--raters", "A,E", "--queue-out", str(queue_path))
    assert plan["accepted_increases"] == 50
    assert plan["split_pairs"] == 46 and plan["decrease_pairs"] == 29 and plan["queued_pairs"] == 75
    assert plan["unresolved_conditions"] == {"split": 47, "both_negative": 47, "total": 94}
    assert plan["locked_conditions"] == 86
    queue = json.loads(queue_path.read_text())
    assert queue["format"] == "evaudit-adjudication-queue" and len(queue["pairs"]) == 75

    _sha, extra = build_adjudication(campaign, queue)
    adj = run("agreement", "audit", root, "adjudication")
    assert adj["raters"] == ["A", "E", "F"]
    assert adj["unanimous"]["count"] == 80 and adj["unanimous"]["total"] == 94
    assert adj["positive_votes"] == {"count": 236, "total": 282}
    assert round(adj["fleiss_kappa"], 3) == 0.636
    pw = {k: round(100 * v["rate"], 1) for k, v in adj["pairwise_agreement"].items()}
    assert pw == {"A-E": 86.2, "A-F": 92.6, "E-F": 91.5}
    assert adj["positives"] == {"A": 76, "E": 77, "F": 83}
    integ = run("integrity", root, "adjudication")
    assert integ["totals"]["selected_pages"] == 613
    assert integ["totals"]["quotes_exact"] == {"count": 613, "total": 613}
    assert {k: v["selected_pages"] for k, v in integ["streams"].items()} == {
        "A": 201,
        "E": 214,
        "F": 198,
    }

    # two evidence-aware overrides of majority-negative conditions (J011, J060 in "Do Current Retrievers Cover All the Evidence?" (supplement))
    items = {it["item_id"]: it for it in extra[0]["items"]}
    for iid, ck in extra[0]["overridden"]:
        page = next(c for c in items[iid]["conditions"] if c["condition_key"] == ck)["pages"][0]
        run(
            "override",
            root,
            "adjudication",
            iid,
            ck,
            "--answer",
            "yes",
            "--reason",
            "displayed page states it",
            "--page",
            page["page_key"],
            "--quote",
            page["text"],
        )
    dec = run("adjudicate", root, "adjudication")
    assert dec["unanimous"] == 80 and len(dec["non_unanimous"]) == 14
    assert len(dec["overrides"]) == 2 and all(o["departs_from_majority"] for o in dec["overrides"])
    assert len(dec["gate_blocked"]) == 1  # J061's case: stays partial

    out1, out2 = tmp_path / "rev1", tmp_path / "rev2"
    fin = run("finalize", root, "--out", str(out1))
    assert fin["transitions"] == {"1->2": 37, "2->1": 2, "2->3": 26}
    assert fin["changed"] == 65 and fin["reviewed_pairs"] == 300
    d = fin["transition_detail"]
    assert (d["1->2"]["became_gold"], d["1->2"]["stayed_partial"]) == (36, 1)
    assert d["2->3"]["became_gold"] == 26 and d["2->1"]["left_gold"] == 2
    corr = {
        (r["release"], r["source"]): (r["sampled"], r["corrected"])
        for r in fin["corrections_by_stratum"]
    }
    cross = [v for (rel, _), v in corr.items() if rel == "CrossPage"]
    assert sum(s for s, _ in cross) == 100 and sum(c for _, c in cross) == 20
    assert corr[("SourceShift", "arXiv")] == (50, 13)
    assert corr[("SourceShift", "ERIC")] == (50, 8)
    assert corr[("SourceShift", "Federal Register")] == (50, 13)
    assert corr[("SourceShift", "PMC OA")] == (50, 11)
    assert len(fin["removed_queries"]) == 1
    fin2 = run("finalize", root, "--out", str(out2))
    assert fin2["outputs"] == fin["outputs"]
    for name in ("qrels.txt", "qrels.jsonl", "report.json", "manifest.json"):
        assert (out1 / name).read_bytes() == (out2 / name).read_bytes()
