"""Download a corpus manifest's sources: resume, retries, limits, and a hash before the rename.

The n-Clue paper rebuilds its corpus from a list of source URLs with hashes; `evaudit
fetch` does the same from a corpus manifest (`formats.corpus_manifest`). Each file
is streamed into `NAME.part` beside its destination and renamed into place only when its
SHA-256 equals the manifest's, so a wrong or cut-off download never stands where `ingest`
would read it. A `.part` left by a cut-off transfer is resumed with an HTTP Range request
on the next attempt (or the next run); a server that ignores the range restarts it.

Only http and https are fetched, at the start and after every redirect (urllib alone would
follow a redirect to ftp); redirects are capped, so a loop ends as one failure.
"""

from __future__ import annotations

import http.client
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse

from formats.corpus_manifest import ManifestRow
from vocabulary.digest import file_sha256
from vocabulary.progress import Progress, no_progress

_CHUNK = 1 << 16
_SCHEMES = ("http", "https")


@dataclass(frozen=True)
class FetchLimits:
    """Per-file limits; `backoff` is the first wait between attempts (it doubles)."""

    timeout: float = 30.0
    max_bytes: int = 512 << 20
    attempts: int = 4
    backoff: float = 1.0
    max_redirects: int = 5


@dataclass(frozen=True)
class FetchOutcome:
    """One manifest row's result; `status` is fetched, present or failed."""

    line: int
    doc_id: str
    url: str
    file: str
    status: str
    bytes: int
    attempts: int
    resumed: bool
    error: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line, "doc_id": self.doc_id, "url": self.url, "file": self.file,
            "status": self.status, "bytes": self.bytes, "attempts": self.attempts,
            "resumed": self.resumed, "error": self.error,
        }  # fmt: skip


class _Final(Exception):
    """A failure that another attempt cannot mend (4xx, a limit, a bad redirect, a hash)."""


class _Retry(Exception):
    """A failure worth another attempt (a timeout, a cut connection, 5xx, 429)."""


def destination(row: ManifestRow, out: Path) -> Path | str:
    """Where a row's file goes under `out`, or why it cannot go anywhere safe."""
    if row.file is not None:
        rel = PurePosixPath(row.file.replace("\\", "/"))
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            return f"file {row.file!r} must be a relative path inside the output folder"
        return out.joinpath(*rel.parts)
    if "/" in row.doc_id or "\\" in row.doc_id or row.doc_id in (".", ".."):
        return f"doc_id {row.doc_id!r} cannot be a file name: give the row a 'file'"
    return out / f"{row.doc_id}.pdf"


class _Redirects(urllib.request.HTTPRedirectHandler):
    # urllib's own loop check would fire first, with a message that names no limit.
    max_repeats = max_redirections = 1000

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.seen = 0

    def redirect_request(  # type: ignore[override]
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:  # fmt: skip
        scheme = urlparse(newurl).scheme.lower()
        if scheme not in _SCHEMES:
            raise _Final(f"redirect to a non-HTTP(S) URL refused: {newurl}")
        self.seen += 1
        if self.seen > self.limit:
            raise _Final(f"more than {self.limit} redirects (last to {newurl})")
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and req.has_header("Range"):
            new.add_header("Range", req.get_header("Range") or "")
        return new


def _open(url: str, offset: int, limits: FetchLimits) -> Any:
    req = urllib.request.Request(url, headers={"User-Agent": "evidence-audit fetch"})
    if offset:
        req.add_header("Range", f"bytes={offset}-")
    opener = urllib.request.build_opener(_Redirects(limits.max_redirects))
    try:
        return opener.open(req, timeout=limits.timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:
            return exc  # the .part may already hold the whole file: its hash decides
        if exc.code in (408, 429) or exc.code >= 500:
            raise _Retry(f"HTTP {exc.code} {exc.reason}") from None
        raise _Final(f"HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, _Final):
            raise exc.reason from None
        raise _Retry(f"cannot connect: {exc.reason}") from None
    except (TimeoutError, ConnectionError, http.client.HTTPException) as exc:
        raise _Retry(f"{type(exc).__name__}: {exc}") from None


def _start(resp: Any, offset: int) -> int:
    """The offset the response's body starts at (0 where the server sent the whole file)."""
    if getattr(resp, "code", 200) == 416:
        return -1
    if resp.status == 206:
        rng = resp.headers.get("Content-Range", "")
        try:
            start = int(rng.split()[1].split("-")[0])
        except (IndexError, ValueError):
            return 0
        return start if start == offset else 0
    return 0


def _transfer(url: str, part: Path, limits: FetchLimits) -> bool:
    """One attempt: append the body to `part`; True where it resumed a partial file."""
    offset = part.stat().st_size if part.exists() else 0
    resp = _open(url, offset, limits)
    with resp:
        start = _start(resp, offset)
        if start == -1:
            return True
        length = resp.headers.get("Content-Length")
        expected = int(length) if length and length.isdigit() else None
        if expected is not None and start + expected > limits.max_bytes:
            raise _Final(f"{start + expected} bytes is over the limit of {limits.max_bytes}")
        got = 0
        with part.open("r+b" if start and part.exists() else "wb") as fh:
            fh.seek(start)
            fh.truncate()
            try:
                while chunk := resp.read(_CHUNK):
                    got += len(chunk)
                    if start + got > limits.max_bytes:
                        raise _Final(f"more than the limit of {limits.max_bytes} bytes")
                    fh.write(chunk)
            except (TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                raise _Retry(
                    f"transfer cut after {start + got} bytes ({type(exc).__name__})"
                ) from None
            finally:
                fh.flush()
                os.fsync(fh.fileno())
        if expected is not None and got < expected:
            raise _Retry(f"transfer cut after {start + got} of {start + expected} bytes")
        return start > 0


def fetch_one(
    row: ManifestRow, dest: Path, limits: FetchLimits,
    sleep: Callable[[float], None] = time.sleep,
) -> FetchOutcome:  # fmt: skip
    """Fetch one row into `dest` (written only when its hash matches)."""

    def outcome(status: str, attempts: int, resumed: bool, error: str | None) -> FetchOutcome:
        size = dest.stat().st_size if status != "failed" and dest.exists() else 0
        return FetchOutcome(row.line, row.doc_id, row.url, str(dest), status, size, attempts,
                            resumed, error)  # fmt: skip

    if dest.is_file() and file_sha256(dest) == row.sha256:
        return outcome("present", 0, False, None)
    if urlparse(row.url).scheme.lower() not in _SCHEMES:
        return outcome("failed", 0, False, f"only http and https URLs are fetched: {row.url}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    resumed_any = False
    wait = limits.backoff
    last = ""
    for attempt in range(1, limits.attempts + 1):
        try:
            resumed = _transfer(row.url, part, limits)
        except _Final as exc:
            part.unlink(missing_ok=True)
            return outcome("failed", attempt, resumed_any, str(exc))
        except _Retry as exc:
            last = str(exc)
            if attempt < limits.attempts:
                sleep(wait)
                wait *= 2
            continue
        resumed_any = resumed_any or resumed
        actual = file_sha256(part)
        if actual == row.sha256:
            os.replace(part, dest)
            return outcome("fetched", attempt, resumed_any, None)
        part.unlink(missing_ok=True)
        if resumed and attempt < limits.attempts:
            last = "sha256 of the resumed file differs: fetching it whole"
            continue
        return outcome("failed", attempt, resumed_any,
                       f"sha256 {actual} differs from the manifest's {row.sha256}; "
                       "nothing written")  # fmt: skip
    return outcome("failed", limits.attempts, resumed_any,
                   f"gave up after {limits.attempts} attempts: {last}; the partial file "
                   f"{part.name} is kept for the next run to resume")  # fmt: skip


def fetch_all(
    rows: list[ManifestRow], out: Path, limits: FetchLimits, *, workers: int = 4,
    progress: Progress = no_progress, sleep: Callable[[float], None] = time.sleep,
) -> list[FetchOutcome]:  # fmt: skip
    """Fetch every row (`workers` at a time); outcomes in manifest order."""
    results: dict[int, FetchOutcome] = {}
    jobs: list[tuple[ManifestRow, Path]] = []
    claimed: dict[Path, int] = {}
    for row in rows:
        dest = destination(row, out)
        if isinstance(dest, str):
            results[row.line] = FetchOutcome(row.line, row.doc_id, row.url, "", "failed", 0,
                                             0, False, dest)  # fmt: skip
            continue
        key = dest.resolve()
        if key in claimed:
            results[row.line] = FetchOutcome(
                row.line, row.doc_id, row.url, str(dest), "failed", 0, 0, False,
                f"same destination as line {claimed[key]}",
            )  # fmt: skip
            continue
        claimed[key] = row.line
        jobs.append((row, dest))
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(fetch_one, row, dest, limits, sleep) for row, dest in jobs]
        for fut in progress(as_completed(futures), total=len(futures), desc="fetch"):
            res = fut.result()
            results[res.line] = res
    return [results[r.line] for r in rows]
