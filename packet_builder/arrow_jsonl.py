"""A JSONL file read whole by Arrow's JSON reader, only where it reads as `json.loads`.

Arrow reads a million short JSON lines in about a second and makes no Python object per
value, but it accepts what `json.loads` refuses and reads some lines differently (see
`arrow_jsonl`); the readers that use it (BEIR corpus ingest, JSONL qrels) fall back to
their per-line reader, the definition, whenever it declines.
"""

from __future__ import annotations

import codecs

import pyarrow as pa

from vocabulary.jsonread import clean_lines, long_integer

DEEP = 500  # nesting levels; `json.loads` reads about 990 from a shallow call stack


def arrow_jsonl(data: bytes) -> pa.Table | None:
    """A JSONL file's bytes as one Arrow table, or None wherever Arrow might read it
    otherwise than `json.loads` reads each line: unclean record boundaries (blank lines,
    a BOM; `vocabulary.jsonread.clean_lines`), two objects on one line, invalid UTF-8
    (Arrow checks no string, kept or skipped), an integer over Python's digit limit, a
    parse error, or nesting nearly as deep as `json.loads` can read (its limit depends on
    the call stack). The caller's per-line reader, the definition, then decides."""
    import pyarrow.json as pajson

    body = data[:-1] if data.endswith(b"\n") else data
    lines = clean_lines(body)
    if not lines or long_integer(body):
        return None
    if not data.isascii() and not utf8(data):
        return None
    try:
        table = pajson.read_json(
            pa.BufferReader(data), read_options=pajson.ReadOptions(block_size=1 << 24)
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    if table.num_rows != lines or _depth(table.schema) >= DEEP:
        return None
    return table


def _depth(schema: pa.Schema) -> int:
    """How deep the inferred columns nest (structs and lists), without recursion."""
    deepest = 0
    todo = [(field.type, 1) for field in schema]
    while todo:
        kind, level = todo.pop()
        deepest = max(deepest, level)
        if pa.types.is_struct(kind):
            todo.extend((kind.field(i).type, level + 1) for i in range(kind.num_fields))
        elif pa.types.is_list(kind) or pa.types.is_large_list(kind):
            todo.append((kind.value_type, level + 1))
    return deepest


def utf8(data: bytes, chunk: int = 1 << 24) -> bool:
    """Whether `data` is UTF-8, checked in chunks: decoding a corpus of up to 1 GiB whole
    would hold a string of up to four times its size only to drop it."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for at in range(0, len(view), chunk):
            decoder.decode(view[at : at + chunk])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True
