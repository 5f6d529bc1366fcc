"""Read the long orbit table (CSV or Parquet) for `evaudit orbit analyze`.

Returns every column as text plus the position of each row for messages: the file line
for CSV (header is line 1) and the 1-based row number for Parquet. Checking the meaning of
the values is left to `scorers.orbit.design`, which names the offending rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vocabulary.errors import InputError


def read_orbit_table(path: str | Path) -> tuple[dict[str, NDArray[Any]], NDArray[np.int64]]:
    """(columns as str arrays, line or row number of each row)."""
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise InputError("file not found", file=p, hint="check the path")
    suffix = p.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            frame = pd.read_parquet(p)
            first_line = 1
        elif suffix in (".csv", ".txt"):
            frame = pd.read_csv(p, dtype=str, keep_default_na=False, skipinitialspace=True)
            first_line = 2  # the header is line 1
        else:
            raise InputError(
                f"unsupported table format {suffix or '(no extension)'!r}",
                file=p,
                hint="give a .csv or .parquet file",
            )
    except InputError:
        raise
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot read table: {message}", file=p, hint="check the file") from exc
    if frame.empty:
        raise InputError(
            "the table has no rows", file=p, hint="add one row per claim, ranker and interface"
        )
    frame.columns = [str(c).strip() for c in frame.columns]
    columns = {
        c: np.array(["" if v is None else str(v) for v in frame[c].tolist()], dtype=object)
        for c in frame.columns
    }
    lines = np.arange(len(frame), dtype=np.int64) + first_line
    return columns, lines


def load_orbit_data(
    path: str | Path,
    *,
    base: str,
    variant: str,
    positive: str | None = None,
    drop_incomplete: bool = False,
) -> Any:
    """Read and check the table; returns `scorers.orbit.design.OrbitData`."""
    from scorers.orbit.design import build_design

    columns, lines = read_orbit_table(path)
    return build_design(
        columns,
        base=base,
        variant=variant,
        source=str(path),
        lines=lines,
        positive=positive,
        drop_incomplete=drop_incomplete,
    )
