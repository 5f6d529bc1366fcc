"""`ingest --manifest`: every local file whose SHA-256 differs from the manifest's or that
is missing is reported (text and JSON); with --strict it is an error and nothing is
written. Real PDFs and a real BEIR folder; the hashes are those of `sha256sum`."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import duckdb

from tests.conftest import cli_json, make_pdf, run_cli


def _sha(path: Path) -> str:
    # The reference a team would publish: coreutils' sha256sum of the downloaded file.
    out = subprocess.run(["sha256sum", str(path)], capture_output=True, text=True, check=True)
    return out.stdout.split()[0]


def _docs(root: Path) -> list[str]:
    con = duckdb.connect(str(root / "audit.duckdb"), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT doc_id FROM documents ORDER BY 1").fetchall()]
    finally:
        con.close()


def _pdfs(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    d = tmp_path / "pdfs"
    make_pdf(d / "alpha.pdf", ["Alpha first page.", "Alpha second page."])
    make_pdf(d / "beta.pdf", ["Beta page."])
    make_pdf(d / "gamma.pdf", ["Gamma page."])
    return d, {n: _sha(d / f"{n}.pdf") for n in ("alpha", "beta", "gamma")}


def test_pdf_folder_differing_missing_and_unlisted(tmp_path: Path, project: Path) -> None:
    d, sha = _pdfs(tmp_path)
    rows = [
        {"doc_id": "alpha", "url": "https://example.org/alpha.pdf", "sha256": sha["alpha"]},
        {"doc_id": "beta", "url": "https://example.org/beta.pdf", "sha256": sha["gamma"]},
        {"doc_id": "delta", "url": "https://example.org/delta.pdf", "sha256": "0" * 64},
    ]
    man = tmp_path / "corpus.jsonl"
    man.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rep = cli_json("ingest", project, "--pdf-dir", d, "--manifest", man)["manifest"]
    assert rep["rows"] == 3 and rep["matched"] == 1 and rep["ok"] is False
    assert rep["differs"] == [{"doc_id": "beta", "url": rows[1]["url"], "file": str(d / "beta.pdf"),
                               "expected": sha["gamma"], "actual": sha["beta"]}]  # fmt: skip
    assert rep["missing"] == [
        {"doc_id": "delta", "url": rows[2]["url"], "file": str(d / "delta.pdf")}
    ]
    assert rep["unlisted"] == [str(d / "gamma.pdf")]
    assert _docs(project) == ["alpha", "beta", "gamma"]  # without --strict it still ingests


def test_strict_refuses_and_writes_nothing(tmp_path: Path, project: Path) -> None:
    d, sha = _pdfs(tmp_path)
    man = tmp_path / "corpus.tsv"
    man.write_text(
        "doc_id\turl\tsha256\n"
        + "".join(f"{n}\thttps://example.org/{n}.pdf\t{sha[n]}\n" for n in ("alpha", "gamma"))
        + f"beta\thttps://example.org/beta.pdf\t{sha['alpha'].upper()}\n"
    )
    res = run_cli("ingest", project, "--pdf-dir", d, "--manifest", man, "--strict", expect=2)
    assert "beta.pdf" in res.stderr and "differs" in res.stderr
    assert _docs(project) == []
    text = run_cli("ingest", project, "--pdf-dir", d, "--manifest", man).stdout
    assert text.splitlines()[0].startswith(f"manifest {man}: 2/3 files match; 1 differ; 0 missing")
    # The same corpus rebuilt: all match, --strict passes.
    man.write_text(
        "doc_id\turl\tsha256\n"
        + "".join(f"{n}\thttps://example.org/{n}.pdf\t{sha[n]}\n" for n in sha)
    )
    again = tmp_path / "again"
    run_cli("init", again, "--admin-password", "pw-for-tests")
    ok = cli_json("ingest", again, "--pdf-dir", d, "--manifest", man, "--strict")
    assert ok["manifest"]["ok"] is True and ok["manifest"]["matched"] == 3
    assert _docs(again) == ["alpha", "beta", "gamma"]


def test_beir_corpus_file_by_url_name(tmp_path: Path, project: Path) -> None:
    beir = tmp_path / "scifact"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text('{"_id": "d1", "title": "T", "text": "x"}\n')
    (beir / "queries.jsonl").write_text('{"_id": "q1", "text": "q"}\n')
    want = hashlib.sha256((beir / "corpus.jsonl").read_bytes()).hexdigest()
    assert want == _sha(beir / "corpus.jsonl")
    man = tmp_path / "m.jsonl"
    man.write_text(
        json.dumps({"doc_id": "corpus", "url": "https://h.example/scifact/corpus.jsonl", "sha256": want}) + "\n"
        + json.dumps({"doc_id": "queries", "url": "https://h.example/q.jsonl", "sha256": want,
                      "file": "scifact/queries.jsonl"}) + "\n"
    )  # fmt: skip
    rep = cli_json("ingest", project, "--beir", beir, "--manifest", man)["manifest"]
    assert rep["matched"] == 1 and [x["doc_id"] for x in rep["differs"]] == ["queries"]
    assert rep["differs"][0]["file"] == str(tmp_path / "scifact" / "queries.jsonl")


def test_bad_manifest_lines(tmp_path: Path, project: Path) -> None:
    d, _ = _pdfs(tmp_path)
    cases = {
        "dup.tsv": (
            "doc_id\turl\tsha256\na\tu\t" + "a" * 64 + "\na\tv\t" + "b" * 64 + "\n",
            "dup.tsv:3",
            "duplicate doc_id 'a'",
        ),
        "short.tsv": ("doc_id\turl\tsha256\na\tu\t" + "a" * 63 + "\n", "short.tsv:2", "64 hex"),
        "head.tsv": ("doc_id\turl\na\tu\n", "head.tsv:1", "lacks sha256"),
        "nourl.jsonl": (
            '{"doc_id": "a", "sha256": "' + "a" * 64 + '"}\n',
            "nourl.jsonl:1",
            "'url'",
        ),
    }
    for name, (body, where, what) in cases.items():
        (tmp_path / name).write_text(body)
        err = run_cli("ingest", project, "--pdf-dir", d, "--manifest", tmp_path / name,
                      expect=2).stderr  # fmt: skip
        assert where in err and what in err, err
        assert len(err.strip().splitlines()) == 1, err
    assert _docs(project) == []
