"""TREC collections: topics (SGML/XML `<top>` or TSV) and documents (`<DOC><DOCNO><TEXT>`
files, or JSONL); their graded qrels are read by `formats.qrels.read_trec_qrels`.

Topics: classic SGML, where `<num>`, `<title>`, `<desc>` and `<narr>` run up to the
next tag (`<num> Number: 301`, `<desc> Description:` ...), or the same tags closed as
XML; or TSV `qid<TAB>title[<TAB>description[<TAB>narrative]]`. The narrative becomes the
relevance condition's rubric (requirement = narrative, note = description) unless a
guideline gives one.
Documents: every `<DOC>` gives one one-page document: its `<DOCNO>`, and the text of
its headline/title and `<TEXT>` sections with inner tags removed.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from formats.classic import Rubric
from vocabulary.errors import InputError
from vocabulary.jsonlines import json_objects

_TOP = re.compile(r"<top>(.*?)</top>", re.I | re.S)
_FIELD = re.compile(r"<(num|title|desc|narr)>", re.I)
_PREFIX = re.compile(r"^\s*(number|topic|description|narrative)\s*:\s*", re.I)
_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.I | re.S)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.I | re.S)
_TEXT = re.compile(r"<TEXT>(.*?)</TEXT>", re.I | re.S)
_HEAD = re.compile(r"<(HEADLINE|HEAD|TITLE|HL)>(.*?)</\1>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Topic:
    query_id: str
    title: str
    desc: str = ""
    narr: str = ""

    def rubric(self) -> Rubric | None:
        """The narrative as the relevance rubric (None when the topic has none)."""
        if not self.narr:
            return None
        return Rubric(requirement=self.narr, note=self.desc)


def collection_text(path: Path) -> str:
    """A collection file's text: gzip-compressed or not, UTF-8 or else Latin-1."""
    if not path.is_file():
        raise InputError("file not found", file=path, hint="check the path")
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        # Old TREC disks are Latin-1; every byte decodes, so nothing is lost.
        return raw.decode("latin-1")


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _clean(value: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", value)).split())


def _sgml_fields(body: str) -> dict[str, str]:
    """Tag -> text of one `<top>` block; a field runs to the next field tag."""
    marks = list(_FIELD.finditer(body))
    out: dict[str, str] = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        value = _PREFIX.sub("", _clean(body[m.end() : end]), count=1)
        out.setdefault(m.group(1).lower(), value.strip())
    return out


def read_topics(path: Path) -> list[Topic]:
    """Topics in file order; a `<top>` without `<num>` or a repeated number is an error."""
    text = collection_text(path)
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    if re.search(r"<top>", text, re.I):
        blocks = [(m.group(1), _line(text, m.start())) for m in _TOP.finditer(text)]
        opened = len(re.findall(r"<top>", text, re.I))
        if opened != len(blocks):
            raise InputError(
                f"{opened} <top> but {len(blocks)} closed topics",
                file=path,
                hint="close with </top>",
            )
        for body, lineno in blocks:
            fields = _sgml_fields(body)
            qid = fields.get("num", "")
            if not qid:
                raise InputError("topic without <num>", file=path, line=lineno)
            topics.append(_topic(qid, fields, path, lineno, seen))
    else:
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            parts = [p.strip() for p in line.split("\t")]
            if not 2 <= len(parts) <= 4 or not parts[0]:
                raise InputError(
                    "expected qid<TAB>title[<TAB>description[<TAB>narrative]]",
                    file=path,
                    line=lineno,
                )
            names = ("num", "title", "desc", "narr")
            topics.append(
                _topic(parts[0], dict(zip(names, parts, strict=False)), path, lineno, seen)
            )
    if not topics:
        raise InputError("no topics in file", file=path)
    return topics


def _topic(
    qid: str, fields: dict[str, str], path: Path, lineno: int, seen: dict[str, int]
) -> Topic:
    if any(c.isspace() for c in qid):
        raise InputError(f"topic number {qid!r} has a space", file=path, line=lineno)
    if qid in seen:
        raise InputError(
            f"duplicate topic {qid!r} (first on line {seen[qid]})", file=path, line=lineno
        )
    seen[qid] = lineno
    title = fields.get("title", "") or fields.get("desc", "")
    if not title:
        raise InputError(f"topic {qid!r} has no <title> or <desc>", file=path, line=lineno)
    return Topic(qid, title, fields.get("desc", ""), fields.get("narr", ""))


def _doc_text(body: str) -> str:
    heads = [_clean(m.group(2)) for m in _HEAD.finditer(body)]
    texts = [_clean(m.group(1)) for m in _TEXT.finditer(body)]
    if not texts:  # no <TEXT>: everything but the DOCNO
        texts = [_clean(_DOCNO.sub(" ", _HEAD.sub(" ", body)))]
    return "\n".join(p for p in (*heads, *texts) if p)


def _sgml_docs(path: Path) -> Iterator[tuple[str, str, int]]:
    text = collection_text(path)
    opened = len(re.findall(r"<DOC>", text, re.I))
    found = 0
    for m in _DOC.finditer(text):
        found += 1
        lineno = _line(text, m.start())
        no = _DOCNO.search(m.group(1))
        if no is None or not no.group(1).strip():
            raise InputError("<DOC> without <DOCNO>", file=path, line=lineno)
        yield no.group(1).strip(), _doc_text(m.group(1)), lineno
    if found != opened:
        raise InputError(f"{opened} <DOC> but {found} closed", file=path, hint="close with </DOC>")


def _jsonl_docs(path: Path) -> Iterator[tuple[str, str, int]]:
    lines = enumerate(collection_text(path).splitlines(), start=1)
    for lineno, obj in json_objects(lines, path, json_hint=None):
        doc_id = obj.get("docno", obj.get("doc_id"))
        if not isinstance(doc_id, str) or not doc_id.strip():
            raise InputError("missing string 'docno' (or 'doc_id')", file=path, line=lineno)
        body, title = obj.get("text"), obj.get("title") or ""
        if not isinstance(body, str) or not isinstance(title, str):
            raise InputError("'text' (and 'title') must be strings", file=path, line=lineno)
        yield doc_id.strip(), "\n".join(p for p in (title.strip(), body.strip()) if p), lineno


def _is_jsonl(path: Path) -> bool:
    name = path.name.removesuffix(".gz")
    return name.endswith(".jsonl") or name.endswith(".json")


def doc_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError("TREC documents not found", file=path)
    files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    if not files:
        raise InputError("no document files in folder", file=path)
    return files


def documents(path: Path) -> Iterator[tuple[str, str, str, str]]:
    """(doc_id, text, sha256 of the text, source file) per document of a file or folder."""
    seen: dict[str, tuple[Path, int]] = {}
    for f in doc_files(path):
        for doc_id, text, lineno in _jsonl_docs(f) if _is_jsonl(f) else _sgml_docs(f):
            if any(c.isspace() or c in "/\\" for c in doc_id):
                raise InputError(f"unusable DOCNO {doc_id!r}", file=f, line=lineno)
            if doc_id in seen:
                first = seen[doc_id]
                raise InputError(
                    f"duplicate DOCNO {doc_id!r} (first in {first[0].name}:{first[1]})",
                    file=f,
                    line=lineno,
                )
            seen[doc_id] = (f, lineno)
            yield doc_id, text, hashlib.sha256(text.encode()).hexdigest(), str(f.resolve())
    if not seen:
        raise InputError("no <DOC> entries", file=path)
