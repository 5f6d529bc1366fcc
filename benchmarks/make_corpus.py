"""Build the paper-scale benchmark corpus from all PDFs of three Debian texlive doc packages.

    .venv/bin/python benchmarks/make_corpus.py [--out DIR] [--workers 2] [--queries 1000]

Installs texlive-latex-base-doc, texlive-latex-recommended-doc and texlive-science-doc
with apt-get when missing, links every PDF they ship into DIR/pdfs/<doc_id>.pdf
(doc_id = simplified file stem, unique), and runs the same construction as
sample_packets/build.py (sample_packets.construction) with scale parameters.

Outputs in DIR (default ~/.cache/evidence-audit/scale/): pdfs/, documents.tsv (the PDFs
used: doc_id, package, path, pages, sha256), skipped.tsv, pages.jsonl
({"doc_id","page","text"}), queries.jsonl, qrels.txt, qrels.jsonl, evidence.jsonl,
runs/<name>.trec and summary.json. Later benchmarks reuse this folder. The figure
printed is construction throughput (pages/s), against the raw single-process
PyMuPDF extraction of the same files as the named baseline: after a warm-up, two
rounds in alternating order (baseline then extraction, extraction then baseline).
PDFs that `evaudit ingest` would skip (encrypted, unreadable, image-only) are
skipped here too and listed in skipped.tsv, so the benchmark only uses documents
ingest keeps.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tqdm import tqdm

from sample_packets.construction import (
    ConstructionConfig,
    DocSpec,
    DocText,
    build_benchmark,
    extract_corpus,
    write_benchmark,
)

PACKAGES = ("texlive-latex-base-doc", "texlive-latex-recommended-doc", "texlive-science-doc")
DEFAULT_OUT = Path.home() / ".cache" / "evidence-audit" / "scale"


def scale_config(n_queries: int) -> ConstructionConfig:
    return ConstructionConfig(
        seed=2,
        n_queries=n_queries,
        df_min=6,
        df_max=80,
        max_gold=5,
        max_gold_frac=0.2,
        min_subsets=8,
        max_uses=4,
        p_three=0.2,
        max_attempts=200_000,
        heading_min_docs=3,
        min_pages=4,
        rules=2,
    )


def ensure_packages(install: bool) -> None:
    missing = []
    for pkg in PACKAGES:
        res = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True
        )
        if "install ok installed" not in res.stdout:
            missing.append(pkg)
    if not missing:
        return
    if not install:
        raise SystemExit(f"missing Debian packages: {' '.join(missing)} (drop --no-install)")
    print(f"installing {' '.join(missing)} with apt-get ...", file=sys.stderr)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    if os.geteuid() != 0:
        cmd = ["sudo", *cmd]
    if subprocess.run(cmd, env=env).returncode != 0:
        raise SystemExit(f"apt-get failed; install by hand: apt-get install -y {' '.join(missing)}")


def list_pdfs() -> list[tuple[str, str]]:
    """(package, path) of every PDF the packages ship, sorted."""
    out = []
    for pkg in PACKAGES:
        res = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True, check=True)
        out += [
            (pkg, p) for p in res.stdout.splitlines() if p.endswith(".pdf") and os.path.isfile(p)
        ]
    return sorted(out, key=lambda x: (x[1], x[0]))


def assign_ids(pdfs: list[tuple[str, str]]) -> list[DocSpec]:
    """doc_id = file stem reduced to [A-Za-z0-9_-]; a clash adds the parent folder, then a number."""
    simple = lambda s: re.sub(r"[^A-Za-z0-9_-]+", "_", s).strip("_") or "doc"  # noqa: E731
    stems: dict[str, int] = {}
    for _, path in pdfs:
        s = simple(Path(path).stem)
        stems[s] = stems.get(s, 0) + 1
    used: set[str] = set()
    specs = []
    for pkg, path in pdfs:
        p = Path(path)
        doc_id = simple(p.stem)
        if stems[doc_id] > 1:
            doc_id = f"{doc_id}-{simple(p.parent.name)}"
        base, k = doc_id, 2
        while doc_id in used:
            doc_id, k = f"{base}-{k}", k + 1
        used.add(doc_id)
        specs.append(DocSpec(doc_id, pkg, path))
    return specs


def link_pdfs(specs: list[DocSpec], pdf_dir: Path) -> None:
    pdf_dir.mkdir(parents=True, exist_ok=True)
    wanted = {f"{s.doc_id}.pdf": s.path for s in specs}
    for old in pdf_dir.iterdir():
        if old.name not in wanted or not old.is_symlink() or os.readlink(old) != wanted[old.name]:
            old.unlink()
    for name, target in wanted.items():
        if not (pdf_dir / name).exists():
            (pdf_dir / name).symlink_to(target)


T = TypeVar("T")


def _bar(it: Iterable[T], *, total: int | None = None, desc: str = "") -> Iterator[T]:
    return iter(tqdm(it, total=total, desc=desc, unit="pdf", file=sys.stderr))


def raw_baseline(specs: list[DocSpec], quiet: bool = False) -> tuple[int, float]:
    """The baseline: plain page.get_text() over the same files in one process."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    t0, pages = time.perf_counter(), 0
    bar = tqdm(specs, desc="baseline get_text", unit="pdf", file=sys.stderr, disable=quiet)
    for s in bar:
        try:
            with pymupdf.open(s.path) as doc:
                for page in doc:
                    page.get_text()
                    pages += 1
        except Exception:  # unreadable files are skipped by both sides
            continue
    return pages, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder ({DEFAULT_OUT})")
    ap.add_argument("--workers", type=int, default=2, help="extraction processes (default 2)")
    ap.add_argument("--queries", type=int, default=1000, help="queries to compose (default 1000)")
    ap.add_argument("--no-install", action="store_true", help="fail instead of running apt-get")
    ap.add_argument("--no-baseline", action="store_true", help="skip the raw PyMuPDF baseline loop")
    args = ap.parse_args(argv)

    ensure_packages(not args.no_install)
    out: Path = args.out.expanduser()
    specs = assign_ids(list_pdfs())
    link_pdfs(specs, out / "pdfs")

    skipped: list[tuple[DocSpec, str]] = []
    timing: dict[str, list[float]] = {"extract": [], "baseline": []}
    base_pages = 0
    if args.no_baseline:
        t0 = time.perf_counter()
        docs = extract_corpus(specs, workers=args.workers, progress=_bar, skipped=skipped)
        timing["extract"].append(time.perf_counter() - t0)
    else:
        # Warm the page cache and PyMuPDF for both sides, then alternate the order
        # (baseline, extraction; extraction, baseline) so neither side always runs first.
        raw_baseline(specs[:5], quiet=True)
        for order in (("baseline", "extract"), ("extract", "baseline")):
            for side in order:
                if side == "baseline":
                    base_pages, t = raw_baseline(specs)
                    timing["baseline"].append(t)
                else:
                    got: list[tuple[DocSpec, str]] = []
                    t0 = time.perf_counter()
                    docs = extract_corpus(specs, workers=args.workers, progress=_bar, skipped=got)
                    timing["extract"].append(time.perf_counter() - t0)
                    skipped = got
    t_extract = min(timing["extract"])
    print(f"building the benchmark over {len(docs)} documents ...", file=sys.stderr)
    t1 = time.perf_counter()
    bench = build_benchmark(docs, scale_config(args.queries))
    write_benchmark(bench, out)
    t_build = time.perf_counter() - t1

    with open(out / "documents.tsv", "w", encoding="utf-8") as fh:
        fh.write("doc_id\tpackage\tpath\tpages\tsha256\n")
        pairs = zip(docs, specs_of(docs, specs), strict=True)
        for d, s in sorted(pairs, key=lambda pair: pair[0].doc_id):
            fh.write(f"{d.doc_id}\t{d.source}\t{s.path}\t{len(d.pages)}\t{d.sha256}\n")
    with open(out / "skipped.tsv", "w", encoding="utf-8") as fh:
        fh.write("doc_id\tpath\treason\n")
        for s, why in skipped:
            fh.write(f"{s.doc_id}\t{s.path}\t{why}\n")
    with open(out / "pages.jsonl", "w", encoding="utf-8") as fh:
        for d in sorted(docs, key=lambda d: d.doc_id):
            for i, text in enumerate(d.pages, start=1):
                fh.write(json.dumps({"doc_id": d.doc_id, "page": i, "text": text}) + "\n")
    pages = sum(len(d.pages) for d in docs)
    summary = {
        **bench.stats,
        "skipped": len(skipped),
        "workers": args.workers,
        "extract_seconds": round(t_extract, 2),
        "build_seconds": round(t_build, 2),
        "out": str(out),
    }
    if not args.no_baseline:
        all_pages = sum(len(d.pages) for d in docs)
        rate = lambda pages, ts: pages * len(ts) / sum(ts)  # noqa: E731
        summary["extract_seconds_runs"] = [round(t, 2) for t in timing["extract"]]
        summary["baseline_seconds_runs"] = [round(t, 2) for t in timing["baseline"]]
        summary["baseline_raw_get_text_pages_per_s"] = round(
            rate(base_pages, timing["baseline"]), 1
        )
        summary["extract_pages_per_s"] = round(rate(all_pages, timing["extract"]), 1)
        summary["extract_vs_raw_ratio"] = round(
            summary["extract_pages_per_s"] / summary["baseline_raw_get_text_pages_per_s"], 3
        )
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    print(json.dumps(summary, sort_keys=True))
    kept = len(docs)
    print(
        f"{len(specs)} PDFs: {kept} documents kept ({pages} pages), {len(skipped)} skipped "
        "(the ones `evaudit ingest` skips; reasons in skipped.tsv)"
    )
    if "extract_vs_raw_ratio" in summary:
        print(
            f"extraction+normalization with {args.workers} workers: "
            f"{summary['extract_pages_per_s']} pages/s (runs {summary['extract_seconds_runs']} s); "
            f"baseline raw page.get_text() loop, 1 process: "
            f"{summary['baseline_raw_get_text_pages_per_s']} pages/s "
            f"(runs {summary['baseline_seconds_runs']} s); ratio {summary['extract_vs_raw_ratio']} "
            "(mean time of two rounds in alternating order after a warm-up)"
        )


def specs_of(docs: list[DocText], specs: list[DocSpec]) -> list[DocSpec]:
    by_id = {s.doc_id: s for s in specs}
    return [by_id[d.doc_id] for d in docs]


if __name__ == "__main__":
    main()
