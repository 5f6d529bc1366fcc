"""`evaudit packet build/export/check/stats/recall/list` end to end on a synthetic project."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from campaign.journal import append
from packet_builder.challenge import contrast, gold_sets
from packet_builder.leaks import check_packet, check_text
from tests.conftest import cli_json, run_cli
from tests.test_packet_fixtures import make_project, query_rows, write_benchmark

PAGE_KEY = re.compile(r"J\d{3}-C\d-[A-Z]")


def _build(root: Path, *args: Any, expect: int = 0) -> Any:
    result = run_cli("packet", "build", root, *args, "--json", expect=expect)
    return json.loads(result.stdout) if expect == 0 else result


def _files(root: Path) -> list[str]:
    return sorted(p.name for d in ("packets", "keys") for p in (root / d).iterdir())


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("pk"))
    _build(root, "--name", "init", "--seed", "11", "--per-stratum", "3")
    return root


def _key(root: Path, name: str) -> dict[str, Any]:
    return json.loads((root / "keys" / f"{name}.key.json").read_text())


def _packet(root: Path, name: str) -> dict[str, Any]:
    return json.loads((root / "packets" / f"{name}.json").read_text())


def test_initial_packet_is_stratified_and_blind(proj: Path) -> None:
    packet, key = _packet(proj, "init"), _key(proj, "init")
    assert [a["selected"] for a in key["sampling"]["allocation"]] == [3] * 8  # 2x2 x gold/subset
    assert len(key["sampling"]["candidates"]) == 48
    assert [it["item_id"] for it in packet["items"]] == [f"J{i:03d}" for i in range(1, 25)]
    hashes = [key["items"][it["item_id"]]["order_hash"] for it in packet["items"]]
    assert hashes == sorted(hashes)
    assert [
        key["sampling"]["candidates"][f"{v['query_id']}\t{v['doc_id']}"]
        for v in (key["items"][h] for h in sorted(key["items"]))
    ] == hashes
    text = (proj / "packets" / "init.json").read_text()
    for item in key["items"].values():
        assert item["doc_id"] not in text and f'"{item["query_id"]}"' not in text
    for item in packet["items"]:
        assert set(item) == {"item_id", "information_need", "conditions"}
        for cond in item["conditions"]:
            assert len(cond["pages"]) == 3
            assert all(PAGE_KEY.fullmatch(p["page_key"]) for p in cond["pages"])
            kc = key["items"][item["item_id"]]["conditions"][cond["condition_key"]]
            assert set(kc["pages"]) == {p["page_key"] for p in cond["pages"]}
    assert cli_json("packet", "check", proj, "init")["leaks"] == []
    stats = cli_json("packet", "stats", proj, "init")
    assert stats["pairs"] == 24 and stats["pages_per_condition"] == {
        "min": 3,
        "mean": 3.0,
        "max": 3,
    }
    assert set(stats["route_memberships"]) == {
        "original",
        "selected",
        "lexical",
        "bm25",
        "fuzzy",
        "construction",
    }
    assert [r["name"] for r in cli_json("packet", "list", proj)["packets"]] == ["init"]


def test_same_seed_byte_identical_other_seed_other_order(tmp_path: Path) -> None:
    roots = [make_project(tmp_path, f"p{i}") for i in range(2)]
    for root in roots:
        _build(root, "--name", "a", "--seed", "5", "--total", "10")
    for sub in ("packets/a.json", "keys/a.key.json"):
        assert (roots[0] / sub).read_bytes() == (roots[1] / sub).read_bytes()
    # a fresh build elsewhere with another seed: another order
    root3 = make_project(tmp_path, "p3")
    _build(root3, "--name", "a", "--seed", "6", "--total", "10")
    order = [
        [(v["query_id"], v["doc_id"]) for _k, v in sorted(_key(r, "a")["items"].items())]
        for r in (roots[0], root3)
    ]
    assert order[0] != order[1]


def test_export_json_is_the_packet_bytes(proj: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    res = cli_json("packet", "export", proj, "init", "--out", out)
    assert out.read_bytes() == (proj / "packets" / "init.json").read_bytes()
    assert res["sha256"] == res["file_sha256"]


def test_leak_canary_in_condition_note(tmp_path: Path) -> None:
    root = make_project(tmp_path, note_override={"q01/c1": "Compare doc01a."})
    result = _build(root, "--name", "leaky", "--total", "48", expect=1)
    assert "doc01a" in result.stderr and "nothing written" in result.stderr
    assert _files(root) == [] and cli_json("packet", "list", root)["packets"] == []
    # the check itself: plant the canary in a built packet's note
    clean = _build(root, "--name", "clean", "--total", "4", "--seed", "2")
    packet, key = _packet(root, "clean"), _key(root, "clean")
    item_key = key["items"][packet["items"][0]["item_id"]]
    packet["items"][0]["conditions"][0]["note"] = f"canary {item_key['doc_id']} here"
    packet["items"][0]["conditions"][0]["pages"][0]["page_key"] += "7"
    packet["items"][0]["rank"] = 1
    leaks = check_packet(packet, key).leaks
    kinds = {(x["kind"], x["where"]) for x in leaks}
    assert ("doc_id", "items[0].conditions[0].note") in kinds
    assert ("unexpected_field", "items[0].rank") in kinds
    assert ("key_format", "items[0].conditions[0].pages[0].page_key") in kinds
    assert clean["n_items"] == 4


def _answer(
    root: Path, key: dict[str, Any], name: str, item_id: str, yes: dict[str, list[str] | None]
) -> None:
    """A complete journal line: `yes` maps a condition to its pages (None = the first page),
    each quoted from the page's displayed text; every other condition is a no."""
    packet = _packet(root, "init")
    shown = next(it for it in packet["items"] if it["item_id"] == item_id)
    conds: dict[str, Any] = {}
    for c in shown["conditions"]:
        texts = {pg["page_key"]: pg["text"] for pg in c["pages"]}
        ck = c["condition_key"]
        pages = yes.get(ck, [])
        if ck in yes and pages is None:
            pages = [sorted(texts)[0]]
        if ck in yes and pages:
            quotes = {k: " ".join(texts[k].split()[:8]) for k in pages}
            conds[ck] = {"answer": "yes", "pages": pages, "quotes": quotes}
        else:
            conds[ck] = {"answer": "no", "pages": [], "quotes": {}}
    append(
        root / "journals" / "init" / f"{name}.jsonl",
        {
            "annotator": name,
            "packet_id": "init",
            "packet_sha256": key["packet_sha256"],
            "item_id": item_id,
            "unclear": False,
            "comment": "",
            "complete": True,
            "conditions": conds,
        },
    )


def test_adjudication_packet_judges_unresolved_with_selected_route(
    proj: Path, tmp_path: Path
) -> None:
    key = _key(proj, "init")
    item_id, item = next((i, v) for i, v in sorted(key["items"].items()) if v["n"] == 3)
    c1 = item["conditions"]["C1"]
    chosen = sorted(c1["pages"])[0]
    others = [(i, v) for i, v in sorted(key["items"].items()) if v is not item][:2]
    # alice and bob complete three items: a split (C1 alice only, C2 both, C3 neither) and
    # two consensus decreases to 0. `repair plan` writes the queue the builder checks.
    for name in ("alice", "bob"):
        _answer(proj, key, name, item_id, {"C1": [chosen] if name == "alice" else [], "C2": None})
        for oid, _v in others:
            _answer(proj, key, name, oid, {})
    queue = tmp_path / "queue.json"
    plan = cli_json("repair", "plan", proj, "init", "--raters", "alice,bob", "--queue-out", queue)
    assert plan["split_pairs"] == 1 and plan["decrease_pairs"] == 2
    pairs = json.loads(queue.read_text())["pairs"]
    split = next(p for p in pairs if p["reason"] == "split")
    assert split["unresolved"] == [c1["condition_id"], item["conditions"]["C3"]["condition_id"]]
    _build(proj, "--name", "adj", "--kind", "adjudication", "--queue", queue)
    packet, akey = _packet(proj, "adj"), _key(proj, "adj")
    by_pair = {(v["query_id"], v["doc_id"]): k for k, v in akey["items"].items()}
    target = by_pair[(item["query_id"], item["doc_id"])]
    pitem = next(it for it in packet["items"] if it["item_id"] == target)
    assert [c["condition_key"] for c in pitem["conditions"]] == ["C1", "C3"]
    for it in packet["items"]:
        for cond in it["conditions"]:
            assert 6 <= len(cond["pages"]) <= 9
    pages = akey["items"][target]["conditions"]["C1"]["pages"]
    sel = [v for v in pages.values() if "selected" in v["routes"]]
    assert [v["page"] for v in sel] == [c1["pages"][chosen]["page"]]
    assert all(
        "original" in v["routes"]
        for v in pages.values()
        if v["page"] in {p["page"] for p in c1["pages"].values()}
    )
    stats = cli_json("packet", "stats", proj, "adj")
    judged = 2 + sum(v["n"] for _i, v in others)  # split: C1 + C3; decreases: every condition
    assert stats["conditions"] == judged and stats["route_memberships"]["selected"] == 1
    assert stats["route_memberships"]["original"] >= 3
    recall = cli_json("packet", "recall", proj, "adj", "--scope", "all-positives")
    assert set(recall) == {
        "conditions",
        "recovered_at_6",
        "recovered_at_9",
        "all_positive_pages_at_9",
        "scope",
    }
    assert recall["conditions"] == 7  # every condition of the 3 pairs has construction evidence
    # Default scope: only the locked positive conditions of the queued pairs (the supplement's).
    locked = cli_json("packet", "recall", proj, "adj")
    n_locked = sum(len(v.get("locked") or []) for v in akey["items"].values())
    assert locked["scope"] == "locked" and 1 <= locked["conditions"] == n_locked < 7


def test_challenge_targets_recomputed(proj: Path, tmp_path: Path) -> None:
    out = _build(
        proj,
        "--name",
        "chal",
        "--kind",
        "challenge",
        "--base",
        "base",
        "--variant",
        "variant",
        "--k",
        "3",
        "--controls",
        "4",
        "--seed",
        "9",
        "--qrels-from",
        "loaded",  # the fixture's initial packet is not annotated: target the loaded qrels
    )
    key, packet = _key(proj, "chal"), _packet(proj, "chal")
    assert key["sampling"]["qrels_from"] == "loaded"
    assert "target" not in json.dumps(packet) and "control" not in json.dumps(packet)
    # recompute from the fixture files: grades and runs as written
    files = write_benchmark(tmp_path / "again")
    grades = {
        (q, d): int(g)
        for q, _z, d, g in (ln.split() for ln in files["qrels"].read_text().splitlines())
    }
    n = {q["query_id"]: len(q["conditions"]) for q in query_rows()}
    runs = {}
    for name in ("base", "variant"):
        runs[name] = {}
        for ln in files[name].read_text().splitlines():
            q, _q0, d, *_ = ln.split()
            runs[name].setdefault(q, []).append(d)
    before = contrast(gold_sets(grades, n), runs["base"], runs["variant"], 3)
    expected_targets = set()
    for (q, d), g in grades.items():
        if g >= n[q] or d not in runs["base"][q][:3] + runs["variant"][q][:3]:
            continue
        after = contrast(gold_sets({**grades, (q, d): n[q]}, n), runs["base"], runs["variant"], 3)
        if after < before - 1e-12:
            expected_targets.add((q, d))
    status = {(v["query_id"], v["doc_id"]): v["status"] for v in key["items"].values()}
    assert {p for p, s in status.items() if s == "target"} == expected_targets
    assert sum(s == "control" for s in status.values()) == 4
    assert out["n_items"] == len(expected_targets) + 4
    for it in packet["items"]:
        for cond in it["conditions"]:
            assert 6 <= len(cond["pages"]) <= 9


def test_bad_arguments_write_nothing(proj: Path, tmp_path: Path) -> None:
    before = _files(proj)
    res = run_cli("packet", "stats", proj, "nope", expect=2)
    assert "unknown packet 'nope'" in res.stderr
    run_cli("packet", "check", proj, "nope", expect=2)
    res = _build(proj, "--name", "big", "--per-stratum", "7", expect=2)
    assert "(release=R1, source=S1, label=gold) has only 4 eligible pairs, 7 wanted" in res.stderr
    res = _build(proj, "--name", "init", "--per-stratum", "1", expect=2)
    assert "already exists" in res.stderr
    res = _build(
        proj,
        "--name",
        "c",
        "--kind",
        "challenge",
        "--base",
        "bm25",
        "--variant",
        "variant",
        expect=2,
    )
    assert "unknown run 'bm25'" in res.stderr
    bad_queue = tmp_path / "q.json"
    bad_queue.write_text(
        json.dumps(
            {
                "format": "evaudit-adjudication-queue",
                "pairs": [{"query_id": "q01", "doc_id": "doc01a", "unresolved": ["c9"]}],
            }
        )
    )
    res = _build(proj, "--name", "adj2", "--kind", "adjudication", "--queue", bad_queue, expect=2)
    assert "q.json" in res.stderr and "c9" in res.stderr
    res = _build(proj, "--name", "x", "--per-stratum", "1", "--routes", "bm25,magic", expect=2)
    assert "magic" in res.stderr
    res = run_cli(
        "packet",
        "export",
        proj,
        "init",
        "--out",
        tmp_path / "x.html",
        "--format",
        "html",
        expect=2,
    )
    assert "--annotator" in res.stderr
    res = run_cli(
        "packet",
        "export",
        proj,
        "init",
        "--out",
        tmp_path / "x.html",
        "--format",
        "html",
        "--annotator",
        "alice",
        expect=None,
    )
    try:
        import services.offline as offline

        has_html = hasattr(offline, "build_offline_html")
    except ImportError:
        has_html = False
    if not has_html:
        assert res.exit_code == 2 and "HTML export not available" in res.stderr
    else:
        assert res.exit_code == 0, res.stderr
        html = (tmp_path / "x.html").read_text()
        key = _key(proj, "init")
        assert check_text(html, key).leaks == []
        planted = html.replace("</body>", f"{next(iter(key['items'].values()))['doc_id']}</body>")
        assert [x["kind"] for x in check_text(planted, key).leaks] == ["doc_id"]
    assert _files(proj) == before


def test_empty_document_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path, empty_doc="doc01a")
    res = _build(root, "--name", "e", "--total", "48", expect=2)
    assert "document 'doc01a' has no page text" in res.stderr
    assert _files(root) == []


SAMPLE = Path(__file__).resolve().parent.parent / "sample_packets"


@pytest.mark.skipif(not (SAMPLE / "queries.jsonl").is_file(), reason="sample benchmark missing")
def test_sample_project_builds_all_three_kinds_without_leaks(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    run_cli("init", root, "--admin-password", "pw-for-tests")
    cli_json("ingest", root, "--pdf-dir", SAMPLE / "pdfs")
    runs = sorted((SAMPLE / "runs").glob("*.trec"))
    cli_json(
        "load",
        root,
        "--queries",
        SAMPLE / "queries.jsonl",
        "--qrels",
        SAMPLE / "qrels.txt",
        "--evidence",
        SAMPLE / "evidence.jsonl",
        *[a for r in runs for a in ("--run", f"{r.stem}={r}")],
    )
    _build(root, "--name", "initial", "--seed", "1", "--total", "30")
    # Two simulated raters, then the queue their repair plan writes (the builder checks it).
    run_cli("responses", "simulate", root, "initial", "--annotators", "A,E", "--contested", "0.3")
    queue = tmp_path / "queue.json"
    plan = cli_json("repair", "plan", root, "initial", "--raters", "A,E", "--queue-out", queue)
    assert plan["queued_pairs"] > 0
    _build(root, "--name", "adj", "--kind", "adjudication", "--queue", queue)
    _build(
        root,
        "--name",
        "chal",
        "--kind",
        "challenge",
        "--base",
        runs[0].stem,
        "--variant",
        runs[-1].stem,
        "--controls",
        "3",
        "--seed",
        "2",
        "--qrels-from",
        "loaded",  # the adjudication is not annotated, so finalize cannot run yet
    )
    for name in ("initial", "adj", "chal"):
        assert cli_json("packet", "check", root, name)["leaks"] == []
    for name in ("adj", "chal"):
        ppc = cli_json("packet", "stats", root, name)["pages_per_condition"]
        assert ppc["max"] <= 9 and ppc["min"] >= 1
