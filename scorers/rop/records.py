"""Records file -> columns: one parser, block by block, for every declaration.

The file is cut into blocks of whole lines. Each block is decoded by the typed
msgspec decoder of the declaration's needed fields (`scorers.rop.typed_rows`),
which vouches for a block only when it reads exactly as `json.loads` reads each
line; any other block is re-read line by line by the stdlib parser
(`scorers.rop.columns.line_rows`, the definition). Blocks are read in file
order, so the columns are simply joined.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

from scorers.rop.columns import RecordColumns, concat, line_rows
from scorers.rop.declaration import Declaration
from scorers.rop.typed_rows import block_columns, decode_block, typed_decoder
from vocabulary.progress import Progress, no_progress

BLOCK = 1 << 20  # bytes per block: a rejected block costs one MiB of stdlib parsing


def parse_records(
    data: bytes,
    id_path: tuple[str, ...],
    decl: Declaration | None,
    *,
    block: int = BLOCK,
    progress: Progress = no_progress,
) -> RecordColumns:
    """Columns of a records file; with `decl` None only the record ids are read.
    `progress` sees the blocks as they are decoded."""
    # The decoded records hold no reference cycles; the collector's passes over the many
    # lists they allocate cost a fifth of the decoding time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _parse(data, id_path, decl, block, progress)
    finally:
        if collecting:
            gc.enable()


def _parse(
    data: bytes,
    id_path: tuple[str, ...],
    decl: Declaration | None,
    block: int,
    progress: Progress,
) -> RecordColumns:
    typed = typed_decoder(id_path, decl)
    parts: list[RecordColumns] = []
    first_line = 1
    spans = list(_blocks(data, block))
    for start, end in progress(spans, total=len(spans), desc="records (blocks of 1 MiB)"):
        newline = data[end - 1] == 10  # the block's final line break, left out of `body`
        body = data[start : end - 1 if newline else end]
        rows = decode_block(typed, body) if typed is not None else None
        if rows is not None:
            assert typed is not None
            parts.append(block_columns(typed, rows, first_line))
        else:
            lines = enumerate(body.split(b"\n"), start=first_line)
            parts.append(line_rows(lines, id_path, decl))
        first_line += body.count(b"\n") + newline
    return concat(parts)


def _blocks(data: bytes, block: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each block of whole lines, about `block` bytes each."""
    start = 0
    while start < len(data):
        cut = data.find(b"\n", start + block)
        end = len(data) if cut < 0 else cut + 1
        yield start, end
        start = end


def stdlib_records(
    data: bytes, id_path: tuple[str, ...], decl: Declaration | None
) -> RecordColumns:
    """The stdlib parser over the whole file (the definition; tests compare with it)."""
    return line_rows(enumerate(data.split(b"\n"), start=1), id_path, decl)
