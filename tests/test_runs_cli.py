"""`evaudit runs fuse` and `evaudit runs compose` end to end: files written, read back, errors."""

from __future__ import annotations

import json
from pathlib import Path

from formats.readers import read_run
from scorers.fusion import RunInput, fuse
from tests.conftest import SAMPLE, run_cli


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_fuse_cli_writes_what_the_library_computes(tmp_path: Path) -> None:
    runs = [SAMPLE / "runs" / "bm25_doc.trec", SAMPLE / "runs" / "bm25_page.trec"]
    out = tmp_path / "rrf.trec"
    rep = json.loads(
        run_cli("runs", "fuse", "--run", runs[0], "--run", f"page={runs[1]}", "--out", out,
                "--json").stdout
    )  # fmt: skip
    assert rep["method"] == "rrf" and rep["k"] == 60 and rep["depth"] == 100
    assert [r["name"] for r in rep["runs"]] == ["bm25_doc", "page"]
    assert rep["tag"] == "rrf_fused" and rep["out"] == str(out)
    back = read_run(out)
    assert len(back) == rep["rows"] and set(back["tag"]) == {"rrf_fused"}
    inputs = [read_run(p) for p in runs]
    ranked, _ = fuse(
        [RunInput(str(i), d["query_id"], d["doc_id"], d["score"]) for i, d in enumerate(inputs)]
    )
    assert back["doc_id"].tolist() == ranked.doc_id.tolist()
    assert back["score"].tolist() == ranked.score.tolist()  # exact: scores round-trip
    assert back["rank"].tolist() == ranked.rank.tolist()


def test_fuse_cli_errors_write_nothing(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.trec", ["q1 Q0 d1 1 2.0 a", "q1 Q0 d2 2 1.0 a"])
    bad = _write(tmp_path / "bad.trec", ["q1 Q0 d1 1 2.0 b", "q1 Q0 d2 two 1.0 b"])
    out = tmp_path / "out.trec"
    res = run_cli("runs", "fuse", "--run", a, "--out", out, expect=2)
    assert "at least two runs" in res.stderr and not out.exists()
    res = run_cli("runs", "fuse", "--run", a, "--run", bad, "--out", out, expect=2)
    assert f"{bad}:2:" in res.stderr and not out.exists() and not res.stdout
    res = run_cli("runs", "fuse", "--run", a, "--run", f"x={a}", "--out", a, expect=2)
    assert "overwrite an input" in res.stderr
    res = run_cli("runs", "fuse", "--run", a, "--run", a, "--out", out, expect=2)
    assert "also used by" in res.stderr
    assert sorted(tmp_path.iterdir()) == sorted([a, bad])


def _queries(path: Path) -> Path:
    rows = [
        {"query_id": "q", "text": "t", "conditions": [
            {"condition_id": "c1", "name": "x", "requirement": "r"},
            {"condition_id": "c2", "name": "y", "requirement": "r"}]},
        {"query_id": "p", "text": "t", "conditions": [
            {"condition_id": "c1", "name": "x", "requirement": "r"}]},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_compose_cli(tmp_path: Path) -> None:
    qf = _queries(tmp_path / "q.jsonl")
    run = _write(tmp_path / "cond.trec", [
        "q::c1 Q0 A 1 9 r", "q::c1 Q0 B 2 5 r", "q::c1 Q0 C 3 1 r",
        "q::c2 Q0 B 1 4 r", "q::c2 Q0 A 2 3 r", "q::c2 Q0 D 3 0 r",
    ])  # fmt: skip
    out = tmp_path / "min.trec"
    rep = json.loads(
        run_cli("runs", "compose", "--queries", qf, "--method", "min", "--run", run,
                "--out", out, "--json").stdout
    )  # fmt: skip
    assert rep["queries"] == 1 and rep["queries_without_lists"] == 1
    assert rep["condition_lists"] == 2 and rep["rows"] == 4 and rep["tag"] == "compose_min"
    back = read_run(out)
    assert back["query_id"].tolist() == ["q"] * 4
    assert back["doc_id"].tolist() == ["A", "B", "C", "D"]
    assert back["score"].tolist() == [0.75, 0.5, 0.0, 0.0]


def test_compose_cli_injective_and_errors(tmp_path: Path) -> None:
    qf = _queries(tmp_path / "q.jsonl")
    run = _write(tmp_path / "pages.trec", [
        "q::c1 Q0 A#1 1 9 r", "q::c1 Q0 A#2 2 8 r", "q::c1 Q0 B#4 3 1 r",
        "q::c2 Q0 A#1 1 4 r", "q::c2 Q0 B#4 2 3 r",
    ])  # fmt: skip
    out = tmp_path / "inj.trec"
    run_cli("runs", "compose", "--queries", qf, "--method", "injective", "--run", run,
            "--out", out)  # fmt: skip
    back = read_run(out)
    # A: c1 takes page 2 (0.875) so c2 can take page 1 (1.0); B: c1 0, c2 0 -> mean 0.
    assert back["doc_id"].tolist() == ["A", "B"]
    assert back["score"].tolist() == [(0.875 + 1.0) / 2, 0.0]
    res = run_cli("runs", "compose", "--queries", qf, "--method", "min", "--run",
                  _write(tmp_path / "u.trec", ["q::c1 Q0 A 1 1 r", "q::c9 Q0 A 1 1 r"]),
                  "--out", tmp_path / "u.out", expect=2)  # fmt: skip
    assert "u.trec:2:" in res.stderr and "QUERY_ID::CONDITION_ID" in res.stderr
    res = run_cli("runs", "compose", "--queries", qf, "--method", "injective", "--run",
                  _write(tmp_path / "np.trec", ["q::c1 Q0 A 1 1 r"]), "--out",
                  tmp_path / "np.out", expect=2)  # fmt: skip
    assert "DOC_ID#PAGE" in res.stderr
    assert not (tmp_path / "u.out").exists() and not (tmp_path / "np.out").exists()
