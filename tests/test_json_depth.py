"""Input nested deeper than Python's JSON reader allows is bad input, never a traceback.

`json.loads` raises RecursionError past about a thousand levels; `vocabulary.jsonread`
turns it into the `json.JSONDecodeError` every reader handles, so a file given on the
command line gets its one-line `file:line` error and a records line is counted malformed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.test_rop_helpers import bundle
from vocabulary.jsonread import TOO_DEEP, json_loads

ROOT = Path(__file__).resolve().parent.parent
EVAUDIT = str(ROOT / ".venv" / "bin" / "evaudit")
DEEP = "[" * 100_000 + "]" * 100_000


def test_json_loads_is_json_loads_until_too_deep() -> None:
    for text in ('{"a": [1, {"b": null}]}', "[]", '"x"', "[" * 200 + "]" * 200):
        assert json_loads(text) == json.loads(text)
        assert json_loads(text.encode()) == json.loads(text)
    with pytest.raises(json.JSONDecodeError) as exc:
        json_loads(DEEP)
    assert exc.value.msg == TOO_DEEP
    with pytest.raises(json.JSONDecodeError):
        json_loads('{"x": ' + DEEP + "}")
    with pytest.raises(RecursionError):
        json.loads(DEEP)  # what the wrapper is for


def test_a_too_deep_queries_line_is_a_one_line_error(tmp_path: Path) -> None:
    good = json.loads((ROOT / "sample_packets" / "queries.jsonl").read_text().splitlines()[0])
    path = tmp_path / "queries.jsonl"
    path.write_text(json.dumps(good) + "\n" + '{"query_id": "q9", "x": ' + DEEP + "}\n")
    out = subprocess.run(
        [EVAUDIT, "queries", "check", "--queries", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert f"{path}:2:" in out.stderr and TOO_DEEP in out.stderr


def test_a_too_deep_records_line_is_one_malformed_record(tmp_path: Path) -> None:
    rows = [
        {"record_id": "r0", "sel": "a1", "ranking": ["A"]},
        '{"record_id": "r1", "sel": "a1", "ranking": ["A"], "x": ' + DEEP + "}\n",
    ]
    data, files = bundle(rows, ["r0", "r1"], {"version": "t", "objects": {"A": ["a1"]}})
    (tmp_path / "decl.json").write_bytes(data)
    for name, body in files.items():
        assert body is not None
        (tmp_path / name).write_bytes(body)
    out = subprocess.run(
        [EVAUDIT, "rop", "evaluate", str(tmp_path / "decl.json"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in out.stderr, out.stderr
    report = json.loads(out.stdout)
    assert report["record_verdicts"] == {"r0": "PASS"}
    assert report["malformed_record_ids"] == ["line 2"]
    assert report["missing_record_ids"] == ["r1"]
    assert report["run_status"] == "RUN_INVALID" and out.returncode == 3
