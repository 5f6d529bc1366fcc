"""Table 4 accounting per model and Table 20's planned-denominator rates
("Does the Selected Object Reach the Reader?")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorers.rop.accounting import COLUMNS, account, parse_account_records
from scorers.rop.resolver import parse_resolver
from tests.conftest import cli_json, run_cli
from vocabulary.errors import InputError

# Table 4: model -> (invalid output, ID absent from corpus, U=G, U!=G); planned 600 each.
TABLE4 = {"Claude": (0, 1, 456, 143), "GPT": (6, 0, 509, 85), "Gemini": (0, 1, 498, 101)}


def _table4_rows() -> tuple[list[tuple[int, dict[str, Any]]], bytes]:
    objects: dict[str, list[str]] = {}
    rows: list[tuple[int, dict[str, Any]]] = []
    n = 0
    for model, (invalid, absent, aligned, distinct) in TABLE4.items():
        kinds = ["invalid"] * invalid + ["absent"] * absent + ["aligned"] * aligned
        kinds += ["distinct"] * distinct
        assert len(kinds) == 600
        for i, kind in enumerate(kinds):
            n += 1
            g = f"/wiki/G{model}{i}"
            objects[g] = []
            obj: dict[str, Any] = {"record_id": f"{model}-{i}", "model": model, "trace": g}
            if kind == "invalid":
                obj["selected"] = None
            elif kind == "absent":
                obj["selected"] = f"/wiki/nowhere{i}"
            elif kind == "aligned":
                obj["selected"] = g
            else:
                u = f"/wiki/U{model}{i}"
                objects[u] = []
                obj["selected"] = u
            rows.append((n, obj))
    resolver = json.dumps({"version": "t", "objects": objects}).encode()
    return rows, resolver


def test_table4_reproduced_exactly() -> None:
    rows, res_bytes = _table4_rows()
    resolver, problems = parse_resolver(res_bytes, "resolver.json")
    assert resolver is not None, problems
    report = account(parse_account_records(rows, "r.jsonl", resolver), [5])
    table = {r.model: r for r in report.rows}
    for model, (invalid, absent, aligned, distinct) in TABLE4.items():
        c = table[model].counts
        assert table[model].planned == 600
        assert (c["invalid_output"], c["absent_from_corpus"], c["aligned"], c["distinct"]) == (
            invalid,
            absent,
            aligned,
            distinct,
        )
    total = table[None]
    assert total.planned == 1800
    assert [total.counts[c] for c in COLUMNS] == [0, 6, 2, 1463, 329]
    # the columns partition every planned row
    for r in report.rows:
        assert sum(r.counts.values()) == r.planned


def _records(tmp: Path) -> tuple[Path, Path, Path]:
    resolver = {"version": "t", "objects": {"A": ["a1"], "B": [], "C": [], "D": []}}
    recs = [
        {
            "record_id": "r1",
            "model": "m1",
            "selected": "a1",
            "trace": "A",
            "rankings": {"s": ["x", "A", "B"]},
        },
        {
            "record_id": "r2",
            "model": "m1",
            "selected": "B",
            "trace": "C",
            "rankings": {"s": ["C", "x", "B"]},
        },
        {"record_id": "r3", "model": "m2", "selected": None, "trace": "D"},
        {
            "record_id": "r4",
            "model": "m2",
            "selected": "zz",
            "trace": "D",
            "rankings": {"s": ["D"]},
        },
        {
            "record_id": "r5",
            "model": "m2",
            "selected": "D",
            "trace": "D",
            "invalid": True,
            "rankings": {"s": ["D"]},
        },
    ]
    planned = [
        {"record_id": f"r{i}", "model": "m1" if i < 3 or i == 6 else "m2"} for i in range(1, 7)
    ]
    (tmp / "resolver.json").write_text(json.dumps(resolver))
    (tmp / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (tmp / "planned.jsonl").write_text("".join(json.dumps(r) + "\n" for r in planned))
    return tmp / "records.jsonl", tmp / "resolver.json", tmp / "planned.jsonl"


def test_planned_denominator_counts_invalid_and_missing_as_misses(tmp_path: Path) -> None:
    records, resolver, planned = _records(tmp_path)
    out = cli_json(
        "rop",
        "accounting",
        "--records",
        records,
        "--resolver",
        resolver,
        "--planned",
        planned,
        "--cutoffs",
        "1,2,3",
    )
    m1 = next(r for r in out["table"] if r["model"] == "m1")
    m2 = next(r for r in out["table"] if r["model"] == "m2")
    assert (m1["planned"], m1["observed"], m1["not_observed"], m1["aligned"], m1["distinct"]) == (
        3,
        2,
        1,
        1,
        1,
    )
    assert (m2["invalid_output"], m2["absent_from_corpus"]) == (2, 1)
    rates = {(r["model"], r["cutoff"]): r for r in out["rates"]}
    # m1: r1 U=A at rank 2, G=A at rank 2; r2 U=B rank 3, G=C rank 1; r6 never observed.
    assert [rates[("m1", k)]["selected_returned"] for k in (1, 2, 3)] == [0, 1, 2]
    assert [rates[("m1", k)]["trace_returned"] for k in (1, 2, 3)] == [1, 2, 2]
    assert rates[("m1", 3)]["selected_rate"] == pytest.approx(2 / 3)
    # m2: r3 and r5 invalid (misses for both targets); r4 U absent, G=D at rank 1.
    assert rates[("m2", 1)]["selected_returned"] == 0
    assert rates[("m2", 1)]["trace_returned"] == 1
    assert rates[("m2", 1)]["trace_rate"] == pytest.approx(1 / 3)
    text = run_cli(
        "rop", "accounting", "--records", records, "--resolver", resolver, "--planned", planned
    ).stdout
    assert "Total" in text and "U!=G" in text


def test_unplanned_record_is_an_error(tmp_path: Path) -> None:
    records, resolver, planned = _records(tmp_path)
    planned.write_text(json.dumps({"record_id": "r1", "model": "m1"}) + "\n")
    result = run_cli(
        "rop",
        "accounting",
        "--records",
        records,
        "--resolver",
        resolver,
        "--planned",
        planned,
        expect=2,
    )
    assert "is not planned" in result.output


def test_unresolvable_trace_names_the_line(tmp_path: Path) -> None:
    resolver, _ = parse_resolver(b'{"version": "t", "objects": {"A": []}}', "r")
    assert resolver is not None
    with pytest.raises(InputError, match=r"r\.jsonl:7: trace 'Q' is not in the resolver"):
        parse_account_records(
            [(7, {"record_id": "x", "model": "m", "trace": "Q", "selected": "A"})],
            "r.jsonl",
            resolver,
        )
