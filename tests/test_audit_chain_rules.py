"""Issue 21: the gate-only split rule end to end, queue checks, explicit raters, exit codes.

Real DuckDB project, real page store (`evaudit ingest --pages`), real packet builder,
the CLI in process. Initial packets and journals come from tests/audit_fixture.py so the
physical pages behind every answer are exact.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from evaudit.cli import cli
from scorers.runs.tables import _num, _p
from tests.audit_fixture import Pair, new_project, page_text, write_journal, write_packet

SHARED = 50  # a physical page shown under two conditions


def invoke(*args: Any) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def run_json(*args: Any) -> dict[str, Any]:
    res = invoke(*args, "--json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _pairs() -> list[Pair]:
    shared3 = {"C2": [21, 22, SHARED], "C3": [31, 32, SHARED]}
    shared2 = {"C1": [11, 12, SHARED], "C2": [21, 22, SHARED]}
    return [
        Pair("q1", "d1", 3, 3, pools=shared3),  # gate-only split at the benchmark grade
        Pair("q2", "d2", 3, 2, pools=shared3),  # gate-only split above it
        Pair("q3", "d3", 2, 2, pools=shared2),  # both cite both on one page: gate fails
        Pair("q4", "d4", 2, 1),  # an ordinary split
    ]


# rater -> item -> condition -> page letters (A/B/C = the pool's 1st/2nd/3rd page)
ANSWERS: dict[str, dict[str, dict[str, str]]] = {
    "alice": {
        "J001": {"C1": "A", "C2": "A", "C3": "A"},
        "J002": {"C1": "A", "C2": "A", "C3": "A"},
        "J003": {"C1": "C", "C2": "C"},
        "J004": {"C1": "A", "C2": "A"},
    },
    "bob": {
        "J001": {"C1": "A", "C2": "C", "C3": "C"},  # C2 and C3 both on page 50: grade 2
        "J002": {"C1": "A", "C2": "C", "C3": "C"},
        "J003": {"C1": "C", "C2": "C"},
        "J004": {"C1": "A"},
    },
}


def _campaign(tmp_path: Path, extra: dict[str, dict[str, dict[str, str]]] | None = None) -> Path:
    pairs = _pairs()
    project = new_project(tmp_path / "p", pairs)
    pages = tmp_path / "pages.jsonl"
    pages.write_text(
        "".join(
            json.dumps({"doc_id": p.doc_id, "page": n, "text": page_text(p.doc_id, n)}) + "\n"
            for p in pairs
            for n in range(1, 61)
        )
    )
    res = invoke("ingest", project.root, "--pages", pages, "--json")
    assert res.exit_code == 0, res.output
    sha, items = write_packet(project, "init", "initial", pairs)
    for rater, by_item in {**ANSWERS, **(extra or {})}.items():
        answers = {
            item: {ck: [f"{item}-{ck}-{x}"] for ck, x in conds.items()}
            for item, conds in by_item.items()
        }
        write_journal(project, "init", sha, rater, answers, items)  # type: ignore[arg-type]
    return project.root


def _files(root: Path) -> list[str]:
    return sorted(p.name for d in ("packets", "keys") for p in (root / d).iterdir())


def test_gate_only_split_runs_through_plan_build_and_finalize(tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    queue = tmp_path / "queue.json"
    plan = run_json("repair", "plan", root, "init", "--raters", "alice,bob", "--queue-out", queue)
    by = {d["query_id"]: d for d in plan["decisions"]}
    # Same conditions supported; grades 3 vs 2 only through the gate; the union of their
    # pages (C1 11, C2 {21, 50}, C3 {31, 50}) has an assignment: consensus 3.
    assert by["q1"]["grades"] == {"alice": 3, "bob": 2}
    assert (by["q1"]["action"], by["q1"]["consensus_grade"]) == ("unchanged", 3)
    assert (by["q2"]["action"], by["q2"]["new_grade"]) == ("accept_increase", 3)
    # Both cite both conditions on page 50 only: consensus 1 < 2, and the locked conditions
    # are opened for page adjudication (nothing else to adjudicate).
    assert by["q3"]["action"] == "decrease" and by["q3"]["unresolved"] == []
    assert by["q3"]["page_adjudication"] == ["q3-c1", "q3-c2"]
    assert by["q4"]["action"] == "split" and by["q4"]["unresolved"] == ["q4-c2"]
    assert plan["gate_only_splits"] == 2 and plan["queued_pairs"] == 2
    entries = json.loads(queue.read_text())["pairs"]
    assert all(e["unresolved"] or e["page_adjudication"] for e in entries)

    build = run_json(
        "packet", "build", root, "--name", "adj", "--kind", "adjudication", "--queue", queue,
        "--min-pages", "6", "--max-pages", "9",
    )  # fmt: skip
    assert build["n_items"] == 2 and build["conditions"] == 3
    packet = json.loads((root / "packets" / "adj.json").read_text())
    key = json.loads((root / "keys" / "adj.key.json").read_text())
    item_of = {v["query_id"]: k for k, v in key["items"].items()}
    j3, j4 = item_of["q3"], item_of["q4"]

    def not_shared(item: str, ck: str) -> list[str]:
        pages = key["items"][item]["conditions"][ck]["pages"]
        return sorted(k for k, v in pages.items() if v["page"] != SHARED)

    # Page adjudication of q3 finds nothing new (every "no"): the locked support stays, the
    # gate still fails -> 1, never 0. q4's C2 gets a majority yes -> 2.
    votes = {
        "F": {j3: {}, j4: {"C2": not_shared(j4, "C2")[:1]}},
        "G": {j3: {}, j4: {"C2": not_shared(j4, "C2")[1:2]}},
        "H": {j3: {}, j4: {}},
    }
    for name, ans in votes.items():
        write_journal(root_project(root), "adj", build["sha256"], name, ans, packet["items"])
    out = run_json("finalize", root, "--out", tmp_path / "rev")  # no --allow-pending
    assert out["pending"] == []
    assert out["transitions"] == {"1->2": 1, "2->1": 1, "2->3": 1}
    changes = {
        c["query_id"]: c
        for c in json.loads((tmp_path / "rev" / "manifest.json").read_text())["changes"]
    }
    assert changes["q2"]["path"] == "audit:init:consensus_increase"
    assert (changes["q3"]["old_grade"], changes["q3"]["new_grade"]) == (2, 1)
    assert "q1" not in changes
    adj = run_json("adjudicate", root, "adj")
    assert adj["gate_blocked"] == [j3]
    # Now F and G find both q3 conditions on one other page p. With the locked page 50 the
    # union has an assignment (C1 50, C2 p): q3 stays gold. Adjudication adds pages; it does
    # not replace the raters' (p alone for both would fail the gate again).
    c1, c2 = (key["items"][j3]["conditions"][ck]["pages"] for ck in ("C1", "C2"))
    common = sorted({v["page"] for v in c1.values()} & {v["page"] for v in c2.values()} - {SHARED})
    assert common, "the two q3 pools share a page besides 50"
    pick = {
        ck: [k for k, v in pg.items() if v["page"] == common[0]]
        for ck, pg in (("C1", c1), ("C2", c2))
    }
    for name in ("F", "G"):
        (root / "journals" / "adj" / f"{name}.jsonl").unlink()
        ans = {**votes[name], j3: pick}
        write_journal(root_project(root), "adj", build["sha256"], name, ans, packet["items"])
    again = run_json("finalize", root, "--out", tmp_path / "rev2")
    assert again["transitions"] == {"1->2": 1, "2->3": 1}  # q3 keeps its grade 2


def root_project(root: Path) -> Any:
    from campaign.project import open_project

    return open_project(root)


def test_hand_edited_queue_is_refused_with_every_disagreement(tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    queue = tmp_path / "queue.json"
    run_json("repair", "plan", root, "init", "--raters", "alice,bob", "--queue-out", queue)
    obj = json.loads(queue.read_text())
    edited = [dict(e) for e in obj["pairs"] if e["query_id"] != "q3"]  # drop a queued pair
    edited[0]["reason"] = "decrease"  # q4 is a split
    edited.append(  # q1 is not queued by the plan
        {"query_id": "q1", "doc_id": "d1", "reason": "split", "unresolved": ["q1-c2"],
         "locked": [], "page_adjudication": []}
    )  # fmt: skip
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps({**obj, "pairs": edited}))
    before = _files(root)
    res = invoke("packet", "build", root, "--name", "adj", "--kind", "adjudication", "--queue", bad)
    assert res.exit_code == 2 and "Traceback" not in res.output
    err = res.stderr
    assert "disagrees with the repair plan of packet 'init' (raters alice,bob) in 4 place(s)" in err
    assert "edited after `repair plan` wrote the queue" in err
    assert "q4 / d4: reason 'decrease', but the repair plan" in err and "says 'split'" in err
    assert "pairs[1] q1 / d1 is not queued by the repair plan" in err
    assert (
        "q3 / d3 is queued by the repair plan of packet 'init' (raters alice,bob) but missing"
        in err
    )
    assert _files(root) == before  # nothing written
    # A queue with no plan block (hand-made, or an old version) is refused too.
    legacy = tmp_path / "legacy.json"
    legacy.write_text(json.dumps({k: v for k, v in obj.items() if k != "plan"} | {"version": 1}))
    res = invoke(
        "packet", "build", root, "--name", "adj", "--kind", "adjudication", "--queue", legacy
    )
    assert res.exit_code == 2 and "names no repair plan" in res.stderr
    # The untouched queue builds.
    res = invoke(
        "packet", "build", root, "--name", "adj", "--kind", "adjudication", "--queue", queue
    )
    assert res.exit_code == 0, res.output


def test_four_annotators_with_and_without_raters(tmp_path: Path) -> None:
    """Issue 31: only complete streams count unless chosen; the choice is stored and every
    later flag must agree with it (or the choice is made again with `evaudit raters`)."""
    late = {"carol": {"J004": {"C1": "A", "C2": "A"}}, "dave": {"J004": {"C1": "A", "C2": "B"}}}
    root = _campaign(tmp_path, late)
    (root / "journals" / "init" / "erin.jsonl").write_text("")  # added, nothing saved yet
    out = run_json("agreement", "audit", root, "init")
    assert out["raters"] == ["alice", "bob"]  # carol and dave answered 1 of 4 items
    assert out["raters_chosen_by"] == "the two complete streams"
    assert out["raters_stored"]["raters"] == ["alice", "bob"]
    assert out["raters_without_answers"] == ["erin"]
    left = {
        s["stream"]: (s["reason"], s["items_complete"], s["items"]) for s in out["streams_left_out"]
    }
    assert left == {
        "carol": ("incomplete", 1, 4),
        "dave": ("incomplete", 1, 4),
        "erin": ("no answers", 0, 4),
    }
    assert (out["pairs"], out["incomplete_pairs"]) == (4, 0)
    stored = json.loads((root / "decisions" / "raters.json").read_text())
    assert stored["packets"]["init"]["raters"] == ["alice", "bob"]
    text = invoke("agreement", "audit", root, "init").stdout
    assert "raters: alice, bob (stored, chosen by the two complete streams)" in text
    assert "left out: carol (incomplete: 1 of 4 items complete), dave (incomplete: 1" in text
    assert "no answers yet: erin" in text
    assert "incomplete pairs (not finished by every rater)  0 of 4" in text
    assert not re.search(r"\bnan\b", text)
    # a flag that contradicts the stored choice is refused, naming both
    res = invoke("agreement", "audit", root, "init", "--raters", "alice,carol")
    assert res.exit_code == 2
    assert "--raters alice,carol contradicts the raters stored for packet 'init': alice, bob" in (
        res.stderr
    )
    assert f"`evaudit raters {root} init alice,carol`" in res.stderr
    chose = run_json("raters", root, "init", "alice,carol")
    assert chose["raters"] == ["alice", "carol"] and chose["replaced"] == ["alice", "bob"]
    # alice and carol agree on everything they share: the kappas are undefined -> n/a / null
    same = invoke("agreement", "audit", root, "init", "--raters", "alice,carol").stdout
    assert re.search(r"condition kappa\s+n/a", same) and not re.search(r"\bnan\b", same)
    assert "raters: alice, carol (named with --raters)" in same and "3 of 4" in same
    assert run_json("agreement", "audit", root, "init")["condition_kappa"] is None
    # repair plan reads the stored choice; in the stored order the rows are named
    run_json("raters", root, "init", "bob,alice")
    plan = invoke("repair", "plan", root, "init").stdout
    assert "bob/alice grade split pairs" in plan and "bob+alice consensus increases" in plan
    assert "A/E" not in plan and "incomplete pairs (not finished by bob and alice)" in plan
    res = invoke("repair", "plan", root, "init", "--raters", "carol,dave")
    assert res.exit_code == 2 and "contradicts the raters stored" in res.stderr
    run_json("raters", root, "init", "carol,dave")
    two = invoke("repair", "plan", root, "init", "--raters", "carol,dave").stdout
    assert "incomplete pairs (not finished by carol and dave)  3 of 4" in two
    # finalize: refused while queued pairs are undecided; --allow-pending lists them in text
    run_json("raters", root, "init", "alice,bob")
    res = invoke("finalize", root, "--out", tmp_path / "o", "--initial-raters", "alice,bob")
    assert res.exit_code == 2 and "queued pair(s) have no adjudication decision" in res.output
    assert "audit:init: q3 / d3 (J003): decrease: no adjudication decision" in res.stderr
    assert not (tmp_path / "o").exists()
    res = invoke("finalize", root, "--out", tmp_path / "o", "--allow-pending")
    assert res.exit_code == 0, res.output
    assert "initial packet init: raters: alice, bob (stored, chosen by evaudit raters)" in (
        res.stdout
    )
    assert "2 pending pair(s) kept their grade" in res.stdout
    assert "q3     d3        decrease: no adjudication decision" in res.stdout
    assert "q4     d4        split: no adjudication decision" in res.stdout
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert [(p["query_id"], p["doc_id"]) for p in manifest["pending"]] == [
        ("q3", "d3"),
        ("q4", "d4"),
    ]
    assert "decisions/raters.json" in manifest["inputs"]


def test_exit_codes(tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    ok = invoke("integrity", root, "init")
    assert ok.exit_code == 0 and "ok: no structural" in ok.stdout
    # a quote that is not on its page: integrity reports it and exits 1 (text and JSON)
    (root / "journals" / "init" / "bob.jsonl").write_text(
        (root / "journals" / "init" / "bob.jsonl")
        .read_text()
        .replace("states the required fact plainly", "states nothing of the kind")
    )
    bad = invoke("integrity", root, "init")
    assert bad.exit_code == 1 and "problems found" in bad.stdout
    bad_json = invoke("integrity", root, "init", "--json")
    assert bad_json.exit_code == 1 and json.loads(bad_json.stdout)["ok"] is False
    assert "Exit code 1 when it finds a problem" in invoke("integrity", "--help").stdout
    # refusals: bad override, bad queue -> 2 with a message, no traceback
    res = invoke("override", root, "init", "J001", "C1", "--answer", "no", "--reason", "r",
                 "--page", "J001-C1-A")  # fmt: skip
    assert res.exit_code == 2 and "a 'no' takes no --page" in res.output
    res = invoke("packet", "build", root, "--name", "x", "--kind", "adjudication", "--queue",
                 tmp_path / "missing.json")  # fmt: skip
    assert res.exit_code == 2 and "queue file not found" in res.output


def test_missing_values_and_p_at_the_draws_resolution() -> None:
    assert _p(1 / 10_001, 10_000) == "< 1/10001"
    assert _p(2 / 10_001, 10_000) == "0.000"  # above the resolution: a number
    assert _p(0.057, 2000) == "0.057"
    assert _p(None, 10) == "n/a" and _p(float("nan"), 10) == "n/a"
    assert _num(float("nan")) == "n/a" and _num(0.5) == "0.500"
