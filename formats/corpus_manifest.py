"""Corpus provenance: a manifest of (doc_id, url, sha256) checked against local files.

A team that rebuilds a corpus from its URLs proves it got the same bytes by passing
the manifest to `evaudit ingest --manifest FILE`. The manifest is JSONL (one object
per line) or TSV with a header; `doc_id`, `url` and `sha256` are required, an
optional `file` gives the local path (relative to the manifest's folder). Without
it the local file is `<doc_id>.pdf` in the PDF folder being ingested, else the URL's
last path segment in the ingested folder (or next to the ingested file).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from vocabulary.digest import file_sha256
from vocabulary.errors import InputError
from vocabulary.jsonlines import json_lines

REQUIRED = ("doc_id", "url", "sha256")
_SHA = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class ManifestRow:
    doc_id: str
    url: str
    sha256: str
    file: str | None
    line: int


def _row(obj: dict[str, Any], path: Path, lineno: int) -> ManifestRow:
    vals: dict[str, str] = {}
    for key in REQUIRED:
        v = obj.get(key)
        if not isinstance(v, str) or not v.strip():
            raise InputError(
                f"manifest row needs a non-empty {key!r}", file=path, line=lineno,
                hint="columns: doc_id, url, sha256 (optional: file)",
            )  # fmt: skip
        vals[key] = v.strip()
    sha = vals["sha256"].lower()
    if not _SHA.match(sha):
        raise InputError(f"sha256 {vals['sha256']!r} is not 64 hex digits", file=path, line=lineno)
    f = obj.get("file")
    return ManifestRow(vals["doc_id"], vals["url"], sha, f.strip() if isinstance(f, str) and f.strip() else None, lineno)  # fmt: skip


def read_manifest(path: Path) -> list[ManifestRow]:
    """Rows in file order; a bad or duplicate row is one file:line error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("manifest not found", file=path) from None
    except UnicodeDecodeError:
        raise InputError("manifest is not UTF-8", file=path, hint="save as UTF-8") from None
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), start=1) if ln.strip()]
    if not lines:
        raise InputError("manifest is empty", file=path)
    rows: list[ManifestRow] = []
    if lines[0][1].lstrip().startswith("{"):
        for lineno, obj in json_lines(
            path,
            json_hint=None,
            bad_line="not JSON",
            not_object="a manifest line must be a JSON object",
        ):
            rows.append(_row(obj, path, lineno))
    else:
        header = [h.strip() for h in lines[0][1].split("\t")]
        missing = [k for k in REQUIRED if k not in header]
        if missing:
            raise InputError(
                f"TSV header lacks {', '.join(missing)}", file=path, line=lines[0][0],
                hint="first line: doc_id<TAB>url<TAB>sha256 (JSONL works too)",
            )  # fmt: skip
        for lineno, ln in lines[1:]:
            parts = ln.rstrip("\r\n").split("\t")
            if len(parts) != len(header):
                raise InputError(
                    f"expected {len(header)} tab-separated fields, found {len(parts)}",
                    file=path, line=lineno,
                )  # fmt: skip
            rows.append(_row(dict(zip(header, parts, strict=True)), path, lineno))
    seen: dict[str, int] = {}
    for r in rows:
        if r.doc_id in seen:
            raise InputError(
                f"duplicate doc_id {r.doc_id!r} (first on line {seen[r.doc_id]})",
                file=path, line=r.line,
            )  # fmt: skip
        seen[r.doc_id] = r.line
    return rows


@dataclass
class ManifestReport:
    """What the local corpus lacks or holds differently from the manifest."""

    manifest: str
    rows: int = 0
    matched: int = 0
    differs: list[dict[str, str]] = field(default_factory=list)  # doc_id url file expected actual
    missing: list[dict[str, str]] = field(default_factory=list)  # doc_id url file
    unlisted: list[str] = field(default_factory=list)  # local PDFs the manifest does not name

    @property
    def ok(self) -> bool:
        return not (self.differs or self.missing or self.unlisted)

    def to_json(self) -> dict[str, Any]:
        return {
            "manifest": self.manifest, "rows": self.rows, "matched": self.matched,
            "differs": self.differs, "missing": self.missing, "unlisted": self.unlisted,
            "ok": self.ok,
        }  # fmt: skip

    def findings(self) -> list[tuple[str, str]]:
        """(file, what) per finding: what `--strict` refuses."""
        out = [
            (d["file"], f"{d['doc_id']}: sha256 {d['actual']} differs from the manifest's "
             f"{d['expected']} ({d['url']})")
            for d in self.differs
        ]  # fmt: skip
        out += [(m["file"], f"{m['doc_id']}: missing ({m['url']})") for m in self.missing]
        out += [(u, "not in the manifest") for u in self.unlisted]
        return out

    def to_text(self) -> str:
        lines = [
            f"manifest {self.manifest}: {self.matched}/{self.rows} files match; "
            f"{len(self.differs)} differ; {len(self.missing)} missing"
            + (f"; {len(self.unlisted)} local PDFs unlisted" if self.unlisted else "")
        ]
        lines += [f"  {f}: {what}" for f, what in self.findings()]
        return "\n".join(lines)


def _local(
    row: ManifestRow,
    manifest: Path,
    pdf_dir: Path | None,
    base: Path,
    pdf_files: Mapping[str, Path] | None = None,
) -> Path:
    if row.file is not None:
        return manifest.parent / row.file
    if pdf_files is not None and row.doc_id in pdf_files:
        return pdf_files[row.doc_id]
    if pdf_dir is not None:
        return pdf_dir / f"{row.doc_id}.pdf"
    name = Path(unquote(urlparse(row.url).path)).name or row.doc_id
    return base / name


def check_manifest(
    manifest: Path,
    *,
    pdf_dir: Path | None,
    base: Path,
    pdf_files: Mapping[str, Path] | None = None,
) -> ManifestReport:
    """Hash every file the manifest names; `base` is the folder of the ingested input;
    `pdf_files` the PDFs `ingest --pdf-dir` found (doc_id -> file, subfolders included)."""
    rows = read_manifest(manifest)
    rep = ManifestReport(manifest=str(manifest), rows=len(rows))
    named: set[Path] = set()
    for r in rows:
        local = _local(r, manifest, pdf_dir, base, pdf_files)
        named.add(local.resolve())
        entry = {"doc_id": r.doc_id, "url": r.url, "file": str(local)}
        if not local.is_file():
            rep.missing.append(entry)
            continue
        actual = file_sha256(local)
        if actual != r.sha256:
            rep.differs.append(entry | {"expected": r.sha256, "actual": actual})
        else:
            rep.matched += 1
    if pdf_files is not None:
        rep.unlisted = sorted(str(p) for p in pdf_files.values() if p.resolve() not in named)
    elif pdf_dir is not None and pdf_dir.is_dir():
        rep.unlisted = sorted(
            str(p) for p in pdf_dir.iterdir()
            if p.suffix.lower() == ".pdf" and p.is_file() and p.resolve() not in named
        )  # fmt: skip
    return rep
