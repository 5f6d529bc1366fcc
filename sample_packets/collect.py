"""Copy the sample PDFs out of the installed Debian texlive doc packages and record their sources.

Run once (needs the three texlive doc packages installed); writes pdfs/<doc_id>.pdf,
sources.csv (machine-readable, read by build.py) and SOURCES.md. The committed PDFs are
the reference; this script documents exactly where they came from.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOC_ROOT = "/usr/share/doc/texlive-doc/"
PICKS: dict[str, list[str]] = {
    "texlive-latex-base-doc": [
        "latex/base/usrguide.pdf",
        "latex/graphics/grfguide.pdf",
        "latex/natbib/natbib.pdf",
        "latex/tools/tabularx.pdf",
        "latex/tools/longtable.pdf",
        "latex/tools/verbatim.pdf",
        "latex/tools/calc.pdf",
        "latex/amscls/amsthdoc.pdf",
    ],
    "texlive-latex-recommended-doc": [
        "latex/booktabs/booktabs.pdf",
        "latex/float/float.pdf",
        "latex/mdwtools/footnote.pdf",
        "latex/index/index.pdf",
        "latex/pdfpages/pdfpages.pdf",
        "latex/mathtools/empheq.pdf",
    ],
    "texlive-science-doc": [
        "latex/physics/physics.pdf",
        "latex/mhchem/mhchem.pdf",
        "latex/isomath/isomath.pdf",
        "latex/mismath/mismath.pdf",
        "latex/proof-at-the-end/proof-at-the-end.pdf",
        "latex/delimset/delimset.pdf",
    ],
}


def license_of(package: str, rel_path: str) -> tuple[str, str]:
    """(CTAN package, license) from the Debian package's Licenses.gz entry for its doc folder."""
    folder = "texmf-dist/doc/" + str(Path(rel_path).parent) + "/*"
    entry = ""
    with gzip.open(f"/usr/share/doc/{package}/Licenses.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line and not line.startswith(("texmf", " ", "\t")) and ":" in line:
                entry = line
            elif line.strip() == folder and entry:
                name, lic = entry.split(":", 1)
                return name.strip(), lic.strip() or "see /usr/share/doc/" + package + "/copyright"
    raise SystemExit(f"{rel_path}: no license entry in /usr/share/doc/{package}/Licenses.gz")


def package_version(package: str) -> str:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def main() -> None:
    rows = []
    (HERE / "pdfs").mkdir(exist_ok=True)
    for package, paths in PICKS.items():
        version = package_version(package)
        for rel in paths:
            src = Path(DOC_ROOT + rel)
            doc_id = src.stem
            dst = HERE / "pdfs" / f"{doc_id}.pdf"
            shutil.copyfile(src, dst)
            ctan, lic = license_of(package, rel)
            sha = hashlib.sha256(dst.read_bytes()).hexdigest()
            rows.append([doc_id, package, version, str(src), ctan, lic, sha])
    rows.sort()
    header = ["doc_id", "package", "package_version", "path", "ctan_package", "license", "sha256"]
    with open(HERE / "sources.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    md = [
        "# Sources of the sample PDFs",
        "",
        "Each PDF in `pdfs/` is an unmodified copy of a documentation file shipped by a Debian",
        "package (installed with `apt-get install texlive-latex-base-doc",
        "texlive-latex-recommended-doc texlive-science-doc`). Licenses are those recorded for the",
        "CTAN package in `/usr/share/doc/<package>/Licenses.gz` (see also",
        "`/usr/share/doc/<package>/copyright`); `lppl*` is the LaTeX Project Public License,",
        "a free license that permits redistribution of unmodified files; `gpl` is the GNU GPL and",
        "`other-free` a free license judged DFSG-free by Debian (see the package documentation).",
        "Regenerate with `python sample_packets/collect.py`; `sources.csv` has the same data.",
        "",
        "| doc_id | Debian package (version) | path | CTAN package | license | SHA-256 (first 12) |",
        "|---|---|---|---|---|---|",
    ]
    for doc_id, package, version, path, ctan, lic, sha in rows:
        md.append(f"| {doc_id} | {package} ({version}) | `{path}` | {ctan} | {lic} | {sha[:12]} |")
    (HERE / "SOURCES.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    print(f"copied {len(rows)} PDFs into {HERE / 'pdfs'}")


if __name__ == "__main__":
    main()
