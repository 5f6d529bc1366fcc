"""Validation of joined replay records ("Does the Selected Object Reach the Reader?", Appendix A)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from scorers.rop.replay import returned_list_sha256
from tests.conftest import cli_json, run_cli

RUNS = [
    {
        "record_id": "r1",
        "question_id": "q1",
        "model": "claude",
        "rankings": {"bm25": ["a", "b"], "final": ["b", "a"]},
    },
    {"record_id": "r2", "question_id": "q2", "returned": ["c"]},
]


def _h(ids: list[str]) -> str:
    return returned_list_sha256(ids)


def _files(tmp: Path, reader: list[dict[str, Any]]) -> tuple[Path, Path]:
    (tmp / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS))
    (tmp / "reader.jsonl").write_text("".join(json.dumps(r) + "\n" for r in reader))
    return tmp / "runs.jsonl", tmp / "reader.jsonl"


GOOD = [
    {
        "reader_id": "a1",
        "run_record_id": "r1",
        "question_id": "q1",
        "model": "claude",
        "stack": "final",
        "returned_sha256": _h(["b", "a"]),
    },
    {"reader_id": "a2", "run_record_id": "r2", "question_id": "q2", "returned_sha256": _h(["c"])},
]


def test_hash_is_the_population_hash_form() -> None:
    assert _h(["b", "a"]) == hashlib.sha256(b"b\na\n").hexdigest()


def test_accepted_records(tmp_path: Path) -> None:
    runs, reader = _files(tmp_path, GOOD)
    out = cli_json("rop", "replay-check", "--runs", runs, "--reader", reader)
    assert (out["valid"], out["accepted"], out["rejected"], out["run_records_read"]) == (
        True,
        2,
        0,
        2,
    )


def test_each_mismatch_is_rejected_with_its_reason(tmp_path: Path) -> None:
    base = GOOD[0]
    bad = [
        ({**base, "run_record_id": "r9"}, "run record 'r9' is not declared"),
        ({**base, "question_id": "q2"}, "question_id 'q2' differs"),
        ({**base, "model": "gpt"}, "model 'gpt' differs"),
        ({**base, "stack": "bge"}, "stack 'bge' is not in the run record"),
        ({k: v for k, v in base.items() if k != "stack"}, "no 'stack' and the run record has 2"),
        ({**base, "returned_sha256": _h(["a", "b"])}, "returned_sha256 differs"),
        ({k: v for k, v in base.items() if k != "run_record_id"}, "no 'run_record_id'"),
    ]
    runs, reader = _files(tmp_path, [*GOOD, *(row for row, _ in bad)])
    result = run_cli("rop", "replay-check", "--runs", runs, "--reader", reader, "--json", expect=1)
    out = json.loads(result.stdout)
    assert (out["valid"], out["accepted"], out["rejected"], out["run_records"]) == (
        False,
        2,
        len(bad),
        2,
    )
    for rejection, (_, reason) in zip(out["rejections"], bad, strict=True):
        assert reason in rejection["reason"]
    assert [r["line"] for r in out["rejections"]] == list(range(3, 3 + len(bad)))
    text = run_cli("rop", "replay-check", "--runs", runs, "--reader", reader, expect=1).stdout
    assert f"{reader}:3: run record 'r9' is not declared" in text


def test_bad_run_record_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "runs.jsonl").write_text('{"record_id": "r1", "question_id": "q"}\n')
    (tmp_path / "reader.jsonl").write_text("")
    result = run_cli(
        "rop",
        "replay-check",
        "--runs",
        tmp_path / "runs.jsonl",
        "--reader",
        tmp_path / "reader.jsonl",
        expect=2,
    )
    assert "runs.jsonl:1: needs 'rankings'" in result.output
