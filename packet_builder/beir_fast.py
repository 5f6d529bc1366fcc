"""A BEIR corpus.jsonl read whole by Arrow's JSON reader, for `ingest --beir`.

The per-line reader (packet_builder.beir.corpus_pages) is the reference: it names the
first bad line. This path returns None whenever it cannot vouch that the file is one
the reference reads without error (a parse error, a non-string or null `_id`/`text`,
a non-ASCII id, an id with whitespace or a slash, a repeated id, no entry), and the
caller then falls back to the reference, which reports the error. When it answers,
the pages and hashes are those of the reference: the join and strip run on Python
strings, as `page_text` does.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

_BAD_ID = r"[\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f /\\]"  # str.isspace() over ASCII, and slashes


@dataclass
class BeirColumns:
    doc_ids: list[str]
    texts: list[str]
    sha256: list[str]


def read_corpus(folder: Path) -> BeirColumns | None:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pajson

    path = folder / "corpus.jsonl"
    if not path.is_file():
        return None
    try:
        tbl = pajson.read_json(path, read_options=pajson.ReadOptions(block_size=1 << 24))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    names = tbl.column_names
    if tbl.num_rows == 0 or "_id" not in names or "text" not in names:
        return None
    ids, text = tbl["_id"], tbl["text"]
    if not pa.types.is_string(ids.type) or not pa.types.is_string(text.type):
        return None
    if ids.null_count or text.null_count:
        return None
    title = tbl["title"] if "title" in names else None
    if title is not None and not (pa.types.is_string(title.type) or pa.types.is_null(title.type)):
        return None
    if not pc.all(pc.string_is_ascii(ids)).as_py():
        return None
    if pc.any(pc.equal(pc.utf8_length(ids), 0)).as_py():
        return None
    if pc.any(pc.match_substring_regex(ids, _BAD_ID)).as_py():
        return None
    if pc.count_distinct(ids).as_py() != tbl.num_rows:
        return None
    doc_ids = ids.to_pylist()
    bodies = text.to_pylist()
    if title is None or pa.types.is_null(title.type):
        heads = [""] * len(bodies)
    else:
        heads = [t or "" for t in title.to_pylist()]
    texts = [(h + " " + b).strip() for h, b in zip(heads, bodies, strict=True)]
    sha = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    return BeirColumns(doc_ids, texts, sha)
