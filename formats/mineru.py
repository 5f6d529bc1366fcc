"""MinerU output: `<name>_content_list.json` (or `<name>_middle.json`) per document.

MinerU writes, per input PDF, `<out>/<name>/<method>/<name>_content_list.json`: a flat
list of blocks in reading order, each with a 0-based `page_idx`: `text` (a title has
`text_level` >= 1), `table` (`table_caption`, `table_body` as HTML, `table_footnote`),
`equation` (LaTeX in `text`), `image` (`img_caption`/`image_caption`, footnotes), and in
newer versions `list` (`list_items`) and `code` (`code_body`). Pages with no block do
not appear. `<name>_middle.json` holds `pdf_info`, one entry per PDF page (empty pages
included) with `para_blocks` of lines and spans.

One document per name (doc_id = name); blocks are grouped by page and joined in
reading order; text, titles, tables (as text), equations, list items, code and image
captions are kept; the image itself, page headers, footers and page numbers are not.
The expected page count (for the extraction gate) is the length of `pdf_info` when a
middle.json is there, else the page count of MinerU's `<name>_origin.pdf`, else the
last page a block names.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vocabulary.errors import InputError
from vocabulary.jsonread import json_document

_TAG = re.compile(r"<[^>]+>")
_CELL_END = re.compile(r"</t[dh]>", re.I)
_ROW_END = re.compile(r"</tr>", re.I)
_SKIP = {"header", "footer", "page_number", "aside_text", "discarded", "image_body"}
CONTENT_SUFFIX = "_content_list.json"
MIDDLE_SUFFIX = "_middle.json"


@dataclass(frozen=True)
class MinerUDoc:
    doc_id: str
    source_path: str
    sha256: str
    pages: list[str]
    expected: int
    expected_from: str  # "middle.json", "origin.pdf" or "content_list"


def table_text(body: str) -> str:
    """An HTML table as text: cells separated by " | ", rows by newlines."""
    body = _ROW_END.sub("\n", _CELL_END.sub(" | ", body))
    rows = [" ".join(html.unescape(_TAG.sub(" ", r)).split()).strip(" |") for r in body.split("\n")]
    return "\n".join(r for r in rows if r)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def block_text(block: dict[str, Any]) -> str:
    """The kept text of one content-list block ("" for an image without caption)."""
    kind = block.get("type")
    parts: list[str]
    if kind in _SKIP:
        return ""
    if kind == "table":
        body = block.get("table_body")
        parts = _strings(block.get("table_caption"))
        parts += [table_text(body)] if isinstance(body, str) else []
        parts += _strings(block.get("table_footnote"))
    elif kind == "image":
        parts = _strings(block.get("img_caption", block.get("image_caption")))
        parts += _strings(block.get("img_footnote", block.get("image_footnote")))
    elif kind == "list":
        parts = _strings(block.get("list_items"))
    elif kind == "code":
        parts = _strings(block.get("code_caption")) + _strings(block.get("code_body"))
    else:  # text, title, equation, and anything else that carries "text"
        parts = _strings(block.get("text"))
    return "\n".join(p.strip() for p in parts if p.strip())


def _load_json(path: Path) -> Any:
    try:
        return json_document(path.read_text(encoding="utf-8"), "malformed JSON", path)
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text", file=path) from exc


def _block_lines(raw: str, count: int) -> list[int]:
    """The file line each top-level block of a JSON array starts on (for error messages)."""
    lines: list[int] = []
    depth, line, in_str, esc = 0, 1, False, False
    for ch in raw:
        if ch == "\n":
            line += 1
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            if depth == 1 and ch == "{":
                lines.append(line)
            depth += 1
        elif ch in "]}":
            depth -= 1
    return lines + [0] * (count - len(lines))


def content_list_pages(path: Path) -> dict[int, list[str]]:
    """0-based page index -> the kept texts of its blocks, in reading order."""
    raw = path.read_text(encoding="utf-8")
    blocks = _load_json(path)
    if not isinstance(blocks, list):
        raise InputError("expected a JSON list of blocks", file=path)
    starts = _block_lines(raw, len(blocks))
    pages: dict[int, list[str]] = {}
    for i, block in enumerate(blocks):
        line = starts[i] or None
        if not isinstance(block, dict):
            raise InputError(f"block {i + 1} is not an object", file=path, line=line)
        idx = block.get("page_idx")
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
            raise InputError(
                f"block {i + 1}: 'page_idx' must be a 0-based integer, found {idx!r}",
                file=path,
                line=line,
            )
        text = block_text(block)
        page = pages.setdefault(idx, [])
        if text:
            page.append(text)
    return pages


def _span_text(span: dict[str, Any]) -> str:
    if span.get("type") == "table" and isinstance(span.get("html"), str):
        return table_text(span["html"])
    content = span.get("content")
    return content if isinstance(content, str) else ""


def _middle_block(block: dict[str, Any]) -> str:
    if block.get("type") in _SKIP:
        return ""
    if isinstance(block.get("blocks"), list):  # table, image, list: sub-blocks
        return "\n".join(
            t for b in block["blocks"] if isinstance(b, dict) if (t := _middle_block(b))
        )
    lines = []
    for ln in block.get("lines") or []:
        spans = ln.get("spans") if isinstance(ln, dict) else None
        text = "".join(_span_text(s) for s in spans or [] if isinstance(s, dict)).strip()
        if text:
            lines.append(text)
    return " ".join(lines)


def middle_pages(path: Path) -> list[str]:
    """One text per PDF page of a middle.json (`pdf_info` in page order)."""
    obj = _load_json(path)
    info = obj.get("pdf_info") if isinstance(obj, dict) else None
    if not isinstance(info, list):
        raise InputError("expected an object with a 'pdf_info' list", file=path)
    texts: list[str] = []
    for i, page in enumerate(info):
        if not isinstance(page, dict) or page.get("page_idx", i) != i:
            raise InputError(f"pdf_info entry {i + 1} has page_idx != {i}", file=path)
        blocks = [b for b in page.get("para_blocks") or [] if isinstance(b, dict)]
        texts.append("\n".join(t for b in blocks if (t := _middle_block(b))))
    return texts


def _pdf_pages(path: Path) -> int | None:
    import pymupdf

    try:
        with pymupdf.open(path) as doc:
            return int(doc.page_count)
    except Exception:  # a damaged origin PDF: fall back to the content list
        return None


def _find(folder: Path) -> dict[str, dict[str, Path]]:
    """name -> {"content": path, "middle": path, "origin": path} over the folder tree."""
    found: dict[str, dict[str, Path]] = {}
    for suffix, key in (
        (CONTENT_SUFFIX, "content"),
        (MIDDLE_SUFFIX, "middle"),
        ("_origin.pdf", "origin"),
    ):
        for p in sorted(folder.rglob(f"*{suffix}")):
            name = p.name[: -len(suffix)]
            entry = found.setdefault(name, {})
            if key in entry:
                raise InputError(
                    f"two MinerU outputs for document {name!r} (also {entry[key]})", file=p,
                    hint="ingest one method's output (auto, ocr, txt or vlm) per document",
                )  # fmt: skip
            entry[key] = p
    return found


def documents(folder: Path) -> Iterator[MinerUDoc]:
    if not folder.is_dir():
        raise InputError("MinerU output folder not found", file=folder)
    found = {n: e for n, e in _find(folder).items() if "content" in e or "middle" in e}
    if not found:
        raise InputError(
            f"no *{CONTENT_SUFFIX} or *{MIDDLE_SUFFIX} files", file=folder,
            hint="give the folder MinerU wrote (-o)",
        )  # fmt: skip
    for name in sorted(found):
        entry = found[name]
        if any(c.isspace() or c in "/\\" for c in name):
            raise InputError(f"unusable document id {name!r}", file=entry.get("content"))
        middle = middle_pages(entry["middle"]) if "middle" in entry else None
        if "content" in entry:
            path = entry["content"]
            by_page = content_list_pages(path)
            last = max(by_page, default=-1) + 1
            if middle is not None:
                expected, how = len(middle), "middle.json"
            elif "origin" in entry and (n := _pdf_pages(entry["origin"])) is not None:
                expected, how = n, "origin.pdf"
            else:
                expected, how = last, "content_list"
            if last > expected:
                raise InputError(
                    f"a block names page_idx {last - 1} but the PDF has {expected} pages",
                    file=path,
                )
            pages = ["\n".join(by_page.get(i, [])) for i in range(expected)]
        else:
            path = entry["middle"]
            assert middle is not None
            pages, expected, how = middle, len(middle), "middle.json"
        sha = hashlib.sha256(json.dumps(pages, ensure_ascii=False).encode()).hexdigest()
        yield MinerUDoc(name, str(path.resolve()), sha, pages, expected, how)
