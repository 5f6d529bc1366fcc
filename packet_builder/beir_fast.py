"""A BEIR corpus.jsonl read whole by Arrow's JSON reader and written as Arrow tables,
for `ingest --beir`.

The per-line reader (formats.beir.corpus_pages) is the reference: it names the
first bad line. This path returns None whenever it cannot vouch that the file is one
the reference reads without error (a parse error, a non-string or null `_id`/`text`,
an empty id, a repeated id, no entry), whenever
Arrow might read the file differently from `json.loads` line by line
(`formats.arrow_jsonl`), or when the file is over MAX_BYTES, and the caller then falls back to the reference, which reports any
error. When it answers,
the pages and hashes are those of the reference: the join and strip run on Python
strings, as `page_text` does.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaign import store, store_corpus
from campaign.project import Project, now_iso
from formats.arrow_jsonl import arrow_jsonl
from packet_builder.source_gate import page_kinds

# The whole corpus is held in memory (about 5x the file); a larger file is streamed by
# the per-line reader in batches instead.
MAX_BYTES = 1 << 30


@dataclass
class BeirColumns:
    doc_ids: list[str]
    texts: list[str]
    sha256: list[str]


def read_corpus(folder: Path) -> BeirColumns | None:
    import pyarrow as pa
    import pyarrow.compute as pc

    path = folder / "corpus.jsonl"
    if not path.is_file() or path.stat().st_size > MAX_BYTES:
        return None
    tbl = arrow_jsonl(path.read_bytes())
    if tbl is None:
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
    if pc.any(pc.equal(pc.utf8_length(ids), 0)).as_py():
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


def write_columns(
    project: Project, folder: Path, cols: BeirColumns, known: dict[str, str], source: str
) -> tuple[int, int, int, dict[str, dict[str, Any]]]:
    """The rows `ingest.write_documents` writes for BEIR entries (one page each, kind
    "beir"), from columns, in one transaction: a million passages without a million
    objects. Returns (documents, pages, unchanged, extraction summary by source)."""
    import pyarrow as pa

    keep = [i for i, (d, h) in enumerate(zip(cols.doc_ids, cols.sha256, strict=True))
            if known.get(d) != h]  # fmt: skip
    unchanged = len(cols.doc_ids) - len(keep)
    if len(keep) == len(cols.doc_ids):
        ids, texts, shas = cols.doc_ids, cols.texts, cols.sha256
    else:
        ids = [cols.doc_ids[i] for i in keep]
        texts = [cols.texts[i] for i in keep]
        shas = [cols.sha256[i] for i in keep]
    n = len(ids)
    if n == 0:
        return 0, 0, unchanged, {}
    path = str((folder / "corpus.jsonl").resolve())
    stamp = now_iso()
    id_arr = pa.array(ids, pa.string())
    text_arr = pa.array(texts, pa.string())
    extracted = [1 if t.strip() else 0 for t in texts]  # DocPages.extraction's rule
    new_docs = pa.table({
        "doc_id": id_arr, "source_path": pa.repeat(path, n), "kind": pa.repeat("beir", n),
        "sha256": pa.array(shas, pa.string()), "n_pages": pa.repeat(1, n),
        "ingested_at": pa.repeat(stamp, n),
    })  # fmt: skip
    new_pages = pa.table({
        "doc_id": id_arr, "page": pa.repeat(1, n), "text": text_arr,
        "n_chars": pa.array([len(t) for t in texts], pa.int64()),
    })  # fmt: skip
    new_extraction = pa.table({
        "doc_id": id_arr, "source": pa.repeat(source, n), "pages_expected": pa.repeat(1, n),
        "pages_extracted": pa.array(extracted, pa.int64()), "expected_from": pa.repeat("beir", n),
    })  # fmt: skip
    with store.transaction(project.store_path) as con:
        store_corpus.replace_corpus_tables(con, new_docs, new_pages, new_extraction)
    got = sum(extracted)
    summary = {source: page_kinds(n, 0, n, n, got, 0).to_json()}  # one stored page per entry
    return n, n, unchanged, summary
