"""Issue 31 (and 26's rater parts): who counts as a rater, stage by stage.

Built campaigns (real DuckDB store, real journals, the packet builder for the challenge,
the CLI in process): a partial stream never votes, ties never vanish, every rater hint
works as printed, the challenge build follows a finalize that needed a rater choice,
duplicate streams are found by identity, and pairwise agreement uses each pair's items.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from sklearn.metrics import cohen_kappa_score

from campaign import store
from evaudit.cli import cli
from tests.audit_fixture import Pair, new_project, page_text, write_journal, write_packet

CHALLENGE = ["--kind", "challenge", "--base", "base", "--variant", "variant", "--k", "3",
             "--controls", "0", "--min-pages", "2", "--max-pages", "3", "--routes", "lexical"]  # fmt: skip


def invoke(*args: Any) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def run(*args: Any) -> dict[str, Any]:
    res = invoke(*args, "--json")
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.stdout))


def _store_rows(root: Path) -> None:
    """Pages of every document and two runs that put both subsets above the gold in base."""
    with store.transaction(root / "audit.duckdb") as con:
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


def _campaign(
    tmp_path: Path,
    initial: dict[str, Any],
    adjudicators: dict[str, Any] | None = None,
) -> Path:
    """Initial packet init: J001 = q1/d1 (grade 1, n 3), J002 = q2/g2 (gold, n 2).
    `initial`: stream -> answers. The repair plan (raters A, E) queues d1 as a decrease;
    `adjudicators` (stream -> answers on adj's one item, J001 showing C1 and C2 of three, so
    its grades need the initial plan) then decide it."""
    p1, p2 = Pair("q1", "d1", 3, 1, "R1"), Pair("q2", "d2", 2, 1, "R2")
    project = new_project(tmp_path / "p", [p1, p2], [("q1", "g1", 3), ("q2", "g2", 2)])
    sha, items = write_packet(project, "init", "initial", [p1, Pair("q2", "g2", 2, 2, "R2")])
    for rater, answers in initial.items():
        write_journal(project, "init", sha, rater, answers, items)
    if adjudicators is not None:
        asha, aitems = write_packet(project, "adj", "adjudication", [p1], [["C1", "C2"]])
        for rater, answers in adjudicators.items():
            write_journal(project, "adj", asha, rater, answers, aitems)
    _store_rows(project.root)
    return project.root


def _both(page: str) -> dict[str, list[str]]:
    return {"C1": [f"J002-C1-{page}"], "C2": [f"J002-C2-{page}"]}


AE = {"A": {"J001": {}, "J002": _both("A")}, "E": {"J001": {}, "J002": _both("B")}}
# Majority no on both conditions: A supports C1, E supports C2, F neither.
VOTES = {
    "A": {"J001": {"C1": ["J001-C1-A"]}},
    "E": {"J001": {"C2": ["J001-C2-A"]}},
    "F": {"J001": {}},
}
ROWS_OF_CHOICE = {"raters_chosen_by", "raters_stored", "raters_without_answers", "streams_left_out"}


def _figures(out: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in out.items() if k not in ROWS_OF_CHOICE}


def test_partial_third_stream_changes_nothing_and_is_listed(tmp_path: Path) -> None:
    # C answered one of the two items (a yes the others do not give): it is incomplete.
    partial = {**AE, "C": {"J001": {"C1": ["J001-C1-B"]}}}
    # G answered C1 yes and left C2 open: with it, C1 would be a 2-2 tie.
    late = {**VOTES, "G": {"J001": {"C1": ["J001-C1-C"], "C2": None}}}
    clean = _campaign(tmp_path / "clean", AE, VOTES)
    mixed = _campaign(tmp_path / "mixed", partial, late)
    for packet in ("init", "adj"):
        want, got = (
            run("agreement", "audit", clean, packet),
            run("agreement", "audit", mixed, packet),
        )
        assert _figures(got) == _figures(want)
        assert got["raters"] == (["A", "E"] if packet == "init" else ["A", "E", "F"])
    init = run("agreement", "audit", mixed, "init")
    assert [
        (s["stream"], s["reason"], s["items_complete"], s["items"])
        for s in init["streams_left_out"]
    ] == [("C", "incomplete", 1, 2)]
    text = invoke("agreement", "audit", mixed, "init").stdout
    assert "left out: C (incomplete: 1 of 2 items complete)" in text
    adj_text = invoke("agreement", "audit", mixed, "adj").stdout
    assert "left out: G (incomplete: 0 of 1 items complete)" in adj_text
    q1, q2 = tmp_path / "q1.json", tmp_path / "q2.json"
    plan_clean = run("repair", "plan", clean, "init", "--queue-out", q1)
    plan_mixed = run("repair", "plan", mixed, "init", "--queue-out", q2)
    skip = ROWS_OF_CHOICE | {"queue"}
    assert {k: v for k, v in plan_mixed.items() if k not in skip} == {
        k: v for k, v in plan_clean.items() if k not in skip
    }
    assert q1.read_text() == q2.read_text()
    # G never votes: C1 stays a 1-2 "no", no tie, and finalize decides the pair (1 -> 0).
    adj = run("adjudicate", mixed, "adj")
    assert adj["voters"] == ["A", "E", "F"] and adj["undecided"] == []
    fin_clean = run("finalize", clean, "--out", tmp_path / "o1")
    fin_mixed = run("finalize", mixed, "--out", tmp_path / "o2")
    assert fin_mixed["transitions"] == fin_clean["transitions"] == {"1->0": 1}
    assert fin_mixed["pending"] == []
    # integrity still shows every stream, and marks the incomplete one
    integ = run("integrity", mixed, "init")
    assert sorted(integ["streams"]) == ["A", "C", "E"] and integ["raters"] == ["A", "E"]
    assert [s["stream"] for s in integ["incomplete_streams"]] == ["C"]
    shown = run("raters", mixed, "init")
    assert [(s["stream"], s["complete"], s["chosen"]) for s in shown["streams"]] == [
        ("A", True, True),
        ("C", False, False),
        ("E", True, True),
    ]


def _challenge(tmp_path: Path) -> tuple[Path, str, list[dict[str, Any]]]:
    root = _campaign(tmp_path, AE, VOTES)
    run("finalize", root, "--out", tmp_path / "o1")
    run("packet", "build", root, "--name", "ch", *CHALLENGE)
    packet = json.loads((root / "packets" / "ch.json").read_text())
    sha = json.loads((root / "keys" / "ch.key.json").read_text())["packet_sha256"]
    assert [it["item_id"] for it in packet["items"]] == ["J001"]  # target q2/d2
    return root, sha, packet["items"]


def _challenge_votes(root: Path, sha: str, items: list[dict[str, Any]], c2: dict[str, Any]) -> None:
    from campaign.project import open_project

    project = open_project(root)
    for i, (rater, c2_pages) in enumerate(c2.items()):
        pick = {"C1": [f"J001-C1-{'ABC'[i % 3]}"], "C2": c2_pages}
        write_journal(project, "ch", sha, rater, {"J001": pick}, items)


def test_challenge_tie_is_refused_with_the_pair_named(tmp_path: Path) -> None:
    root, sha, items = _challenge(tmp_path)
    _challenge_votes(
        root, sha, items, {"S1": ["J001-C2-A"], "S2": ["J001-C2-B"], "S3": [], "S4": []}
    )
    res = invoke("finalize", root, "--out", tmp_path / "o2")
    assert res.exit_code == 2 and not (tmp_path / "o2").exists()
    assert "finalize refuses 1 undecided pair(s): 1 pair(s) have undecided conditions" in res.stderr
    assert (
        "challenge:ch: q2 / d2 (J001): challenge ch: C2 undecided (tie: S1=yes S2=yes S3=no S4=no)"
        in res.stderr
    )
    out = run("finalize", root, "--out", tmp_path / "o3", "--allow-pending")
    assert [(p["stage"], p["query_id"], p["doc_id"]) for p in out["pending"]] == [
        ("challenge:ch", "q2", "d2")
    ]
    manifest = json.loads((tmp_path / "o3" / "manifest.json").read_text())
    assert manifest["pending"] == out["pending"]
    stage = next(s for s in out["stages"] if s["stage"] == "challenge:ch")
    assert stage["reviewed"] == 1 and stage["reviewed_transitions"] == {"1->1": 1}
    text = invoke("finalize", root, "--out", tmp_path / "o4", "--allow-pending").stdout
    assert "1 pending pair(s) kept their grade" in text and "C2 undecided (tie" in text
    adj = invoke("adjudicate", root, "ch").stdout
    assert "None" not in adj and "J001  C2" in adj and "undecided" in adj
    assert "final: 1 yes, 0 no, 1 undecided of 2 conditions" in adj
    assert "0 of 1 pairs change grade; 1 undecided (finalize refuses" in adj


def test_a_partial_fourth_stream_makes_no_tie(tmp_path: Path) -> None:
    root, sha, items = _challenge(tmp_path)
    _challenge_votes(root, sha, items, {"S1": ["J001-C2-A"], "S2": ["J001-C2-B"], "S3": []})
    from campaign.project import open_project

    # S4 saved C2 "no" and left C1 open: it has not finished the packet.
    write_journal(open_project(root), "ch", sha, "S4", {"J001": {"C1": None, "C2": []}}, items)
    out = run("finalize", root, "--out", tmp_path / "o2")
    assert out["pending"] == [] and out["voters"]["ch"]["raters"] == ["S1", "S2", "S3"]
    assert out["transitions"] == {"1->0": 1, "1->2": 1}
    text = invoke("adjudicate", root, "ch").stdout
    assert "voters: S1, S2, S3 (all complete streams" in text
    assert "left out: S4 (incomplete: 0 of 1 items complete)" in text
    assert "1 of 1 pairs change grade" in text and "J001  q2     d2" in text


def test_challenge_build_follows_a_finalize_that_needed_a_rater_choice(tmp_path: Path) -> None:
    # Three complete initial streams: the two initial raters must be chosen.
    three = {**AE, "C": {"J001": {}, "J002": _both("C")}}
    root = _campaign(tmp_path, three, VOTES)
    res = invoke("finalize", root, "--out", tmp_path / "o0")
    assert res.exit_code == 2 and "needs exactly 2 raters, found 3 (A, C, E)" in res.stderr
    fin = run("finalize", root, "--out", tmp_path / "o1", "--initial-raters", "A,E")
    assert fin["initial_raters"]["raters"] == ["A", "E"]
    built = run("packet", "build", root, "--name", "ch", *CHALLENGE)  # --qrels-from default
    key = json.loads((root / "keys" / "ch.key.json").read_text())
    assert key["sampling"]["qrels_from"] == "finalize-output" and len(key["items"]) == 1
    assert built["n_items"] == 1
    # the stored choice is what finalize used, so a flagless finalize now agrees
    again = run("finalize", root, "--out", tmp_path / "o2", "--allow-pending")
    assert again["initial_raters"]["raters"] == ["A", "E"]
    assert again["initial_raters"]["raters_chosen_by"] == "stored"


def _hint(stderr: str) -> tuple[str, list[str]]:
    """The fix an error suggests: ("command", argv) from a backticked evaudit line, or
    ("flag", [FLAG]) from "pass --FLAG"."""
    cmd = re.search(r"`(evaudit [^`]+)`", stderr)
    if cmd:
        return "command", shlex.split(cmd.group(1))[1:]
    flag = re.search(r"pass (--[a-z-]+)", stderr)
    assert flag, f"no runnable hint in: {stderr}"
    return "flag", [flag.group(1)]


def _follow(args: list[Any], error: str) -> None:
    """Run ARGS, see ERROR, run its hint as printed, run ARGS again: past that error."""
    res = invoke(*args)
    assert res.exit_code == 2 and error in res.stderr, res.output
    kind, fix = _hint(res.stderr)
    if kind == "command":
        done = invoke(*fix)
        assert done.exit_code == 0, done.output
        again = invoke(*args)
    else:
        again = invoke(*args, *fix)
    assert error not in again.stderr, again.stderr
    assert again.exit_code == 0, again.output


def test_every_rater_hint_works_as_printed(tmp_path: Path) -> None:
    three = {**AE, "C": {"J001": {}, "J002": _both("C")}}
    one_done = {"A": AE["A"], "E": {"J002": _both("B")}}  # E has not answered J001
    seen: list[str] = []

    def case(name: str, initial: dict[str, Any], args: list[Any], error: str) -> None:
        root = _campaign(tmp_path / name, initial, VOTES)
        _follow([a if a != "ROOT" else root for a in args], error)
        seen.append(name)

    out = ["--out", tmp_path / "out"]
    case("plan", three, ["repair", "plan", "ROOT", "init"], "needs exactly 2 raters")
    case("audit1", one_done, ["agreement", "audit", "ROOT", "init"], "needs at least two complete")
    case("adjudicate", three, ["adjudicate", "ROOT", "adj"], "needs exactly 2 raters")
    case("finalize", three, ["finalize", "ROOT", *out], "needs exactly 2 raters")
    case("pending", one_done, ["finalize", "ROOT", "--initial-raters", "A,E", *out], "not complete")
    case("build", three, ["packet", "build", "ROOT", "--name", "ch", *CHALLENGE], "exactly 2")
    # a flag that contradicts the stored choice, on every command that takes one
    for name, args in (
        ("c-audit", ["agreement", "audit", "ROOT", "init", "--raters", "A,C"]),
        ("c-plan", ["repair", "plan", "ROOT", "init", "--raters", "A,C"]),
        ("c-adj", ["adjudicate", "ROOT", "adj", "--initial-raters", "A,C"]),
        ("c-fin", ["finalize", "ROOT", "--initial-raters", "A,C", "--out", tmp_path / "cf"]),
        ("c-vote", ["adjudicate", "ROOT", "adj", "--raters", "A,F"]),
    ):
        root = _campaign(tmp_path / name, three, VOTES)
        run("raters", root, "init", "A,E")
        run("raters", root, "adj", "A,E,F")
        _follow([a if a != "ROOT" else root for a in args], "contradicts the raters stored")
        seen.append(name)
    # a queue edited after `repair plan`: the hint reruns the plan into the same file
    root = _campaign(tmp_path / "queue", AE, VOTES)
    queue = tmp_path / "queue.json"
    run("repair", "plan", root, "init", "--queue-out", queue)
    obj = json.loads(queue.read_text())
    obj["pairs"][0]["reason"] = "split"
    queue.write_text(json.dumps(obj))
    build = ["packet", "build", root, "--name", "adj2", "--kind", "adjudication", "--queue", queue]
    _follow([*build, "--min-pages", "2", "--max-pages", "3"], "disagrees with the repair plan")
    seen.append("queue")
    assert len(seen) == 12


def test_identical_all_no_adjudicators_are_three_raters(tmp_path: Path) -> None:
    """Two (here three) adjudicators who said no to everything are distinct people."""
    none = {r: {"J001": {}} for r in ("A", "E", "F")}
    root = _campaign(tmp_path, AE, none)
    integ = run("integrity", root, "adj")
    assert integ["duplicate_streams"] == [] and integ["streams_after_collapse"] == ["A", "E", "F"]
    adj = run("adjudicate", root, "adj")
    assert adj["voters"] == ["A", "E", "F"] and adj["unanimous"] == 2
    fin = run("finalize", root, "--out", tmp_path / "o")
    assert fin["transitions"] == {"1->0": 1} and fin["pending"] == []
    # Named on finalize itself (#26): the same three, stored for the packet ...
    named = run("finalize", root, "--out", tmp_path / "o2", "--adjudication-raters", "A,E,F")
    assert named["transitions"] == fin["transitions"]
    assert run("raters", root, "adj")["raters"] == ["A", "E", "F"]
    # ... and a contradicting choice is refused with both named.
    res = invoke("finalize", root, "--out", tmp_path / "o3", "--adjudication-raters", "A,E")
    assert res.exit_code == 2 and "A, E" in res.stderr and "A, E, F" in res.stderr


def test_duplicates_by_identity_token_and_file(tmp_path: Path) -> None:
    root = _campaign(tmp_path, AE, VOTES)
    jdir = root / "journals" / "adj"
    # the same file under another name (its lines name F): F counted twice
    (jdir / "Fcopy.jsonl").write_bytes((jdir / "F.jsonl").read_bytes())
    integ = run("integrity", root, "adj")
    assert integ["duplicate_streams"] == [["F", "Fcopy"]]
    (jdir / "Fcopy.jsonl").unlink()
    # two registry names holding one sign-in token are one person
    reg = root / "annotators.json"
    people = json.loads(reg.read_text())
    people["annotators"] = {
        n: {
            "role": "annotator",
            "packets": ["adj"],
            "token_sha256": "t-" + ("EF" if n in "EF" else n),
        }
        for n in ("A", "E", "F")
    }
    reg.write_text(json.dumps(people))
    integ = run("integrity", root, "adj")
    assert integ["duplicate_streams"] == [["E", "F"]]
    adj = run("adjudicate", root, "adj")  # E and F are one person: two voters, a 1-1 tie
    assert adj["voters"] == ["A", "E"] and adj["duplicate_streams"] == [["E", "F"]]
    assert "identical streams collapsed to E: E, F" in invoke("adjudicate", root, "adj").stdout


def test_pairwise_agreement_uses_each_pairs_own_items(tmp_path: Path) -> None:
    """X finishes items 1-4, Y items 1-3, Z items 2-4 (two conditions each): X-Y share 3
    items, X-Z 3, Y-Z 2, all three 2. Hand-made answers; kappas against scikit-learn."""
    pairs = [Pair(f"q{i}", f"d{i}", 2, 1) for i in range(1, 5)]
    project = new_project(tmp_path / "p", pairs)
    sha, items = write_packet(project, "ch", "challenge", pairs)
    # 1 = yes (page A), 0 = no, per item J001..J004 and condition C1, C2; None: not saved
    votes: dict[str, list[tuple[int, int] | None]] = {
        "X": [(1, 0), (1, 1), (0, 0), (1, 0)],
        "Y": [(1, 1), (1, 0), (0, 0), None],
        "Z": [None, (1, 1), (1, 0), (1, 0)],
    }
    for rater, per_item in votes.items():
        answers = {
            f"J{i + 1:03d}": {
                f"C{c + 1}": ([f"J{i + 1:03d}-C{c + 1}-A"] if v else []) for c, v in enumerate(pair)
            }
            for i, pair in enumerate(per_item)
            if pair is not None
        }
        write_journal(project, "ch", sha, rater, answers, items)
    out = run("agreement", "audit", project.root, "ch", "--raters", "X,Y,Z")
    assert (out["pairs"], out["conditions"]) == (2, 4)  # items 2 and 3 for every rater
    for a, b in (("X", "Y"), ("X", "Z"), ("Y", "Z")):
        shared = [i for i in range(4) if votes[a][i] is not None and votes[b][i] is not None]
        va = [v for i in shared for v in votes[a][i]]  # type: ignore[union-attr]
        vb = [v for i in shared for v in votes[b][i]]  # type: ignore[union-attr]
        got = out["pairwise_agreement"][f"{a}-{b}"]
        assert got["items"] == len(shared)
        assert (got["count"], got["total"]) == (
            sum(x == y for x, y in zip(va, vb, strict=True)),
            len(va),
        )
        assert abs(got["kappa"] - cohen_kappa_score(va, vb)) < 1e-12
    # by hand: X-Y items 1-3 agree on 4 of 6 conditions, X-Z items 2-4 on 5 of 6, Y-Z 2 of 4
    assert [(p["items"], p["count"], p["total"]) for p in out["pairwise_agreement"].values()] == [
        (3, 4, 6),
        (3, 5, 6),
        (2, 2, 4),
    ]
    text = invoke("agreement", "audit", project.root, "ch").stdout  # the stored choice
    assert re.search(r"agreement X-Y \(3 items\)\s+4/6 \(66\.7%\)", text)
    from audit_app.admin.data import agreement_rows, agreement_summary

    page = agreement_summary(project, "ch", "X,Y,Z")
    assert page.agreement is not None
    rows = agreement_rows(page.agreement).set_index("statistic")
    assert (
        rows.loc["agreement Y-Z (2 items)", "count"],
        rows.loc["agreement Y-Z (2 items)", "total"],
    ) == (2, 4)


def test_identity_in_postgresql_journals(tmp_path: Path, pg_url: str) -> None:
    """Journals kept in PostgreSQL: distinct people stay distinct, and a stream whose rows
    are another annotator's (a copy under a second name) is one stream counted twice."""
    from campaign import journal_pg
    from services.simulate import simulate
    from tests.app_fixture import build

    fx = build(tmp_path / "proj", items=4, conditions=2, pages=3)
    simulate(fx.project, "initial", ("alice", "bob"), coverage=(1.0, 1.0))
    run("journal", "migrate", fx.project.root, "--to", pg_url)
    cfg = journal_pg.config_for(fx.project.root)
    assert cfg is not None
    integ = run("integrity", fx.project.root, "initial")
    assert integ["duplicate_streams"] == [] and integ["raters"] == ["alice", "bob"]
    journal_pg.insert_lines(cfg, "initial", "bobcopy", journal_pg.read_lines(cfg, "initial", "bob"))
    integ = run("integrity", fx.project.root, "initial")
    assert integ["duplicate_streams"] == [["bob", "bobcopy"]]
    assert run("agreement", "audit", fx.project.root, "initial")["raters"] == ["alice", "bob"]
