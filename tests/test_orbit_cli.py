"""`evaudit orbit analyze` end to end on the shipped example and on broken tables."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from evaudit.cli import cli
from scorers.orbit.walsh import INTERFACES, SUBSET_KEYS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "orbit" / "orbit_example.csv"
FAST = ["--base", "BM25", "--variant", "BGE", "--bootstrap", "300", "--splits", "40"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["orbit", "analyze", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def example_json() -> dict:
    code, out, err = run(str(EXAMPLE), *FAST, "--json")
    assert code == 0, err
    return json.loads(out)


def small_table(tmp_path: Path, rows_filter=None, name: str = "t.csv") -> Path:
    """A 4-claim, 1-environment table; rows_filter may drop or edit rows."""
    rows = [["dataset", "reader", "claim_id", "y", "ranker", "z1", "z2", "z3", "correct"]]
    for claim, y in (("c1", "+"), ("c2", "+"), ("c3", "-"), ("c4", "-")):
        for ranker in ("B", "S"):
            for key in INTERFACES:
                z = [1 if c == "+" else -1 for c in key]
                rows.append(["D", "R", claim, y, ranker, *z, int(ranker == "S" or claim == "c1")])
    if rows_filter is not None:
        rows = rows[:1] + [r for r in (rows_filter(r) for r in rows[1:]) if r is not None]
    path = tmp_path / name
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return path


def test_example_regenerates_identically(tmp_path: Path) -> None:
    # The shipped example is what the generator script writes.
    before = EXAMPLE.read_bytes()
    script = ROOT / "examples" / "orbit" / "make_example.py"
    copy = tmp_path / "make_example.py"
    copy.write_text(script.read_text())
    subprocess.run([sys.executable, str(copy)], check=True, capture_output=True)
    assert (tmp_path / "orbit_example.csv").read_bytes() == before


def test_json_keys_follow_the_issue(example_json: dict) -> None:
    envs = example_json["environments"]
    assert [e["environment"] for e in envs] == [
        "FEVER:gemma",
        "FEVER:llama",
        "FEVER:qwen",
        "RAGuard:gemma",
        "RAGuard:llama",
    ]
    for e in envs:
        assert list(e["g"]) == list(INTERFACES) == list(e["h"])
        assert (
            list(e["walsh"]["g"])
            == list(SUBSET_KEYS)
            == ["0", "1", "2", "3", "12", "13", "23", "123"]
        )
        assert set(e["R"]["g"]) == set(e["R"]["h"]) == {"first", "high", "total"}
        # Reported coefficients reconstruct the reported cells.
        for obj in ("g", "h"):
            for key in INTERFACES:
                z = {str(j + 1): (1 if c == "+" else -1) for j, c in enumerate(key)}
                value = sum(
                    coef * (1 if t == "0" else __import__("math").prod(z[c] for c in t))
                    for t, coef in e["walsh"][obj].items()
                )
                assert value == pytest.approx(e[obj][key], abs=1e-12)
        assert e["decisions"]["sign"] in {
            "uniform_positive",
            "uniform_negative",
            "reversal",
            "uncertain",
        }
        lo, hi = e["simultaneous"]["R"]["g"]["total"]
        assert lo <= e["R"]["g"]["total"] <= hi
        assert set(e["selection"]) >= {"disagreement", "delta_v", "delta_v_interval", "operational"}
    assert set(example_json["replication"]) == {"environments", "H1", "H2a", "H2b"}
    assert example_json["thresholds"]["material"] == 0.015
    assert example_json["thresholds"]["max_error"] == 0.03


def test_seeded_runs_are_identical_and_seed_matters() -> None:
    first = run(str(EXAMPLE), *FAST, "--json", "--seed", "5")[1]
    again = run(str(EXAMPLE), *FAST, "--json", "--seed", "5")[1]
    other = run(str(EXAMPLE), *FAST, "--json", "--seed", "6")[1]
    assert first == again
    assert first != other
    # Point estimates do not depend on the seed; intervals do.
    a, b = json.loads(first), json.loads(other)
    assert a["environments"][0]["walsh"] == b["environments"][0]["walsh"]


def test_text_report_separates_the_four_questions() -> None:
    code, out, _ = run(
        str(EXAMPLE),
        *FAST,
        "--confirmatory",
        "FEVER:llama,FEVER:gemma",
        "--confirmatory",
        "RAGuard:llama",
    )
    assert code == 0
    for heading in (
        "1. Policy level",
        "2. Interface stability",
        "3. Policy ordering",
        "4. Selection value",
        "H1 ",
        "H2a ",
        "H2b ",
    ):
        assert heading in out
    assert "FEVER:qwen (descr.)" in out


def test_confirmatory_environments_form_their_own_family(example_json: dict) -> None:
    _, out, _ = run(str(EXAMPLE), *FAST, "--json", "--confirmatory", "FEVER:llama,RAGuard:gemma")
    result = json.loads(out)
    fam = result["families"]["coefficients"]
    assert fam["confirmatory"]["environments"] == ["FEVER:llama", "RAGuard:gemma"]
    assert fam["confirmatory"]["parameters"] == 2 * 2 * 7
    assert fam["descriptive"]["parameters"] == 3 * 2 * 7
    assert result["families"]["g_cells"]["confirmatory"]["parameters"] == 16
    assert result["replication"]["environments"] == ["FEVER:llama", "RAGuard:gemma"]


def test_parquet_input_gives_the_same_result(tmp_path: Path) -> None:
    frame = pd.read_csv(EXAMPLE)
    pq = tmp_path / "example.parquet"
    frame.to_parquet(pq)
    a = json.loads(run(str(EXAMPLE), *FAST, "--json")[1])
    b = json.loads(run(str(pq), *FAST, "--json")[1])
    assert a["environments"] == b["environments"]


def test_positive_label_mapping(tmp_path: Path) -> None:
    path = small_table(
        tmp_path, lambda r: [*r[:3], "SUPPORTS" if r[3] == "+" else "REFUTES", *r[4:]]
    )
    code, out, err = run(
        str(path),
        "--base",
        "B",
        "--variant",
        "S",
        "--bootstrap",
        "50",
        "--splits",
        "5",
        "--positive",
        "SUPPORTS",
        "--json",
    )
    assert code == 0, err
    env = json.loads(out)["environments"][0]
    # c1 is correct under both rankers, c2 only under S: d_+ = 1/2, d_- = 1, g = 3/4, h = -1/4.
    assert env["g"]["+++"] == 0.75 and env["h"]["+++"] == -0.25
    assert env["selection"] is None  # no log_odds column


def test_incomplete_design_names_the_row_and_the_fix(tmp_path: Path) -> None:
    path = small_table(
        tmp_path, lambda r: None if (r[2], r[4], r[5:8]) == ("c3", "S", [1, -1, 1]) else r
    )
    code, out, err = run(str(path), "--base", "B", "--variant", "S", "--json")
    assert code == 2 and out == ""
    assert "Traceback" not in err
    # Claim c3's rows start at line 2 + 2 * 16 = 34 of the CSV.
    assert f"{path}:34: claim 'c3' (D:R) is incomplete: no row for S +-+" in err
    assert "--drop-incomplete" in err


def test_drop_incomplete_drops_and_counts(tmp_path: Path) -> None:
    path = small_table(tmp_path, lambda r: None if (r[2], r[4]) == ("c2", "B") else r)
    code, out, err = run(
        str(path),
        "--base",
        "B",
        "--variant",
        "S",
        "--bootstrap",
        "50",
        "--splits",
        "5",
        "--drop-incomplete",
        "--json",
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["rows"]["dropped_claims"] == 1
    assert result["rows"]["dropped"][0]["claim_id"] == "c2"
    assert len(result["rows"]["dropped"][0]["missing"]) == 8
    assert result["environments"][0]["claims"] == {"+": 1, "-": 2}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: [*r[:5], 0, *r[6:]] if r[2] == "c2" else r, ":18: z1 is '0', not -1 or +1"),
        (lambda r: [*r[:8], "yes"] if r[2] == "c4" else r, ":50: correct is 'yes', not 0 or 1"),
        (lambda r: [*r[:3], "maybe", *r[4:]] if r[2] == "c1" else r, ":2: y is 'maybe'"),
        (
            lambda r: [*r[:3], "-", *r[4:]] if (r[2], r[4]) == ("c1", "S") else r,
            ":10: claim 'c1' of 'D' has y '-' but line 2 gives '+'",
        ),
    ],
)
def test_bad_values_name_their_line(tmp_path: Path, edit, message: str) -> None:
    path = small_table(tmp_path, edit)
    code, out, err = run(str(path), "--base", "B", "--variant", "S")
    assert code == 2 and out == ""
    assert message in err, err


def test_duplicate_rows_and_other_input_errors(tmp_path: Path) -> None:
    path = small_table(tmp_path, lambda r: r)
    with path.open("a") as fh:
        fh.write("D,R,c1,+,B,1,1,1,1\n")
    code, _, err = run(str(path), "--base", "B", "--variant", "S")
    assert code == 2 and ":66: duplicate row for claim 'c1' (D:R), ranker B, interface +++" in err
    ok = small_table(tmp_path, name="ok.csv")
    cases = [
        (["--base", "B", "--variant", "X"], "ranker 'X' (--variant) never occurs"),
        (["--base", "B", "--variant", "S", "--canonical", "++"], "--canonical '++' is not"),
        (["--base", "B", "--variant", "S", "--confirmatory", "D:Q"], "unknown environment(s) D:Q"),
        (["--base", "B", "--variant", "S", "--validation-fraction", "1.5"], "not between 0 and 1"),
    ]
    for args, message in cases:
        code, out, err = run(str(ok), *args)
        assert code == 2 and out == "" and message in err, err
    missing = tmp_path / "missing.csv"
    missing.write_text("dataset,reader,claim_id\nD,R,c1\n")
    code, _, err = run(str(missing), "--base", "B", "--variant", "S")
    assert code == 2 and "missing.csv:1: missing column(s) y, ranker, z1" in err
    code, _, err = run(str(tmp_path / "nope.csv"), "--base", "B", "--variant", "S")
    assert code == 2 and "file not found" in err


def test_installed_console_script_prints_pure_json() -> None:
    exe = Path(sys.executable).with_name("evaudit")
    proc = subprocess.run(
        [str(exe), "orbit", "analyze", str(EXAMPLE), *FAST, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout)["base"] == "BM25"
