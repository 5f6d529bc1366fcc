"""Project commands: init, ingest, load, status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from evaudit.commands import options as opt
from evaudit.output import emit_json, progress_bar
from vocabulary.errors import InputError

_DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
_JSON = click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object and nothing else."
)


@click.command()
@_DIR
@click.option(
    "--admin-password",
    envvar="EVAUDIT_ADMIN_PASSWORD",
    help="Admin password, at least 12 characters and hard to guess (zxcvbn strength 3 of 4) "
    "(default: $EVAUDIT_ADMIN_PASSWORD, else one is generated and printed once).",
)
@click.option(
    "--journal",
    "journal_url",
    metavar="postgresql://USER@HOST:PORT/DB",
    help="Keep journals, the annotator registry and overrides in PostgreSQL (several app "
    "servers on one campaign, docs/deploy.md). Stored without the password; give it with "
    "PGPASSWORD, ~/.pgpass or EVAUDIT_JOURNAL_URL. Default: files in the project folder.",
)
@_JSON
def init(
    directory: Path, admin_password: str | None, journal_url: str | None, as_json: bool
) -> None:
    """Create a project folder DIRECTORY with its campaign store (audit.duckdb)."""
    from services.project_init import create_project

    report = create_project(directory, admin_password, journal_url)
    opt.print_report(report, as_json)


@click.command()
@_DIR
@opt.path_option("--pdf-dir", help="Folder of PDFs (doc_id = file stem).")
@opt.path_option("--ocr-dir", help="MinerU-style OCR folder: O/<doc_id>/<page>.json.")
@opt.path_option("--pages", "pages_file", help='pages.jsonl: {"doc_id","page","text"}.')
@opt.path_option(
    "--beir",
    "beir_dir",
    help="BEIR folder: one one-page document per corpus.jsonl entry (title + text).",
)
@opt.path_option(
    "--trec-docs",
    help="TREC documents: a <DOC><DOCNO><TEXT> file or JSONL, or a folder of them (.gz too).",
)
@opt.path_option(
    "--mineru",
    "mineru_dir",
    help="MinerU output folder (*_content_list.json or *_middle.json per document).",
)
@click.option(
    "--source",
    default="",
    help="Source name of these documents, for the per-source extraction gate (`evaudit gate`).",
)
@click.option(
    "--workers", type=click.IntRange(min=1), help="Extraction processes (default: all cores)."
)
@click.option(
    "--manifest",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Corpus manifest (JSONL or TSV: doc_id, url, sha256[, file]): report every local "
    "file whose SHA-256 differs or that is missing.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Any skipped or repaired PDF, any --manifest finding or any OCR page under "
    "--ocr-min-confidence is an error (exit 2) and nothing is written.",
)
@click.option(
    "--ocr",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="PDF pages without a text layer: auto reads them with Tesseract (when installed), "
    "always reads every page with it, never skips text-less PDFs.",
)
@click.option(
    "--ocr-lang",
    default="eng",
    show_default=True,
    help="Tesseract language(s), e.g. deu or eng+fra (its language data must be installed).",
)
@click.option(
    "--ocr-dpi", type=click.IntRange(min=72), default=300, show_default=True,
    help="Resolution pages are rendered at for OCR.",
)  # fmt: skip
@click.option(
    "--ocr-min-confidence",
    type=click.FloatRange(0, 100),
    default=60.0,
    show_default=True,
    help="OCR pages whose mean word confidence (0-100) is lower are listed (kept; "
    "refused with --strict).",
)
@click.option(
    "--recursive/--no-recursive", default=True, show_default=True,
    help="--pdf-dir: also read the PDFs of its subfolders (hidden ones excepted); the "
    "document id stays the file name without .pdf.",
)  # fmt: skip
@_JSON
def ingest(directory: Path, as_json: bool, **spec: Any) -> None:
    """Ingest corpus pages into the project (unchanged files are skipped by hash).

    PDFs that cannot be read, are encrypted or empty are skipped; pages without a text
    layer are read by Tesseract (--ocr auto), each OCR page recording engine, version,
    language and confidence; one PyMuPDF could open only by repairing it is kept with a
    warning. All are listed (`--json`: "skipped" [{file, reason}], "repaired" [{file,
    warning}], "ocr" {pages, low_confidence, ...}). Page counts name each kind: pages in
    the files, stored, extracted (with text), empty, in skipped files. Under --json a
    failure is one JSON object too ({"error", "problems"}), with the one-line error on
    stderr and a non-zero exit."""
    from services.ingest import IngestSpec, ingest_corpus

    try:
        # the options are IngestSpec's fields, by name
        report = ingest_corpus(directory, IngestSpec(**spec), progress_bar(quiet=as_json))
    except InputError as exc:
        if as_json:  # a failure is one JSON object too, with the error on stderr
            emit_json(exc.to_json())
        raise
    opt.print_report(report, as_json)


@click.command()
@_DIR
@opt.path_option("--queries", help="queries.jsonl (replaces all queries).")
@opt.path_option("--qrels", help="Qrels, TREC or JSONL (replaces all qrels).")
@opt.path_option("--evidence", help="Construction evidence JSONL.")
@click.option(
    "--run", "runs", multiple=True, metavar="NAME=FILE", help="A TREC run file; repeatable."
)
@opt.path_option(
    "--beir",
    "beir_dir",
    help="BEIR folder (queries.jsonl, qrels/SPLIT.tsv): one relevance condition per query.",
)
@click.option("--split", default="test", show_default=True, help="BEIR qrels split.")
@opt.path_option(
    "--trec-topics",
    help="TREC topics (<top> SGML/XML or TSV); the narrative is the default rubric.",
)
@opt.path_option("--trec-qrels", help="TREC graded qrels (qid iter docno grade).")
@opt.path_option(
    "--guideline",
    help="Rubric of the relevance condition (JSON): one for all queries, or per query.",
)
@click.option(
    "--relevant-from",
    type=int,
    help="BEIR/TREC: the lowest original grade that counts as relevant (required there).",
)
@click.option(
    "--require-cross-page/--no-require-cross-page", default=None,
    help="Record that the benchmark's golds of two or more conditions must not be solvable "
    "on one page (`check` and this command's check use it; default: keep the recorded "
    "choice, initially off). Can be given alone.",
)  # fmt: skip
@_JSON
def load(directory: Path, as_json: bool, **inputs: Any) -> None:
    """Validate and load a benchmark (all files or nothing).

    Then runs `evaudit check` on what it stored (same checks, same recorded
    requirement, same counts).

    n-Clue files (--queries/--qrels/--evidence), or a classic benchmark (--beir, or
    --trec-topics with --trec-qrels) whose
    original grades are kept so `finalize` writes the revised qrels in that scale."""
    from services.benchmark_load import load as run_load

    # the options are `services.benchmark_load.load`'s keywords, by name
    report = run_load(directory, **inputs)
    opt.print_report(report, as_json)


@click.command()
@_DIR
@_JSON
def status(directory: Path, as_json: bool) -> None:
    """Counts of documents, pages, queries, conditions, qrels (gold/subset), evidence and runs."""
    from services.benchmark_load import project_status

    report = project_status(directory)
    opt.print_report(report, as_json)


@click.command()
@_DIR
@opt.share_option(
    "--min-rate",
    default=0.98,
    help="Lowest share of expected pages a source must have extracted.",
)
@click.option(
    "--apply",
    is_flag=True,
    help="Remove failing sources' documents and queries with all their rows (one transaction).",
)
@click.option("--log", "show_log", is_flag=True, help="Print what earlier --apply runs removed.")
@_JSON
def gate(directory: Path, min_rate: float, apply: bool, show_log: bool, as_json: bool) -> None:
    """Per-source extraction gate: pages extracted / expected by `ingest --source`.

    Lists failing sources; --apply removes their documents, the queries of that source,
    every qrels, evidence and run row naming them, and each query left with no gold,
    and records the removal in the store (--log prints it)."""
    from services.source_gate import source_gate

    report = source_gate(directory, min_rate, apply, show_log)
    opt.print_report(report, as_json, nl=False)


@click.command()
@_DIR
@click.option(
    "--require-cross-page/--no-require-cross-page", default=None,
    help="A gold of two or more conditions must not be solvable on one page (default: the "
    "requirement recorded by `load --require-cross-page`).",
)  # fmt: skip
@click.option("--strict", is_flag=True, help="Any finding is an error (exit 2).")
@_JSON
def check(directory: Path, require_cross_page: bool | None, strict: bool, as_json: bool) -> None:
    """Re-derive every label from the construction evidence.

    Findings (each naming query, document and condition): evidence pages outside the
    document, a gold condition with no evidence page, a grade that disagrees with the
    evidence count, a gold without a distinct-page assignment, and with
    --require-cross-page a gold solvable on one page."""
    from services.label_check import check_labels

    report = check_labels(directory, require_cross_page)
    opt.print_report(report, as_json)
    if strict and (error := report.strict_error()) is not None:
        raise error


COMMANDS: list[click.Command] = [init, ingest, load, status, gate, check]
