"""Passage-deletion contrasts and call accounting ("Does the Selected Object Reach the Reader?",
Tables 10 and 21), on a call ledger built to match both tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorers.rop.deletion import deletion_contrasts, parse_calls
from tests.conftest import cli_json, run_cli
from tests.test_rop_reader_association import loop_interval

ARMS = ["intact", "trace_drop", "sham_drop"]
Call = tuple[str, str | None]
F: Call = ("failed", None)
E: Call = ("exact", "gold")  # a failed call; an exact valid call


def W(answer: str = "w") -> Call:
    return ("wrong", answer)


def _plan() -> dict[str, dict[int, list[Call]]]:
    intact: dict[int, list[Call]] = {0: [F, F, E], 12: [W(), E, E]} | {
        i: [F, E, E] for i in range(1, 12)
    }
    trace: dict[int, list[Call]] = {i: [E, E, E] for i in [*range(8), 59]} | {
        8: [E, W("a"), W("b")],
        9: [E, W("a"), W("b")],
    }
    trace |= {i: [F, W(), W()] for i in range(10, 18)} | {
        i: [W("1"), W("2"), W("2")] for i in range(18, 29)
    }
    sham: dict[int, list[Call]] = {
        0: [F, F, E],
        1: [W("a"), W("b"), E],
        2: [F, E, E],
        3: [W(), E, E],
        4: [W(), E, E],
    }
    return {
        "intact": {i: intact.get(i, [E, E, E]) for i in range(64)},
        "trace_drop": {i: trace.get(i, [W(), W(), W()]) for i in range(64)},
        "sham_drop": {i: sham.get(i, [E, E, E]) for i in range(59)},
    }


RETRIES = {"intact": 2, "trace_drop": 2, "sham_drop": 5}  # provider requests beyond one per call


def ledger() -> list[dict[str, Any]]:
    rows = []
    for arm, items in _plan().items():
        extra = RETRIES[arm]
        for item, calls in items.items():
            for rep, (kind, answer) in enumerate(calls, start=1):
                row: dict[str, Any] = {
                    "item_id": f"i{item}",
                    "arm": arm,
                    "repeat": rep,
                    "status": "failed" if kind == "failed" else "valid",
                }
                if kind != "failed":
                    row |= {"em": int(kind == "exact"), "answer": answer}
                row["requests"] = 2 if extra > 0 else 1
                extra -= row["requests"] - 1
                rows.append(row)
    return rows


def _write(tmp: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp / "calls.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_tables_10_and_21_reproduced(tmp_path: Path) -> None:
    out = cli_json("rop", "deletion", _write(tmp_path, ledger()), "--bootstrap", "2000")
    got = {c["contrast"]: c for c in out["contrasts"]}
    # Table 10: n, EM A/B, Delta EM (points, one decimal)
    for name, (n, a, b, d) in {
        "intact/trace_drop": (64, 92.7, 15.1, 77.6),
        "sham_drop/trace_drop": (59, 96.0, 14.7, 81.4),
        "intact/sham_drop": (59, 92.1, 96.0, -4.0),
    }.items():
        c = got[name]
        assert c["n"] == n
        assert [round(100 * c[k], 1) for k in ("em_a", "em_b", "delta_em")] == [a, b, d]
        assert c["bootstrap"]["ci_low"] <= c["delta_em"] <= c["bootstrap"]["ci_high"]
    # "Even under the most adverse reassignment of those failures ... at least 73.4 points"
    assert round(100 * got["intact/trace_drop"]["adverse_delta_em"], 1) == 73.4
    assert min(
        got[k]["adverse_delta_em"] for k in ("intact/trace_drop", "sham_drop/trace_drop")
    ) == pytest.approx(141 / 192)
    # Table 21
    acc = {a["arm"]: a for a in out["accounting"]}
    expect = {
        "intact": (64, 192, 194, 179, 13, 51, 63),
        "trace_drop": (64, 192, 194, 184, 8, 43, 9),
        "sham_drop": (59, 177, 182, 174, 3, 54, 57),
    }
    keys = (
        "items",
        "scheduled_calls",
        "provider_requests",
        "valid_calls",
        "failed_calls",
        "same_valid_answer",
        "majority_exact",
    )
    assert {arm: tuple(acc[arm][k] for k in keys) for arm in ARMS} == expect
    text = run_cli("rop", "deletion", tmp_path / "calls.jsonl", "--bootstrap", "0").stdout
    assert "77.6" in text and "Majority exact" in text and "63/64" in text


def test_interval_is_the_paired_item_loop() -> None:
    calls, _ = parse_calls([(i + 1, r) for i, r in enumerate(ledger())], "c", ARMS)
    report = deletion_contrasts(calls, ARMS, [("intact", "trace_drop")], resamples=700, seed=9)
    (c,) = report.contrasts
    plan = _plan()

    def score(arm: str, item: int) -> float:
        return sum(kind == "exact" for kind, _ in plan[arm][item]) / 3

    items = sorted(range(64), key=lambda i: f"i{i}")
    lo, hi = loop_interval(
        [score("intact", i) for i in items],
        [score("trace_drop", i) for i in items],
        [f"i{i}" for i in items],
        700,
        9,
    )
    assert (c.interval.low, c.interval.high) == pytest.approx((lo, hi), abs=1e-12)


def test_bad_calls_name_the_line(tmp_path: Path) -> None:
    rows = ledger()[:3]
    rows[1] = {**rows[1], "status": "ok"}
    result = run_cli("rop", "deletion", _write(tmp_path, rows), expect=2)
    assert "calls.jsonl:2: 'status' must be" in result.output
    rows = ledger()[:3]
    rows[2] = {**rows[0]}
    result = run_cli("rop", "deletion", _write(tmp_path, rows), expect=2)
    assert "calls.jsonl:3:" in result.output and "repeats line 1" in result.output


def test_majority_is_strict_and_failed_items_never_same() -> None:
    rows = [
        (1, {"item_id": "x", "arm": "a", "repeat": 1, "status": "valid", "em": 1, "answer": "g"}),
        (2, {"item_id": "x", "arm": "a", "repeat": 2, "status": "valid", "em": 0, "answer": "w"}),
        (3, {"item_id": "y", "arm": "a", "repeat": 1, "status": "failed"}),
        (4, {"item_id": "y", "arm": "a", "repeat": 2, "status": "failed"}),
        (5, {"item_id": "x", "arm": "b", "repeat": 1, "status": "valid", "em": 1, "answer": "g"}),
    ]
    calls, ignored = parse_calls([*rows, (6, {"item_id": "x", "arm": "c"})], "c", ["a", "b"])
    report = deletion_contrasts(calls, ["a", "b"])
    a = report.accounting[0]
    assert (a.majority_exact, a.same_valid_answer, ignored) == (0, 0, 1)  # 1 of 2 is no majority
    (c,) = report.contrasts
    assert (c.n, c.em_a, c.em_b) == (1, 0.5, 1.0)
