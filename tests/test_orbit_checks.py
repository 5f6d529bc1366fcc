"""Generation diagnostics and the evidence-coverage pre-check
("Which Reranking Conclusions Survive the Answer Interface?")."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from click.testing import CliRunner

from evaudit.cli import cli
from scorers.orbit.walsh import INTERFACES

HEADER = ["dataset", "reader", "claim_id", "y", "ranker", "z1", "z2", "z3", "correct"]


def table(
    tmp: Path,
    claims: int,
    seed: int,
    *,
    coverage: dict[str, int] | None = None,
    generated: bool = True,
    labels: tuple[str, str] = ("+", "-"),
) -> tuple[Path, list[list]]:
    rng = random.Random(seed)
    rows = []
    for env in (("FEVER", "qwen"), ("FEVER", "mistral"), ("RAGuard", "qwen")):
        for c in range(claims):
            y = labels[c % 2]
            for ranker in ("BM25", "BGE"):
                for key in INTERFACES:
                    z = [1 if s == "+" else -1 for s in key]
                    row = [*env, f"c{c}", y, ranker, *z, rng.randrange(2)]
                    if generated:
                        row.append(rng.choice([*labels, "", "maybe"]))
                    if coverage is not None:
                        row.append(coverage.get(f"{env[0]}:c{c}", 1))
                    rows.append(row)
    head = (
        HEADER
        + (["generated"] if generated else [])
        + (["evidence_covered"] if coverage is not None else [])
    )
    path = tmp / "t.csv"
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows([head, *rows])
    return path, rows


def invoke(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["orbit", *args])
    return res.exit_code, res.stdout + res.stderr


def test_generation_diagnostics_match_a_row_loop(tmp_path: Path) -> None:
    path, rows = table(tmp_path, 6, 4)
    code, out = invoke("diagnostics", str(path), "--json")
    assert code == 0, out
    got = json.loads(out)
    for key in [f"{d}:{r}" for d, r in {(row[0], row[1]) for row in rows}]:
        env_rows = [r for r in rows if f"{r[0]}:{r[1]}" == key]
        invalid = sum(r[9] not in ("+", "-") for r in env_rows)
        # forced choice decides y when correct, the other state when not
        decided = [r[3] if r[8] == 1 else ("-" if r[3] == "+" else "+") for r in env_rows]
        disagree = sum(r[9] != d for r, d in zip(env_rows, decided, strict=True))
        row = next(e for e in got["by_environment"] if e["environment"] == key)
        assert (row["rows"], row["invalid"], row["disagree"]) == (len(env_rows), invalid, disagree)
        assert row["disagreement"] >= row["invalidity"]
    inv = [e["invalidity"] for e in got["by_environment"]]
    assert got["invalidity_range"] == [min(inv), max(inv)]
    assert len(got["by_ranker"]) == 2 * len(got["by_environment"])
    code, text = invoke("diagnostics", str(path))
    assert "Generation diagnostics" in text and "invalidity" in text


def test_positive_label_maps_generated_labels(tmp_path: Path) -> None:
    path, rows = table(tmp_path, 4, 5, labels=("SUPPORTS", "REFUTES"))
    code, out = invoke("diagnostics", str(path), "--positive", "SUPPORTS", "--json")
    assert code == 0, out
    got = json.loads(out)
    assert sum(e["invalid"] for e in got["by_environment"]) == sum(
        r[9] not in ("SUPPORTS", "REFUTES") for r in rows
    )


def test_coverage_reproduces_the_calibration_figures(tmp_path: Path) -> None:
    """91.2% overall, 92.8% SUPPORTS, 89.6% REFUTES on 500 + 500 claims."""
    uncovered = {f"FEVER:c{c}": 0 for c in range(0, 72, 2)}  # 36 of 500 SUPPORTS
    uncovered |= {f"FEVER:c{c}": 0 for c in range(1, 105, 2)}  # 52 of 500 REFUTES
    path, _ = table(tmp_path, 1000, 6, coverage=uncovered, generated=False)
    code, out = invoke("coverage", str(path), "--required", "0.9", "--json")
    assert code == 0, out
    fever = next(d for d in json.loads(out)["datasets"] if d["dataset"] == "FEVER")
    assert (fever["claims"], fever["covered"]) == (1000, 912)
    assert [round(100 * fever[k], 1) for k in ("coverage", "coverage_plus", "coverage_minus")] == [
        91.2,
        92.8,
        89.6,
    ]
    assert fever["meets_requirement"] is True
    raguard = next(d for d in json.loads(out)["datasets"] if d["dataset"] == "RAGuard")
    assert raguard["coverage"] == 1.0


def test_coverage_must_be_constant_per_claim(tmp_path: Path) -> None:
    path, _ = table(tmp_path, 2, 7, coverage={}, generated=False)
    lines = path.read_text().splitlines()
    lines[5] = lines[5][: lines[5].rfind(",")] + ",0"
    path.write_text("\n".join(lines) + "\n")
    code, out = invoke("coverage", str(path))
    assert code == 2 and "t.csv:6:" in out and "evidence_covered differs from line 2" in out


def test_analyze_reports_the_checks_when_the_columns_exist(tmp_path: Path) -> None:
    path, _ = table(tmp_path, 8, 8, coverage={"FEVER:c0": 0})
    args = [
        "analyze",
        str(path),
        "--base",
        "BM25",
        "--variant",
        "BGE",
        "--bootstrap",
        "50",
        "--splits",
        "5",
    ]
    code, out = invoke(*args, "--json")
    assert code == 0, out
    got = json.loads(out)
    assert got["generation_diagnostics"]["by_environment"]
    assert got["coverage"]["datasets"][0]["covered"] == 7
    code, text = invoke(*args)
    assert "5. Input checks" in text and "Evidence-coverage pre-check" in text


def test_missing_column_is_named(tmp_path: Path) -> None:
    path, _ = table(tmp_path, 2, 9, generated=False)
    code, out = invoke("diagnostics", str(path))
    assert code == 2 and "missing column 'generated'" in out
