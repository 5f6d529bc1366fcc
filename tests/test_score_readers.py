"""TREC readers: the pyarrow fast path returns exactly what the pandas path does, errors unchanged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from formats import qrels, readers
from scorers.runs import bind_qrels, measure, rank_run
from vocabulary.errors import InputError


def _slow(monkeypatch: pytest.MonkeyPatch) -> None:
    # Not a mock of behaviour: disables the optional fast path to get the reference parse.
    monkeypatch.setattr(readers, "_arrow_trec", lambda *a, **k: None)
    monkeypatch.setattr(qrels, "_arrow_trec", lambda *a, **k: None)


def _write_run(path: Path, sep: str = " ", rows: int = 500, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(20):
        for r, d in enumerate(rng.choice(1000, rows // 20, replace=False), start=1):
            lines.append(
                sep.join([f"q{q}", "Q0", f"doc-{d}", str(r), f"{rng.normal():.6g}", "tag"])
            )
    path.write_text("\n".join(lines) + "\n")


def test_fast_run_reader_equals_pandas_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "r.trec"
    _write_run(p)
    fast = readers.read_run(p)
    _slow(monkeypatch)
    pd.testing.assert_frame_equal(fast, readers.read_run(p))


def test_fast_qrels_reader_equals_pandas_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "q.txt"
    p.write_text("".join(f"q{i % 7} 0 d{i} {i % 4}\n" for i in range(300)))
    fast = qrels.read_qrels(p)
    _slow(monkeypatch)
    pd.testing.assert_frame_equal(fast, qrels.read_qrels(p))


def test_tabs_and_runs_of_spaces_still_read(tmp_path: Path) -> None:
    p, t = tmp_path / "s.trec", tmp_path / "t.trec"
    _write_run(p)
    _write_run(t, sep="\t")
    pd.testing.assert_frame_equal(readers.read_run(p), readers.read_run(t))
    q = tmp_path / "q.txt"
    q.write_text("q1  0 d1 2\nq1\t0\td2\t1\n")
    assert qrels.read_qrels(q)["grade"].tolist() == [2, 1]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 0 d1 1\nq1 0 d1 2\n", ":2: duplicate qrel for query 'q1' and document 'd1'"),
        ("q1 0 d1 1\nq1 0 d2 -1\n", ":2: negative grade -1"),
        ("q1 0 d1 1\nq1 0 d2 x\n", ":2: grade 'x' is not a valid int"),
        ("q1 0 d1 1\nq1 0 d2\n", ":2: expected 4 fields"),
    ],
)
def test_qrels_errors_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "q.txt"
    p.write_text(text)
    with pytest.raises(InputError) as exc:
        qrels.read_qrels(p)
    assert message in exc.value.render()


def test_run_errors_name_the_line(tmp_path: Path) -> None:
    p = tmp_path / "r.trec"
    p.write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 nan? t\n")
    with pytest.raises(InputError, match=r"r.trec:2: score 'nan\?' is not a valid float"):
        readers.read_run(p)


def test_sorted_and_shuffled_runs_rank_alike() -> None:
    """The no-sort path for already ranked files gives what the sort gives, in both tie modes."""
    rng = np.random.default_rng(4)
    qids = [f"q{i}" for i in range(30)]
    rows = [(q, f"d{d}", int(rng.integers(0, 3))) for q in qids for d in range(20)]
    b = bind_qrels(qids, [2] * 30, *zip(*rows, strict=True), k=5)
    run = [(q, f"d{d}", float(rng.integers(0, 6))) for q in qids for d in range(25)]
    ranked = sorted(run, key=lambda r: (r[0], -r[2]))  # stable: keeps file order among ties
    # Interleave queries but keep each query's own row order: file mode must agree.
    interleaved = sorted(ranked, key=lambda r: -r[2])
    for ties in ("file", "trec_eval"):
        a = rank_run(b, *zip(*ranked, strict=True), ties=ties)
        c = rank_run(b, *zip(*interleaved, strict=True), ties=ties)
        assert np.array_equal(a.grades, c.grades)
        assert np.array_equal(measure(b, a).outcome, measure(b, c).outcome)
    # A full shuffle changes file order among ties, so only trec_eval mode must agree.
    sh = [ranked[i] for i in rng.permutation(len(ranked))]
    a = rank_run(b, *zip(*ranked, strict=True), ties="trec_eval")
    c = rank_run(b, *zip(*sh, strict=True), ties="trec_eval")
    assert np.array_equal(a.grades, c.grades)


def test_fast_jsonl_qrels_equal_checked_path(tmp_path: Path) -> None:
    import json

    p = tmp_path / "q.jsonl"
    rows = [{"query_id": f"q{i % 5}", "doc_id": f"d{i}", "grade": i % 3} for i in range(200)]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fast = qrels.read_qrels(p)
    t = tmp_path / "q.txt"
    t.write_text("".join(f"{r['query_id']} 0 {r['doc_id']} {r['grade']}\n" for r in rows))
    pd.testing.assert_frame_equal(fast, qrels.read_qrels(t))
    # Anything unclean takes the checked path and names the line.
    p.write_text(json.dumps(rows[0]) + "\n" + json.dumps({**rows[1], "grade": 1.5}) + "\n")
    with pytest.raises(InputError, match=r"q.jsonl:2: qrel grade must be an integer"):
        qrels.read_qrels(p)
    p.write_text(json.dumps(rows[0]) + "\n" + json.dumps(rows[0]) + "\n")
    with pytest.raises(InputError, match=r"q.jsonl:2: duplicate qrel"):
        qrels.read_qrels(p)
