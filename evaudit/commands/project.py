"""Project commands: init, ingest, load, status."""

from __future__ import annotations

from pathlib import Path

import click

from evaudit.output import emit_json, progress_bar
from vocabulary.errors import InputError
from vocabulary.tables import table

_DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
_JSON = click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object and nothing else."
)


def _error_json(exc: InputError) -> dict[str, object]:
    """An InputError as the one JSON object `ingest --json` prints when it fails."""
    problems = getattr(exc, "problems", [exc])
    return {
        "error": exc.render(),
        "problems": [
            {"message": e.message, "file": e.file, "line": e.line, "hint": e.hint} for e in problems
        ],
    }


def _pages_line(src: str, e: dict[str, object]) -> str:
    """One source's page kinds (packet_builder.source_gate.page_kinds) on one line."""
    from packet_builder.source_gate import source_label

    rate = e["rate"]
    shown = "n/a" if rate is None else f"{100 * float(rate):.2f}%"  # type: ignore[arg-type]
    line = (
        f"  source {source_label(src)}: {e['pages_expected']} pages in the files, "
        f"{e['pages_stored']} stored ({e['pages_extracted']} extracted with text, "
        f"{e['pages_empty']} empty), {e['pages_skipped']} in skipped files"
    )
    if e["pages_missing"]:
        line += f", {e['pages_missing']} missing"
    return line + f"; extraction rate {shown}"


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
    from campaign.init import init_project, password_problem

    problem = password_problem(admin_password) if admin_password is not None else None
    if problem:  # a chosen password only: a generated one is long and random
        raise InputError(
            problem,
            file=directory,
            hint="choose a longer --admin-password / EVAUDIT_ADMIN_PASSWORD of several "
            "uncommon words, or give none to have one generated",
        )
    pg = None
    if journal_url is not None:
        from campaign import journal_pg

        if not journal_pg.is_pg_url(journal_url):
            raise InputError(
                f"--journal {journal_url!r} is not a postgresql:// URL",
                hint="give postgresql://USER@HOST:PORT/DB, or leave --journal out for files",
            )
        try:  # before anything is written: a wrong URL leaves no half-made project
            pg = journal_pg.new_config(journal_url)
        except journal_pg.JournalUnavailable as exc:
            raise InputError(
                f"cannot reach the journal database {journal_pg.redact(journal_url)} "
                f"({exc.strerror})",
                hint="check the URL, that PostgreSQL runs, and the password (PGPASSWORD)",
            ) from exc
    project, generated = init_project(directory, admin_password)
    if pg is not None:
        from campaign import journal_pg

        journal_pg.set_backend(project.root, pg)
    out = {
        "project": str(project.root),
        "admin_password": generated,
        "journal": pg.to_meta()["url"] if pg else "file",
    }
    if as_json:
        emit_json(out)
        return
    click.echo(f"created project {project.root}")
    if generated:
        click.echo(f"admin password (shown once, stored hashed): {generated}")


@click.command()
@_DIR
@click.option(
    "--pdf-dir", type=click.Path(path_type=Path), help="Folder of PDFs (doc_id = file stem)."
)
@click.option(
    "--ocr-dir",
    type=click.Path(path_type=Path),
    help="MinerU-style OCR folder: O/<doc_id>/<page>.json.",
)
@click.option(
    "--pages",
    "pages_file",
    type=click.Path(path_type=Path),
    help='pages.jsonl: {"doc_id","page","text"}.',
)
@click.option(
    "--beir",
    "beir_dir",
    type=click.Path(path_type=Path),
    help="BEIR folder: one one-page document per corpus.jsonl entry (title + text).",
)
@click.option(
    "--trec-docs",
    type=click.Path(path_type=Path),
    help="TREC documents: a <DOC><DOCNO><TEXT> file or JSONL, or a folder of them (.gz too).",
)
@click.option(
    "--mineru",
    "mineru_dir",
    type=click.Path(path_type=Path),
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
def ingest(
    directory: Path,
    pdf_dir: Path | None,
    ocr_dir: Path | None,
    pages_file: Path | None,
    beir_dir: Path | None,
    trec_docs: Path | None,
    mineru_dir: Path | None,
    source: str,
    workers: int | None,
    manifest: Path | None,
    strict: bool,
    recursive: bool,
    ocr: str,
    ocr_lang: str,
    ocr_dpi: int,
    ocr_min_confidence: float,
    as_json: bool,
) -> None:
    """Ingest corpus pages into the project (unchanged files are skipped by hash).

    PDFs that cannot be read, are encrypted or empty are skipped; pages without a text
    layer are read by Tesseract (--ocr auto), each OCR page recording engine, version,
    language and confidence; one PyMuPDF could open only by repairing it is kept with a
    warning. All are listed (`--json`: "skipped" [{file, reason}], "repaired" [{file,
    warning}], "ocr" {pages, low_confidence, ...}). Page counts name each kind: pages in
    the files, stored, extracted (with text), empty, in skipped files. Under --json a
    failure is one JSON object too ({"error", "problems"}), with the one-line error on
    stderr and a non-zero exit."""
    from campaign.project import open_project
    from packet_builder.ingest import ingest as run_ingest

    try:
        report = run_ingest(
            open_project(directory),
            pdf_dir=pdf_dir,
            ocr_dir=ocr_dir,
            pages_file=pages_file,
            beir_dir=beir_dir,
            trec_docs=trec_docs,
            mineru_dir=mineru_dir,
            source=source,
            workers=workers,
            progress=progress_bar(quiet=as_json),
            strict=strict,
            manifest=manifest,
            recursive=recursive,
            ocr=ocr,
            ocr_lang=ocr_lang,
            ocr_dpi=ocr_dpi,
            ocr_min_confidence=ocr_min_confidence,
        )
    except InputError as exc:
        if as_json:
            emit_json(_error_json(exc))
        raise
    if as_json:
        emit_json(report.to_json())
        return
    if report.manifest is not None:
        click.echo(report.manifest.to_text())
    click.echo(
        f"ingested {report.documents} documents ({report.pages} pages stored); "
        f"{report.unchanged} unchanged; {len(report.skipped)} skipped"
        + (f"; {len(report.repaired)} repaired" if report.repaired else "")
    )
    for s in report.skipped:
        click.echo(f"  skipped {s['file']}: {s['reason']}")
    for r in report.repaired:
        click.echo(f"  warning: {r['file']}: {r['warning']}")
    if report.ocr is not None and report.ocr.pages:
        o = report.ocr
        click.echo(f"  OCR ({o.engine} {o.version}, {o.lang}): {o.pages} pages of "
                   f"{o.documents} documents; {len(o.low_confidence)} under confidence "
                   f"{o.min_confidence:g}")  # fmt: skip
        for x in o.low_confidence:
            click.echo(f"  low OCR confidence: {x['file']} page {x['page']}: "
                       f"{x['confidence']:.1f}")  # fmt: skip
    for src, e in sorted(report.extraction.items()):
        click.echo(_pages_line(src, e))


def _parse_runs(values: tuple[str, ...]) -> dict[str, Path]:
    runs: dict[str, Path] = {}
    for v in values:
        name, sep, path = v.partition("=")
        if not sep or not name or not path:
            raise InputError(f"--run {v!r} must look like NAME=FILE")
        if name in runs:
            raise InputError(f"--run name {name!r} given twice")
        runs[name] = Path(path)
    return runs


@click.command()
@_DIR
@click.option(
    "--queries", type=click.Path(path_type=Path), help="queries.jsonl (replaces all queries)."
)
@click.option(
    "--qrels", type=click.Path(path_type=Path), help="Qrels, TREC or JSONL (replaces all qrels)."
)
@click.option("--evidence", type=click.Path(path_type=Path), help="Construction evidence JSONL.")
@click.option(
    "--run", "runs", multiple=True, metavar="NAME=FILE", help="A TREC run file; repeatable."
)
@click.option(
    "--beir",
    "beir_dir",
    type=click.Path(path_type=Path),
    help="BEIR folder (queries.jsonl, qrels/SPLIT.tsv): one relevance condition per query.",
)
@click.option("--split", default="test", show_default=True, help="BEIR qrels split.")
@click.option(
    "--trec-topics",
    type=click.Path(path_type=Path),
    help="TREC topics (<top> SGML/XML or TSV); the narrative is the default rubric.",
)
@click.option(
    "--trec-qrels",
    type=click.Path(path_type=Path),
    help="TREC graded qrels (qid iter docno grade).",
)
@click.option(
    "--guideline",
    type=click.Path(path_type=Path),
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
def load(
    directory: Path,
    queries: Path | None,
    qrels: Path | None,
    evidence: Path | None,
    runs: tuple[str, ...],
    beir_dir: Path | None,
    split: str,
    trec_topics: Path | None,
    trec_qrels: Path | None,
    guideline: Path | None,
    relevant_from: int | None,
    require_cross_page: bool | None,
    as_json: bool,
) -> None:
    """Validate and load a benchmark (all files or nothing).

    Then runs `evaudit check` on what it stored (same checks, same recorded
    requirement, same counts).

    n-Clue files (--queries/--qrels/--evidence), or a classic benchmark (--beir, or
    --trec-topics with --trec-qrels) whose
    original grades are kept so `finalize` writes the revised qrels in that scale."""
    from campaign.project import open_project
    from formats.classic_files import classic_from_options
    from packet_builder.loader import load_benchmark

    classic = classic_from_options(
        beir_dir=beir_dir,
        split=split,
        guideline=guideline,
        relevant_from=relevant_from,
        trec_topics=trec_topics,
        trec_qrels=trec_qrels,
    )
    result = load_benchmark(
        open_project(directory),
        queries=queries,
        qrels=qrels,
        evidence=evidence,
        runs=_parse_runs(runs),
        classic=classic,
        require_cross_page=require_cross_page,
    )
    if as_json:
        emit_json(result.to_json())
        return
    click.echo(
        f"loaded {result.queries} queries ({result.conditions} conditions), {result.qrels} qrels, "
        f"{result.evidence} evidence records ({result.evidence_pages} evidence pages), "
        f"{len(result.runs)} runs"
    )
    if result.check is not None:
        found = ", ".join(f"{k} {v}" for k, v in result.check.items() if v) or "no finding"
        rule = "on" if result.require_cross_page else "off"
        click.echo(f"label check (as `evaudit check`, cross-page requirement {rule}): {found}")
        if result.explained_by_cross_page:
            click.echo(
                f"  {result.explained_by_cross_page} grade_mismatch finding(s) are pairs graded "
                "n-1 whose conditions share one evidence page: if the benchmark requires "
                f"cross-page golds, record it with `evaudit load {directory} --require-cross-page`"
            )


@click.command()
@_DIR
@_JSON
def status(directory: Path, as_json: bool) -> None:
    """Counts of documents, pages, queries, conditions, qrels (gold/subset), evidence and runs."""
    from campaign.project import open_project
    from packet_builder.loader import status as get_status

    counts = get_status(open_project(directory))
    if as_json:
        emit_json(counts)
        return
    click.echo(table([(k, v) for k, v in counts.items()], ["what", "count"]))
    click.echo(
        "pages: stored in the store; pages_expected: in the source files; pages_extracted: "
        "stored with text; pages_empty: stored without text; pages_skipped: in skipped files"
    )


@click.command()
@_DIR
@click.option(
    "--min-rate",
    type=click.FloatRange(0, 1),
    default=0.98,
    show_default=True,
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
    from campaign.project import open_project
    from packet_builder.source_gate import gate as run_gate
    from packet_builder.source_gate import log, source_label

    project = open_project(directory)
    if show_log:
        entries = log(project)
        if as_json:
            emit_json({"log": entries})
            return
        for e in entries:
            counts = ", ".join(f"{k} {len(v)}" for k, v in e["removed"].items())
            names = ", ".join(source_label(s["source"]) for s in e["failing"])
            click.echo(f"#{e['seq']} {e['applied_at']} min rate {e['min_rate']}: {names}: {counts}")
        return
    rep = run_gate(project, min_rate, apply)
    if as_json:
        emit_json(rep.to_json())
        return
    rows = [
        [source_label(s.source), s.documents, s.pages_expected, s.pages_stored,
         s.pages_extracted, s.ocr_pages, s.pages_stored - s.pages_extracted, s.pages_skipped,
         "n/a" if s.rate is None else f"{100 * s.rate:.2f}%", "pass" if s.passed else "FAIL"]
        for s in rep.sources
    ]  # fmt: skip
    heads = ["source", "documents", "pages in files", "stored", "extracted", "of them OCR",
             "empty"]  # fmt: skip
    click.echo(table(rows, [*heads, "in skipped files", "rate", "gate"]))
    if rep.applied:
        click.echo("removed " + ", ".join(f"{k} {v}" for k, v in rep.removed["counts"].items()))


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
    from campaign.project import open_project
    from packet_builder.label_check import check as run_check

    rep = run_check(open_project(directory), require_cross_page=require_cross_page)
    out = rep.to_json()
    if as_json:
        emit_json(out)
    else:
        click.echo(table(list(out["counts"].items()), ["finding", "count"]))
        for f in rep.findings:
            where = f"{f.query_id} / {f.doc_id}" + (
                f" / {f.condition_id}" if f.condition_id else ""
            )
            click.echo(f"  {f.kind}: {where}: {f.detail}")
        if hint := rep.hint(str(directory)):
            click.echo(hint)
    if strict and rep.findings:
        first = rep.findings[0]
        raise InputError(
            f"{len(rep.findings)} label finding(s), first {first.kind} for query "
            f"{first.query_id!r} document {first.doc_id!r}: {first.detail}",
            hint="fix the qrels or evidence, or run without --strict",
        )


COMMANDS: list[click.Command] = [init, ingest, load, status, gate, check]
