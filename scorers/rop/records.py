"""Records file -> columns: one parser, block by block, for every declaration.

The file is cut into blocks of whole lines. Each block is read by Arrow's JSON reader
with an explicit schema of the declaration's needed fields (`scorers.rop.arrow_rows`),
which vouches for a block only when it reads exactly as `json.loads` reads each line;
any other block is re-read line by line by the stdlib parser
(`scorers.rop.columns.line_rows`, the definition). Blocks are read on every core (Arrow
releases the interpreter lock) and joined in file order.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from scorers.rop.arrow_rows import BlockReader, block_reader, read_block, table_columns
from scorers.rop.columns import RecordColumns, concat, line_rows
from scorers.rop.declaration import Declaration
from vocabulary.jsonblocks import line_blocks
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
    `progress` sees the blocks as they are read."""
    reader = block_reader(id_path, decl)
    spans = list(line_blocks(data, block))

    def part(span: tuple[int, int]) -> tuple[RecordColumns, int]:
        return _block(data, span, reader, id_path, decl)

    workers = min(os.cpu_count() or 1, 4, len(spans))
    parts: list[RecordColumns] = []
    first_line = 1
    with ThreadPoolExecutor(max(workers, 1)) as pool:
        done = pool.map(part, spans) if workers > 1 else map(part, spans)
        for cols, lines in progress(done, total=len(spans), desc="records (blocks of 1 MiB)"):
            if cols.malformed_lines:
                cols.malformed_lines = [first_line + i for i in cols.malformed_lines]
            parts.append(cols)
            first_line += lines
    return concat(parts)


def _block(
    data: bytes,
    span: tuple[int, int],
    reader: BlockReader | None,
    id_path: tuple[str, ...],
    decl: Declaration | None,
) -> tuple[RecordColumns, int]:
    """One block's columns (malformed line numbers counted from 0) and its line count."""
    start, end = span
    newline = data[end - 1] == 10  # the block's final line break, left out of `body`
    body = data[start : end - 1 if newline else end]
    table = read_block(reader, body) if reader is not None else None
    if table is not None:
        assert reader is not None
        return table_columns(reader, table), table.num_rows - 1 + newline
    cols = line_rows(enumerate(body.split(b"\n")), id_path, decl)
    return cols, body.count(b"\n") + newline


def stdlib_records(
    data: bytes, id_path: tuple[str, ...], decl: Declaration | None
) -> RecordColumns:
    """The stdlib parser over the whole file (the definition; tests compare with it)."""
    return line_rows(enumerate(data.split(b"\n"), start=1), id_path, decl)
