"""Ranks of missed selected objects ("Does the Selected Object Reach the Reader?", Tables 7, 15, 19)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from scorers.rop.miss_ranks import miss_ranks, rank_of
from scorers.rop.targets import TargetRecord
from tests.conftest import cli_json, run_cli

# Table 7: selected object, rows, RRF rank, final rank (None = > 20).
TABLE7 = [
    ("Hypo-Arena", 3, None, None),
    ("Philadelphia Athletics", 3, 5, 7),
    ("Defender (association football)", 3, 8, 8),
    ("Apple Vale, Queensland", 3, None, None),
    ("SS Sylvan Arrow", 2, None, None),
]
# Table 19: model -> absent at 5, ranks 6 to 20, nonmatch, unresolved.
TABLE19 = {"Claude": (165, 69, 5, 91), "GPT": (151, 59, 5, 87), "Gemini": (150, 63, 4, 83)}


def _ranking(target: str, rank: int | None, i: int, depth: int = 20) -> list[str | None]:
    ids: list[str | None] = [f"f{i}-{j}" for j in range(depth)]
    if rank is not None:
        ids[rank - 1] = target
    return ids


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_table7_near_cutoff_and_absent(tmp_path: Path) -> None:
    rows = []
    for obj, n, rrf, final in TABLE7:
        for m in range(n):
            rows.append(
                {
                    "record_id": f"{obj}-{m}",
                    "question_id": obj,
                    "model": f"m{m}",
                    "selected": obj,
                    "trace": obj,
                    "rankings": {"rrf": _ranking(obj, rrf, m), "final": _ranking(obj, final, m)},
                }
            )
    # Aligned hits of the final stack are not misses.
    rows.append(
        {
            "record_id": "hit",
            "question_id": "q",
            "selected": "H",
            "trace": "H",
            "rankings": {"rrf": ["H"], "final": ["x", "H"]},
        }
    )
    out = cli_json(
        "rop",
        "misses",
        "--records",
        _write(tmp_path / "r.jsonl", rows),
        "--stack",
        "final",
        "--cutoff",
        "5",
        "--depth",
        "20",
        "--subset",
        "aligned",
    )
    assert (out["missed"], out["near_cutoff"], out["absent"]) == (14, 6, 8)
    got = {
        o["selected"]: (o["rows"], o["ranks"]["rrf"], o["ranks"]["final"]) for o in out["objects"]
    }
    assert got == {obj: (n, [rrf], [final]) for obj, n, rrf, final in TABLE7}
    text = run_cli("rop", "misses", "--records", tmp_path / "r.jsonl", "--stack", "final").stdout
    assert ">20" in text and "Philadelphia Athletics" in text


def test_table15_ranks_of_both_targets() -> None:
    """Xavier University (U) and Xavier Musketeers football (G): BM25 6/3, BGE 1/16."""
    u, g = "Xavier University", "Xavier Musketeers football"
    bm25 = _ranking(g, 3, 0)
    bm25[5] = u
    bge = _ranking(u, 1, 1)
    bge[15] = g
    rec = TargetRecord("x", "q", u, g, {"bm25": bm25, "bge": bge})
    report = miss_ranks([rec], "bm25", 5, 20)
    (miss,) = report.misses
    assert (miss.rank_selected, miss.rank_trace, miss.kind) == (6, 3, "near_cutoff")
    assert miss.ranks_other == {"bm25": 6, "bge": 1}
    assert miss_ranks([rec], "bge", 5, 20).misses == []
    assert rank_of(g, bge, 20) == 16 and rank_of(g, bge, 15) is None


def test_table19_partition(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = []
    for model, (absent, near, nonmatch, unresolved) in TABLE19.items():
        assert absent == near + nonmatch + unresolved
        kinds = ["near"] * near + ["nonmatch"] * nonmatch + ["unresolved"] * unresolved
        kinds += ["hit"] * 30
        for i, kind in enumerate(kinds):
            u = f"{model}-U{i}"
            rank = {"near": 6 + i % 15, "hit": 1 + i % 5}.get(kind)
            # A nonmatch list is short: fewer than 20 documents match the OR query.
            ranking = _ranking(u, rank, i, depth=7 if kind == "nonmatch" else 20)
            count = {"nonmatch": 7, "unresolved": 20 + i}.get(kind, 100)
            rows.append(
                {
                    "record_id": f"{model}-{i}",
                    "question_id": f"q{i}",
                    "model": model,
                    "selected": u,
                    "trace": f"{model}-G{i}",
                    "rankings": {"bm25": ranking},
                    "or_matches": {"bm25": count},
                }
            )
    out = cli_json(
        "rop",
        "misses",
        "--records",
        _write(tmp_path / "r.jsonl", rows),
        "--stack",
        "bm25",
        "--by",
        "model",
    )
    got = {
        p["group"]: (p["absent_at_k"], p["near_cutoff"], p["nonmatch"], p["unresolved"])
        for p in out["partition"]
    }
    assert {m: got[m] for m in TABLE19} == TABLE19
    assert got[None] == tuple(sum(v[j] for v in TABLE19.values()) for j in range(4))


def test_partition_needs_or_match_counts_and_matches_brute_force() -> None:
    rng = random.Random(3)
    records: list[TargetRecord] = []
    counts: dict[str, dict[str, int]] = {}
    for i in range(300):
        ids: list[str | None] = [f"o{rng.randrange(40)}" for _ in range(rng.randrange(0, 25))]
        records.append(TargetRecord(f"r{i}", None, f"o{i % 40}", "o0", {"s": ids}))
        if i % 3:
            counts[f"r{i}"] = {"s": rng.randrange(0, 30)}
    for k, depth in ((1, 1), (1, 20), (5, 20), (5, 8)):
        report = miss_ranks(records, "s", k, depth, counts)
        expect: dict[str, str] = {}
        for r in records:
            ids = r.rankings["s"]
            if r.selected in ids[:k]:
                continue
            if r.selected in ids[:depth]:
                expect[r.record_id] = "near"
            elif r.record_id not in counts:
                expect[r.record_id] = "unsplit"
            else:
                expect[r.record_id] = "nonmatch" if counts[r.record_id]["s"] < depth else "unres"
        got = {
            m.record_id: {"near_cutoff": "near"}.get(m.kind)
            or {"nonmatch": "nonmatch", "unresolved": "unres", None: "unsplit"}[m.absent_split]
            for m in report.misses
        }
        assert got == expect
        (pooled,) = report.partition
        assert pooled.absent_at_k == len(expect)
        assert pooled.absent_unsplit == sum(1 for v in expect.values() if v == "unsplit")


def test_depth_below_cutoff_is_an_error(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "r.jsonl",
        [{"record_id": "a", "selected": "A", "trace": "A", "rankings": {"s": ["A"]}}],
    )
    result = run_cli(
        "rop",
        "misses",
        "--records",
        path,
        "--stack",
        "s",
        "--cutoff",
        "5",
        "--depth",
        "3",
        expect=2,
    )
    assert "--depth 3 is below --cutoff 5" in result.output
