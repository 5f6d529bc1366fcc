"""`ingest --beir` reads a well-formed corpus.jsonl with Arrow's JSON reader; the store
rows and the report equal those of the per-line reader (the reference), and any file
the fast path cannot vouch for goes to the reference, which names the bad line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

import packet_builder.beir_fast as beir_fast
from tests.conftest import cli_json, run_cli

ENTRIES: list[dict[str, Any]] = [
    {"_id": "d1", "title": "Solar eclipse", "text": "Seen over the Pacific.", "metadata": {}},
    {"_id": "d2", "text": "No title key at all."},
    {"_id": "d3", "title": None, "text": "A null title."},
    {"_id": "d4", "title": "", "text": "\u2003 Unicode spaces \u00a0 trimmed \u3000"},
    {"_id": "d5", "title": "Only a title", "text": ""},
    {"_id": "d6", "title": " ", "text": "   "},  # a blank page: counted as not extracted
    {"_id": "d7", "title": "Caf\u00e9 \u2014 na\u00efve", "text": "\u00fcber \U0001f600 text\x1f"},
]


def _tables(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = duckdb.connect(str(root / "audit.duckdb"), read_only=True)
    try:
        return {
            "documents": con.execute(
                "SELECT doc_id, source_path, kind, sha256, n_pages FROM documents ORDER BY 1"
            ).fetchall(),
            "pages": con.execute("SELECT * FROM pages ORDER BY 1, 2").fetchall(),
            "extraction": con.execute("SELECT * FROM extraction ORDER BY 1").fetchall(),
        }
    finally:
        con.close()


def _beir(folder: Path, entries: list[dict[str, Any]]) -> Path:
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8"
    )
    return folder


def _both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entries: list[dict[str, Any]]) -> Any:
    beir = _beir(tmp_path / "beir", entries)
    calls: list[bool] = []
    real = beir_fast.read_corpus

    def spy(folder: Path) -> Any:
        out = real(folder)
        calls.append(out is not None)
        return out

    results = []
    for name, reader in (("fast", spy), ("reference", lambda folder: None)):
        monkeypatch.setattr(beir_fast, "read_corpus", reader)
        root = tmp_path / name
        run_cli("init", root, "--admin-password", "pw-for-tests")
        rep = cli_json("ingest", root, "--beir", beir, "--source", "s1")
        results.append((rep, _tables(root), root))
    return results, calls, beir


def test_fast_path_equals_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (fast, ref), calls, beir = _both(tmp_path, monkeypatch, ENTRIES)
    assert calls == [True]  # the fast path answered
    assert fast[0] == ref[0]
    assert fast[0]["extraction"]["s1"]["pages_extracted"] == len(ENTRIES) - 1
    assert fast[1] == ref[1] and len(fast[1]["pages"]) == len(ENTRIES)
    # Re-ingest with one passage changed: one written, the rest unchanged, on both paths.
    changed = [dict(e) for e in ENTRIES]
    changed[0]["text"] = "Seen over the Atlantic."
    _beir(beir, changed)
    again: list[Any] = []
    for reader in (beir_fast.read_corpus, lambda folder: None):
        monkeypatch.setattr(beir_fast, "read_corpus", reader)
        root = fast[2] if len(again) == 0 else ref[2]
        again.append((cli_json("ingest", root, "--beir", beir, "--source", "s1"), _tables(root)))
    assert again[0] == again[1]
    assert again[0][0]["documents"] == 1 and again[0][0]["unchanged"] == len(ENTRIES) - 1


@pytest.mark.parametrize(
    "bad, where, what",
    [
        ({"_id": "d1", "text": "again"}, ":8", "duplicate _id 'd1'"),
        ({"_id": "", "text": "x"}, ":8", "empty string '_id'"),
        ({"_id": 9, "text": "x"}, ":8", "'_id'"),
        ({"_id": "d9"}, ":8", "'text'"),
    ],
)
def test_what_the_fast_path_refuses_goes_to_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: dict[str, Any], where: str | None,
    what: str | None,
) -> None:  # fmt: skip
    beir = _beir(tmp_path / "beir", [*ENTRIES, bad])
    assert beir_fast.read_corpus(beir) is None
    root = tmp_path / "p"
    run_cli("init", root, "--admin-password", "pw-for-tests")
    if where is None or what is None:
        assert cli_json("ingest", root, "--beir", beir)["documents"] == len(ENTRIES) + 1
        return
    err = run_cli("ingest", root, "--beir", beir, expect=2).stderr
    assert f"corpus.jsonl{where}" in err and what in err, err
    con = duckdb.connect(str(root / "audit.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM documents").fetchone() == (0,)
    con.close()


def test_a_corpus_over_the_size_cap_is_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    beir = _beir(tmp_path / "beir", ENTRIES)
    assert beir_fast.read_corpus(beir) is not None
    monkeypatch.setattr(beir_fast, "MAX_BYTES", 10)
    assert beir_fast.read_corpus(beir) is None
