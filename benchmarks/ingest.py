"""Ingest throughput vs a raw single-process PyMuPDF loop over the same PDFs.

Baseline: `for f in files: for page in pymupdf.open(f): page.get_text()` in one
process, no hashing, no storage. Project: `packet_builder.ingest.ingest` into a
fresh project (hashing, extraction, one DuckDB transaction) with 1 and 2 workers.
Targets (issue 2): 2 workers >= 1.6x the baseline; 1 worker >= 0.9x.

    .venv/bin/python benchmarks/ingest.py [--limit N] [--pdf-dir DIR]

Without --pdf-dir it uses the PDFs of the Debian texlive documentation packages
(installed by benchmarks/make_corpus.py).

    .venv/bin/python benchmarks/ingest.py --beir 1000000 [--baseline-limit N]

BEIR mode (issue 17): a generated BEIR corpus.jsonl of N short passages. Project:
`evaudit init` + `evaudit ingest P --beir DIR --json` timed as whole processes
(interpreter start and imports included). Baseline, in the same run: read the JSONL
with the stdlib (`json.loads` per line, title and text joined as BEIR does) and
insert (doc_id, page, text) rows with DuckDB's `executemany` in one transaction;
its rate is measured on the first --baseline-limit passages (executemany's cost
per row is flat, and the full 1M would take many minutes). Targets: >= 5x the
baseline's passages/s and under 60 s for the ingest. Files live under /tmp and
are deleted after; the load average is printed.

    .venv/bin/python benchmarks/ingest.py --ocr 12 [--ocr-pages 3]

OCR mode (issue 29): N generated PDFs of image-only pages (text drawn by PyMuPDF,
rendered, only the image kept). Baseline: one process rendering each page and running
Tesseract on it in turn (`packet_builder.ocr.ocr_pdf_page`, 300 dpi). Project:
`ingest --ocr auto` with 2 workers. Target: >= 1.7x the baseline's pages/s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PACKAGES = ["texlive-latex-base-doc", "texlive-latex-recommended-doc", "texlive-science-doc"]


def texlive_pdfs() -> list[Path]:
    files: list[Path] = []
    for pkg in PACKAGES:
        out = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{pkg} is not installed: run benchmarks/make_corpus.py first")
        files += [Path(p) for p in out.stdout.split() if p.endswith(".pdf") and Path(p).is_file()]
    return sorted(set(files))


def link_corpus(files: list[Path], target: Path) -> Path:
    """Symlink the PDFs into one folder with unique stems (doc ids)."""
    target.mkdir(parents=True)
    used: set[str] = set()
    for f in files:
        stem = f.stem
        i = 1
        while stem in used:
            i += 1
            stem = f"{f.stem}-{i}"
        used.add(stem)
        (target / f"{stem}.pdf").symlink_to(f.resolve())
    return target


def raw_loop(files: list[Path]) -> tuple[int, float]:
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    pages = 0
    t0 = time.perf_counter()
    for f in files:
        try:
            doc = pymupdf.open(f)
        except Exception:
            continue
        if doc.needs_pass:
            continue
        for page in doc:  # type: ignore[attr-defined]
            page.get_text()
            pages += 1
        doc.close()
    return pages, time.perf_counter() - t0


def project_ingest(pdf_dir: Path, workdir: Path, workers: int) -> tuple[int, float]:
    from campaign.init import init_project
    from packet_builder.ingest import IngestSpec, ingest

    project, _ = init_project(workdir / f"proj-{workers}", "bench")
    t0 = time.perf_counter()
    # Text extraction only: OCR (the default `auto`) is measured on its own (--ocr).
    report = ingest(project, IngestSpec(pdf_dir=pdf_dir, workers=workers, ocr="never"))
    return report.pages, time.perf_counter() - t0


def scanned_pdfs(target: Path, files: int, pages: int) -> Path:
    """`files` PDFs of `pages` image-only pages each (text drawn, rendered, image kept)."""
    import pymupdf

    target.mkdir(parents=True)
    for f in range(files):
        doc = pymupdf.open()
        for p in range(pages):
            src = pymupdf.open()
            page = src.new_page()
            for line in range(12):
                words = " ".join(
                    WORDS[(f * 7 + p * 5 + line * 3 + k) % len(WORDS)] for k in range(8)
                )
                page.insert_text((60, 80 + 28 * line), words, fontsize=13)
            pix = page.get_pixmap(dpi=150)
            out = doc.new_page()
            out.insert_image(out.rect, pixmap=pix)
        doc.save(target / f"scan{f:03d}.pdf")
    return target


def ocr_loop(pdf_dir: Path) -> tuple[int, float]:
    """Baseline: one process, every page rendered and read by Tesseract in turn."""
    import pymupdf

    from packet_builder.ocr import ocr_pdf_page, tesseract_version

    version = tesseract_version()
    pages = 0
    t0 = time.perf_counter()
    for f in sorted(pdf_dir.glob("*.pdf")):
        with pymupdf.open(f) as doc:
            for page in doc:  # type: ignore[attr-defined]
                ocr_pdf_page(page, lang="eng", dpi=300, version=version)
                pages += 1
    return pages, time.perf_counter() - t0


def ocr_main(files: int, pages: int) -> None:
    import os

    from campaign.init import init_project
    from packet_builder.ingest import IngestSpec, ingest

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pdf_dir = scanned_pdfs(work / "scans", files, pages)
        base_pages, base_s = ocr_loop(pdf_dir)
        project, _ = init_project(work / "proj", "bench")
        t0 = time.perf_counter()
        report = ingest(project, IngestSpec(pdf_dir=pdf_dir, workers=2, ocr="auto"))
        two_s = time.perf_counter() - t0
    assert report.ocr is not None and report.ocr.pages == base_pages, report.to_json()
    load = os.getloadavg()[0]
    print(f"OCR: {files} scanned PDFs x {pages} pages at 300 dpi (load {load:.1f})")
    print(f"baseline single-process loop : {base_pages / base_s:6.2f} pages/s ({base_s:.1f} s)")
    print(f"evaudit ingest --ocr auto, 2 workers: {base_pages / two_s:6.2f} pages/s "
          f"({two_s:.1f} s)  ratio {base_s / two_s:.2f}x (target >= 1.7x)")  # fmt: skip


WORDS = [
    "retrieval",
    "evidence",
    "passage",
    "corpus",
    "query",
    "relevance",
    "judgment",
    "table",
    "figure",
    "method",
    "result",
    "model",
    "training",
    "data",
    "score",
    "rank",
    "document",
    "section",
    "page",
    "claim",
    "support",
    "neural",
    "sparse",
    "dense",
]


def make_beir(folder: Path, n: int) -> int:
    """A BEIR folder of n short generated passages (about 25 words each); returns bytes."""
    import json
    import random

    rng = random.Random(17)
    (folder / "qrels").mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(n):
            words = rng.choices(WORDS, k=25)
            obj = {"_id": f"p{i}", "title": " ".join(words[:4]), "text": " ".join(words[4:])}
            fh.write(json.dumps(obj) + "\n")
    (folder / "queries.jsonl").write_text('{"_id": "q0", "text": "evidence"}\n')
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\tp0\t1\n")
    return (folder / "corpus.jsonl").stat().st_size


def stdlib_executemany(corpus: Path, db: Path, limit: int) -> tuple[int, float]:
    import json

    import duckdb

    t0 = time.perf_counter()
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE pages (doc_id VARCHAR, page INTEGER, text VARCHAR)")
    rows = []
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line)
            title, text = obj.get("title") or "", obj.get("text") or ""
            rows.append((obj["_id"], 1, f"{title} {text}".strip()))  # BEIR's own join
            if len(rows) == limit:
                break
    con.execute("BEGIN")
    con.executemany("INSERT INTO pages VALUES (?, ?, ?)", rows)
    con.execute("COMMIT")
    con.close()
    return len(rows), time.perf_counter() - t0


def beir_main(n: int, baseline_limit: int) -> None:
    import json
    import os

    cli = [sys.executable, "-m", "evaudit.cli"]
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        work = Path(tmp)
        size = make_beir(work / "beir", n)
        print(f"load average before: {os.getloadavg()}")
        print(f"BEIR corpus: {n} passages, {size / 1e6:.0f} MB")
        base_n, base_s = stdlib_executemany(
            work / "beir" / "corpus.jsonl", work / "base.duckdb", min(n, baseline_limit)
        )
        base_rate = base_n / base_s
        t0 = time.perf_counter()
        subprocess.run([*cli, "init", str(work / "p"), "--admin-password", "bench-password-1"],
                       check=True, capture_output=True)  # fmt: skip
        out = subprocess.run([*cli, "ingest", str(work / "p"), "--beir", str(work / "beir"),
                              "--json"], check=True, capture_output=True, text=True)  # fmt: skip
        ing_s = time.perf_counter() - t0
        docs = json.loads(out.stdout)["documents"]
        print(f"load average after: {os.getloadavg()}")
    rate = docs / ing_s
    print(f"baseline stdlib json + DuckDB executemany ({base_n} passages): "
          f"{base_rate:10.0f} passages/s ({base_s:.1f} s)")  # fmt: skip
    print(f"evaudit init + ingest --beir, whole processes ({docs} passages): "
          f"{rate:10.0f} passages/s ({ing_s:.1f} s)  ratio {rate / base_rate:.1f}x "
          f"(target >= 5x, < 60 s)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="Use only the first N PDFs (0 = all).")
    ap.add_argument("--pdf-dir", type=Path, help="A folder of PDFs instead of the texlive corpus.")
    ap.add_argument("--beir", type=int, metavar="N", help="BEIR mode: N generated passages.")
    ap.add_argument("--ocr", type=int, metavar="N",
                    help="OCR mode: N generated scanned PDFs (--ocr-pages each).")  # fmt: skip
    ap.add_argument("--ocr-pages", type=int, default=3, help="OCR mode: pages per PDF.")
    ap.add_argument("--baseline-limit", type=int, default=100_000,
                    help="BEIR mode: passages the executemany baseline is timed on.")  # fmt: skip
    args = ap.parse_args()
    if args.beir:
        beir_main(args.beir, args.baseline_limit)
        return
    if args.ocr:
        ocr_main(args.ocr, args.ocr_pages)
        return
    files = sorted(args.pdf_dir.glob("*.pdf")) if args.pdf_dir else texlive_pdfs()
    if args.limit:
        files = files[: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pdf_dir = link_corpus(files, work / "pdfs")
        linked = sorted(pdf_dir.glob("*.pdf"))
        # Warm the page cache and the imports of every contender alike (pymupdf for the
        # baseline; pandas and duckdb, which the project imports on first use).
        raw_loop(linked[:5])
        import duckdb  # noqa: F401
        import pandas  # noqa: F401

        base_pages, base_s = raw_loop(linked)
        one_pages, one_s = project_ingest(pdf_dir, work, 1)
        two_pages, two_s = project_ingest(pdf_dir, work, 2)
    base_rate = base_pages / base_s
    print(f"PDFs: {len(files)}  pages (baseline / ingest): {base_pages} / {two_pages}")
    print(f"baseline raw PyMuPDF loop, 1 process : {base_rate:8.1f} pages/s ({base_s:.1f} s)")
    print(
        f"evaudit ingest, 1 worker             : {one_pages / one_s:8.1f} pages/s ({one_s:.1f} s)"
        f"  ratio {one_pages / one_s / base_rate:.2f}x (target >= 0.9x)"
    )
    print(
        f"evaudit ingest, 2 workers            : {two_pages / two_s:8.1f} pages/s ({two_s:.1f} s)"
        f"  ratio {two_pages / two_s / base_rate:.2f}x (target >= 1.6x)"
    )


if __name__ == "__main__":
    main()
