"""A JSONL file read whole by Arrow's JSON reader, only where it reads as `json.loads`.

Arrow reads a million short JSON lines in about a second and makes no Python object per
value, but it accepts what `json.loads` refuses and reads some lines differently (see
`vocabulary.jsonblocks`); the readers that use it (BEIR corpus ingest, JSONL qrels) fall
back to their per-line reader, the definition, whenever it declines.
"""

from __future__ import annotations

import pyarrow as pa

from vocabulary.jsonblocks import line_blocks, vouched_lines

_PIECE = 1 << 24  # the guards look at 16 MiB of whole lines at a time


def arrow_jsonl(data: bytes) -> pa.Table | None:
    """A JSONL file's bytes as one Arrow table, or None wherever Arrow might read it
    otherwise than `json.loads` reads each line: unclean record boundaries (blank lines,
    a BOM), two objects on one line, invalid UTF-8 (Arrow checks no string, kept or
    skipped), an integer over Python's digit limit, the constants `Inf`, `-Inf` or
    `-NaN`, nesting nearly as deep as `json.loads` can read (its limit depends on the
    call stack), or a parse error. The caller's per-line reader then decides."""
    import pyarrow.json as pajson

    body = data[:-1] if data.endswith(b"\n") else data
    lines = 0
    for start, end in line_blocks(body, _PIECE):
        piece = vouched_lines(body[start : end - 1 if body[end - 1] == 10 else end])
        if not piece:
            return None
        lines += piece
    if not lines:
        return None
    try:
        table = pajson.read_json(
            pa.BufferReader(data), read_options=pajson.ReadOptions(block_size=1 << 24)
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    return table if table.num_rows == lines else None
