"""`evaudit fetch`: download the corpus manifest's sources (services.fetch)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from evaudit.commands import options as opt


@click.command("fetch")
@click.argument("project", type=click.Path(path_type=Path, file_okay=False))
@click.option("--manifest", type=click.Path(path_type=Path, dir_okay=False), required=True,
              help="Corpus manifest (JSONL or TSV: doc_id, url, sha256[, file]).")  # fmt: skip
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Folder to write the files into (default: PROJECT/sources). A row's file "
              "is OUT/<file> where the row names one, else OUT/<doc_id>.pdf.")  # fmt: skip
@opt.amount_option("--timeout", default=30.0, min=0.1,
                   help="Seconds to wait for a connection or for the next bytes.")  # fmt: skip
@opt.amount_option("--max-mb", default=512.0, min=0.001,
                   help="Largest file accepted, in MiB; a larger one fails and is not kept.")  # fmt: skip
@opt.count_option("--attempts", default=4,
                  help="Attempts per file for timeouts, cut transfers, HTTP 5xx/408/429; each "
                  "attempt resumes the partial file.")  # fmt: skip
@opt.amount_option("--backoff", default=1.0, min=0,
                   help="Seconds before the second attempt; doubled before each later one.")  # fmt: skip
@opt.count_option("--workers", default=4, help="Files downloaded at once.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def fetch_cmd(
    project: Path, manifest: Path, out: Path | None, timeout: float, max_mb: float,
    attempts: int, backoff: float, workers: int, as_json: bool,
) -> None:  # fmt: skip
    """Download every source of a corpus manifest, checking its sha256 before it is kept.

    Each file is streamed into NAME.part and renamed into place only when its SHA-256
    equals the manifest's: a mismatch, an oversized file or an HTTP error leaves nothing
    in place. Only http(s) URLs are fetched, redirects included (at most 5). A file
    already present with the right hash is kept. Every failure is reported with its
    manifest line; the exit code is 1 when any row failed. Then `evaudit ingest PROJECT
    --pdf-dir OUT --manifest MANIFEST` ingests and re-checks them.
    """
    from evaudit.output import progress_bar
    from services.fetch import FetchOptions, fetch_sources

    limits = FetchOptions(timeout=timeout, max_mb=max_mb, attempts=attempts, backoff=backoff)
    report = fetch_sources(project, manifest, out, limits, workers=workers,
                           progress=progress_bar(as_json))  # fmt: skip
    opt.print_report(report, as_json)
    if report.failed:
        sys.exit(1)


COMMANDS = [fetch_cmd]
