"""`evaudit fetch` against a real HTTP server on loopback, started by the test.

The server's paths play the cases a team meets when it rebuilds a corpus from URLs:
a plain file, a server that ignores Range, one that cuts the transfer once (resumed),
one that always cuts it (the partial file kept, resumed by the next run), a slow one
(timeout), a wrong file (hash mismatch: nothing written), a redirect loop, a redirect
to file://, a 404, a 500 that recovers, and a file over the size limit.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import run_cli

BODY = {name: (name * 3000).encode() for name in ("alpha", "beta", "gamma", "delta", "eps")}


class _State:
    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        self.ranges: list[str] = []
        self.always_cut = True


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, data: bytes, *, honour_range: bool = True, cut: bool = False) -> None:
            rng = self.headers.get("Range")
            start = 0
            if rng and honour_range:
                state.ranges.append(rng)
                start = int(rng.removeprefix("bytes=").split("-")[0])
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            body = data[start:]
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2] if cut else body)
            if cut:
                self.wfile.flush()
                self.close_connection = True

        def do_GET(self) -> None:
            path = self.path
            n = state.hits[path] = state.hits.get(path, 0) + 1
            if path == "/ok/alpha":
                self._send(BODY["alpha"])
            elif path == "/norange/beta":
                self._send(BODY["beta"], honour_range=False)
            elif path == "/cut-once/gamma":
                self._send(BODY["gamma"], cut=n == 1)
            elif path == "/cut-always/delta":
                self._send(BODY["delta"], cut=state.always_cut)
            elif path == "/slow":
                time.sleep(1.5)
                self._send(BODY["alpha"])
            elif path == "/wrong":
                self._send(b"not the file the manifest names")
            elif path == "/loop":
                self.send_response(302)
                self.send_header("Location", "/loop")
                self.end_headers()
            elif path == "/to-file":
                self.send_response(302)
                self.send_header("Location", "file:///etc/passwd")
                self.end_headers()
            elif path == "/to-ftp":
                self.send_response(302)
                self.send_header("Location", "ftp://127.0.0.1/x.pdf")
                self.end_headers()
            elif path == "/hop":
                self.send_response(301)
                self.send_header("Location", "/ok/alpha")
                self.end_headers()
            elif path == "/flaky/eps":
                if n == 1:
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self._send(BODY["eps"])
            elif path == "/big":
                self._send(b"x" * 300_000)
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

    return Handler


class _Quiet(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that timed out leaves a broken pipe: expected here


@pytest.fixture
def server() -> Iterator[tuple[str, _State]]:
    state = _State()
    httpd = _Quiet(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    finally:
        httpd.shutdown()
        httpd.server_close()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _manifest(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    path.write_text(
        "".join(json.dumps({"doc_id": d, "url": u, "sha256": s}) + "\n" for d, u, s in rows),
        encoding="utf-8",
    )
    return path


def _fetch(project: Path, manifest: Path, out: Path, *extra: str, expect: int = 0) -> dict:
    res = run_cli("fetch", project, "--manifest", manifest, "--out", out, "--backoff", "0",
                  "--timeout", "0.5", *extra, "--json", expect=expect)  # fmt: skip
    return json.loads(res.stdout)


def test_every_case_reported_by_line(project: Path, tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    base, state = server
    good = _sha(BODY["alpha"])
    manifest = _manifest(tmp_path / "m.jsonl", [
        ("a", f"{base}/ok/alpha", good),
        ("b", f"{base}/norange/beta", _sha(BODY["beta"])),
        ("c", f"{base}/cut-once/gamma", _sha(BODY["gamma"])),
        ("slow", f"{base}/slow", good),
        ("wrong", f"{base}/wrong", good),
        ("loop", f"{base}/loop", good),
        ("tofile", f"{base}/to-file", good),
        ("hop", f"{base}/hop", good),
        ("missing", f"{base}/nothing-here", good),
        ("e", f"{base}/flaky/eps", _sha(BODY["eps"])),
        ("big", f"{base}/big", _sha(b"x" * 300_000)),
        ("ftp", "ftp://127.0.0.1/x.pdf", good),
        ("toftp", f"{base}/to-ftp", good),
    ])  # fmt: skip
    out = tmp_path / "pdfs"
    rep = _fetch(project, manifest, out, "--max-mb", "0.2", "--attempts", "2", expect=1)
    by = {f["doc_id"]: f for f in rep["files"]}
    assert [f["line"] for f in rep["files"]] == list(range(1, 14))
    for doc, body in (
        ("a", "alpha"),
        ("b", "beta"),
        ("c", "gamma"),
        ("hop", "alpha"),
        ("e", "eps"),
    ):
        assert by[doc]["status"] == "fetched", by[doc]
        assert (out / f"{doc}.pdf").read_bytes() == BODY[body]
    assert by["c"]["resumed"] is True and by["c"]["attempts"] == 2
    assert state.ranges and state.ranges[0].startswith("bytes=")
    assert by["e"]["attempts"] == 2
    expected_errors = {
        "slow": "gave up after 2 attempts",
        "wrong": "differs from the manifest's",
        "loop": "more than 5 redirects",
        "tofile": "file:///etc/passwd",
        "toftp": "non-HTTP(S) URL refused: ftp://127.0.0.1/x.pdf",
        "missing": "HTTP 404",
        "big": "over the limit",
        "ftp": "only http and https",
    }
    for doc, text in expected_errors.items():
        assert by[doc]["status"] == "failed" and text in by[doc]["error"], by[doc]
        assert not (out / f"{doc}.pdf").exists()
    assert by["missing"]["attempts"] == 1
    assert state.hits["/loop"] == 6
    assert rep["fetched"] == 5 and rep["failed"] == 8 and rep["ok"] is False
    # Mismatched and oversized files leave no partial behind; a timed-out one may resume.
    assert not (out / "wrong.pdf.part").exists() and not (out / "big.pdf.part").exists()


def test_text_output_names_each_failure_line(project: Path, tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    base, _ = server
    manifest = _manifest(tmp_path / "m.jsonl", [
        ("a", f"{base}/ok/alpha", _sha(BODY["alpha"])),
        ("wrong", f"{base}/wrong", _sha(BODY["alpha"])),
    ])  # fmt: skip
    res = run_cli("fetch", project, "--manifest", manifest, "--out", tmp_path / "o",
                  "--backoff", "0", expect=1)  # fmt: skip
    assert "1 fetched, 0 already present, 1 failed of 2" in res.stdout
    assert f"{manifest}:2" in res.stdout and "nothing written" in res.stdout


def test_cut_transfer_resumes_on_the_next_run(project: Path, tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    base, state = server
    manifest = _manifest(tmp_path / "m.jsonl",
                         [("d", f"{base}/cut-always/delta", _sha(BODY["delta"]))])  # fmt: skip
    out = tmp_path / "pdfs"
    rep = _fetch(project, manifest, out, "--attempts", "1", expect=1)
    assert rep["files"][0]["status"] == "failed"
    part = out / "d.pdf.part"
    assert part.is_file() and 0 < part.stat().st_size < len(BODY["delta"])
    assert not (out / "d.pdf").exists()
    state.always_cut = False
    rep = _fetch(project, manifest, out)
    assert rep["files"][0]["status"] == "fetched" and rep["files"][0]["resumed"] is True
    assert (out / "d.pdf").read_bytes() == BODY["delta"] and not part.exists()
    # A third run finds the file in place and downloads nothing.
    hits = state.hits["/cut-always/delta"]
    rep = _fetch(project, manifest, out)
    assert rep["files"][0]["status"] == "present" and state.hits["/cut-always/delta"] == hits


def test_a_wrong_file_never_replaces_a_kept_one(project: Path, tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    base, _ = server
    out = tmp_path / "pdfs"
    out.mkdir()
    (out / "x.pdf").write_bytes(b"old bytes")
    manifest = _manifest(tmp_path / "m.jsonl", [("x", f"{base}/wrong", _sha(BODY["alpha"]))])
    rep = _fetch(project, manifest, out, expect=1)
    assert rep["files"][0]["status"] == "failed"
    assert (out / "x.pdf").read_bytes() == b"old bytes"


def test_unsafe_destinations_are_refused(project: Path, tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    base, _ = server
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(
        json.dumps({"doc_id": "a/../../etc", "url": f"{base}/ok/alpha", "sha256": "0" * 64})
        + "\n"
        + json.dumps(
            {"doc_id": "b", "url": f"{base}/ok/alpha", "sha256": "0" * 64, "file": "../outside.pdf"}
        )
        + "\n",
        encoding="utf-8",
    )
    rep = _fetch(project, manifest, tmp_path / "o", expect=1)
    assert [f["status"] for f in rep["files"]] == ["failed", "failed"]
    assert "cannot be a file name" in rep["files"][0]["error"]
    assert "relative path inside" in rep["files"][1]["error"]
    assert not (tmp_path / "outside.pdf").exists()


def test_fetched_files_pass_ingest_manifest_check(project: Path, tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import make_pdf

    base, _ = server
    pdf = make_pdf(tmp_path / "src.pdf", ["A page about retrieval evaluation."])
    data = pdf.read_bytes()
    BODY["alpha"] = data
    try:
        manifest = _manifest(tmp_path / "m.jsonl", [("doc1", f"{base}/ok/alpha", _sha(data))])
        out = tmp_path / "pdfs"
        _fetch(project, manifest, out)
        res = run_cli("ingest", project, "--pdf-dir", out, "--manifest", manifest, "--strict")
        assert "1/1 files match" in res.stdout
    finally:
        BODY["alpha"] = b"alpha" * 3000


def test_bad_manifest_is_one_line_error(project: Path, tmp_path: Path) -> None:
    bad = tmp_path / "m.jsonl"
    bad.write_text('{"doc_id": "a", "url": "http://x"}\n', encoding="utf-8")
    res = run_cli("fetch", project, "--manifest", bad, expect=2)
    assert f"{bad}:1: manifest row needs a non-empty 'sha256'" in res.stderr
    assert not (project / "sources").exists()
