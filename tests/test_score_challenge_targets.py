"""The challenge stage targets the qrels as revised by the audit: a pair the audit dropped
(1 -> 0) is never a challenge target and never recorded as 0 -> 1 by a challenge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from campaign import store
from evaudit.cli import cli
from tests.audit_fixture import Pair, new_project, page_text, write_journal, write_packet


def run(*args: object) -> dict[str, Any]:
    res = CliRunner().invoke(cli, [*map(str, args), "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _audited(tmp_path: Path) -> Path:
    """q1: d1 (grade 1) dropped to 0 by the audit (both raters no, adjudicators no); g1 gold.
    q2: d2 (grade 1) untouched; g2 gold. Runs put both subsets above the gold in `base`."""
    p1 = Pair("q1", "d1", 2, 1, "R1")
    p2 = Pair("q2", "d2", 2, 1, "R2")
    project = new_project(tmp_path / "p", [p1, p2], [("q1", "g1", 2), ("q2", "g2", 2)])
    g2 = Pair("q2", "g2", 2, 2, "R2")
    sha, items = write_packet(project, "init", "initial", [p1, g2])
    # d1: every condition no for both raters; g2: both support both conditions (other pages,
    # so the two streams are not duplicates of each other).
    for rater, page in (("A", "A"), ("E", "B")):
        both = {"C1": [f"J002-C1-{page}"], "C2": [f"J002-C2-{page}"]}
        write_journal(project, "init", sha, rater, {"J001": {}, "J002": both}, items)  # type: ignore[dict-item]
    queue = tmp_path / "queue.json"
    plan = run("repair", "plan", project.root, "init", "--queue-out", queue)
    assert plan["queued_pairs"] == 1
    asha, aitems = write_packet(project, "adj", "adjudication", [p1], [["C1", "C2"]])
    # Majority no on both conditions (distinct streams: each of A and E supports one).
    votes = {"A": {"C1": ["J001-C1-A"]}, "E": {"C2": ["J001-C2-A"]}, "F": {}}
    for rater, ans in votes.items():
        write_journal(project, "adj", asha, rater, {"J001": ans}, aitems)  # type: ignore[dict-item]
    with store.transaction(project.store_path) as con:
        for doc in ("d1", "g1", "d2", "g2"):
            con.execute(
                "INSERT INTO documents VALUES (?, ?, 'pages', '', 40, '')", [doc, f"{doc}.pdf"]
            )
            for pg in range(1, 41):
                text = page_text(doc, pg)
                con.execute("INSERT INTO pages VALUES (?, ?, ?, ?)", [doc, pg, text, len(text)])
        rows = {
            "base": [("q1", ["d1", "g1"]), ("q2", ["d2", "g2"])],
            "variant": [("q1", ["g1"]), ("q2", ["g2"])],
        }
        pos = 0
        for name, ranked in rows.items():
            for q, docs in ranked:
                for r, d in enumerate(docs, start=1):
                    pos += 1
                    con.execute(
                        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [name, q, d, r, float(10 - r), name, pos],
                    )
    return project.root


def _targets(root: Path, name: str) -> tuple[dict[tuple[str, str], Any], dict[str, Any]]:
    key = json.loads((root / "keys" / f"{name}.key.json").read_text())
    return {(v["query_id"], v["doc_id"]): v for v in key["items"].values()}, key


def test_challenge_targets_the_audit_revised_qrels(tmp_path: Path) -> None:
    root = _audited(tmp_path)
    fin = run("finalize", root, "--out", tmp_path / "o1")
    assert fin["transitions"] == {"1->0": 1}
    common = ["--kind", "challenge", "--base", "base", "--variant", "variant", "--k", "3",
              "--controls", "0", "--min-pages", "2", "--max-pages", "3", "--routes", "lexical"]  # fmt: skip
    run("packet", "build", root, "--name", "ch", *common)  # default: finalize-output
    items, key = _targets(root, "ch")
    assert key["sampling"]["qrels_from"] == "finalize-output"
    assert set(items) == {("q2", "d2")}  # d1 was dropped by the audit: not a subset any more
    assert items[("q2", "d2")]["grade"] == 1 and items[("q2", "d2")]["status"] == "target"
    # The loaded qrels still call d1 a subset: that copy would target it.
    run("packet", "build", root, "--name", "ch_loaded", "--qrels-from", "loaded", *common)
    loaded, _ = _targets(root, "ch_loaded")
    assert set(loaded) == {("q1", "d1"), ("q2", "d2")}
    # --release keeps one release's queries only.
    run("packet", "build", root, "--name", "ch_r1", "--qrels-from", "loaded", "--release", "R1",
        *common)  # fmt: skip
    assert set(_targets(root, "ch_r1")[0]) == {("q1", "d1")}
    res = CliRunner().invoke(cli, ["packet", "build", str(root), "--name", "x", "--release",
                                   "R9", *common])  # fmt: skip
    assert res.exit_code != 0 and "unknown release(s) R9" in res.stderr


def test_no_zero_to_one_after_a_challenge_that_confirms_the_subset(tmp_path: Path) -> None:
    root = _audited(tmp_path)
    common = ["--kind", "challenge", "--base", "base", "--variant", "variant", "--k", "3",
              "--controls", "1", "--min-pages", "2", "--max-pages", "3", "--routes", "lexical"]  # fmt: skip
    run("packet", "build", root, "--name", "ch", *common)
    packet = json.loads((root / "packets" / "ch.json").read_text())
    sha = json.loads((root / "keys" / "ch.key.json").read_text())["packet_sha256"]
    # Every stream supports exactly C1 on a page of its pool: each target stays a subset (1).
    for rater, (a, b) in (("S1", (0, 1)), ("S2", (1, 0))):  # other pages: distinct streams
        answers = {
            it["item_id"]: {
                c["condition_key"]: [c["pages"][at]["page_key"]]
                for c, at in zip(it["conditions"], (a, b), strict=True)
            }
            for it in packet["items"]
        }
        write_journal_from_packet(root, "ch", sha, rater, answers, packet["items"])
    fin = run("finalize", root, "--out", tmp_path / "o2")
    challenge = next(s for s in fin["stages"] if s["stage"] == "challenge:ch")
    assert "0->1" not in challenge["reviewed_transitions"]
    # The streams support both conditions on distinct pages: the target d2 becomes gold.
    assert "0->1" not in fin["transitions"] and fin["transitions"] == {"1->0": 1, "1->2": 1}
    # Transitions split by target and control; one qrels copy per stage.
    by_status = challenge["reviewed_transitions_by_status"]
    assert by_status["target"] == {"1->2": 1} and sum(by_status["control"].values()) == 1
    out = tmp_path / "o2"
    audit_copy = (out / "qrels.after_audit.txt").read_text()
    assert "q1 0 d1" not in audit_copy and "q2 0 d2 1" in audit_copy
    final = (out / "qrels.after_challenge-ch.txt").read_text()
    assert final == (out / "qrels.txt").read_text() and "q2 0 d2 2" in final
    assert set(fin["outputs"]) >= {"qrels.after_audit.txt", "qrels.after_challenge-ch.txt"}


def write_journal_from_packet(
    root: Path, name: str, sha: str, rater: str, answers: dict[str, Any], items: list[Any]
) -> None:
    from campaign.project import open_project

    write_journal(open_project(root), name, sha, rater, answers, items)
