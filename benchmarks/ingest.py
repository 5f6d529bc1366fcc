"""Ingest throughput vs a raw single-process PyMuPDF loop over the same PDFs.

Baseline: `for f in files: for page in pymupdf.open(f): page.get_text()` in one
process, no hashing, no storage. Project: `packet_builder.ingest.ingest` into a
fresh project (hashing, extraction, one DuckDB transaction) with 1 and 2 workers.
Targets (issue 2): 2 workers >= 1.6x the baseline; 1 worker >= 0.9x.

    .venv/bin/python benchmarks/ingest.py [--limit N] [--pdf-dir DIR]

Without --pdf-dir it uses the PDFs of the Debian texlive documentation packages
(installed by benchmarks/make_corpus.py).
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
        for page in doc:
            page.get_text()
            pages += 1
        doc.close()
    return pages, time.perf_counter() - t0


def project_ingest(pdf_dir: Path, workdir: Path, workers: int) -> tuple[int, float]:
    from campaign.project import init_project
    from packet_builder.ingest import ingest

    project, _ = init_project(workdir / f"proj-{workers}", "bench")
    t0 = time.perf_counter()
    report = ingest(project, pdf_dir=pdf_dir, workers=workers)
    return report.pages, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="Use only the first N PDFs (0 = all).")
    ap.add_argument("--pdf-dir", type=Path, help="A folder of PDFs instead of the texlive corpus.")
    args = ap.parse_args()
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
