"""Check a long orbit table and arrange it as complete claim x ranker x interface cubes.

The table arrives as plain columns (the edge module reads CSV/Parquet); every problem is
reported as `file:line: ...` naming the offending row, and nothing is computed from a
table that has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorers.orbit.walsh import INTERFACES
from vocabulary.errors import InputError, InputErrors

FloatArray = NDArray[np.float64]
REQUIRED = ("dataset", "reader", "claim_id", "y", "ranker", "z1", "z2", "z3", "correct")
MAX_LISTED = 50  # problems listed one per line before the rest are summarised


@dataclass
class Environment:
    """One (dataset, reader): arrays over the dataset's claim universe."""

    dataset: str
    reader: str
    present: NDArray[np.bool_]  # (n,) claim observed (complete) in this environment
    correct: NDArray[np.float64]  # (n, 2, 8): ranker (0 base, 1 variant) x interface
    log_odds: NDArray[np.float64] | None  # (n, 2, 8) or None when the column is absent

    @property
    def name(self) -> str:
        return f"{self.dataset}:{self.reader}"


@dataclass
class Dataset:
    """Claims of one dataset; bootstrap resamples and splits are shared by its readers."""

    name: str
    claim_ids: list[str]
    positive: NDArray[np.bool_]  # (n,) claim's semantic state is "+"
    environments: list[Environment]


@dataclass
class OrbitData:
    datasets: list[Dataset]
    base: str
    variant: str
    dropped: list[dict[str, Any]] = field(default_factory=list)
    ignored_rows: int = 0

    @property
    def environments(self) -> list[Environment]:
        return [e for d in self.datasets for e in d.environments]


def _strings(values: Any) -> NDArray[np.str_]:
    """Stripped text of a column (None becomes ""), vectorised for large tables."""
    arr = np.asarray(values)
    if arr.dtype == object:
        arr = np.where(arr == None, "", arr)  # noqa: E711 - elementwise comparison
    return np.strings.strip(arr.astype(str))


def _lookup(values: NDArray[np.str_], table: dict[str, float], default: float) -> FloatArray:
    """Map text through ``table`` once per distinct value (columns have few)."""
    uniq, inverse = np.unique(values, return_inverse=True)
    mapped = np.array([table.get(str(u), default) for u in uniq], dtype=np.float64)
    return mapped[inverse.reshape(-1)]


def _parse_sign(values: NDArray[np.str_]) -> NDArray[np.int64]:
    """-1/+1 from text such as "1", "+1", "-1", "1.0"; 0 marks an invalid cell."""
    lookup = {"1": 1, "+1": 1, "1.0": 1, "+1.0": 1, "+": 1, "-1": -1, "-1.0": -1, "-": -1}
    return _lookup(values, {k: float(v) for k, v in lookup.items()}, 0.0).astype(np.int64)


def _parse_floats(values: NDArray[np.str_]) -> FloatArray:
    """Floats, NaN where the text is not a number."""
    try:
        return values.astype(np.float64)
    except ValueError:
        return np.array([_to_float(str(v)) for v in values])


def _problems_to_error(problems: list[InputError]) -> InputErrors:
    if len(problems) > MAX_LISTED:
        rest = len(problems) - MAX_LISTED
        first = problems[0]
        problems = problems[:MAX_LISTED]
        problems.append(InputError(f"... and {rest} more such rows", file=first.file))
    return InputErrors(problems)


def build_design(
    columns: Mapping[str, Sequence[Any] | NDArray[Any]],
    *,
    base: str,
    variant: str,
    source: str,
    lines: Sequence[int] | NDArray[np.int64],
    positive: str | None = None,
    drop_incomplete: bool = False,
) -> OrbitData:
    """Validate the long table and build per-dataset cubes.

    ``lines`` gives the file line (CSV) or row number (Parquet) of each row, used in messages.
    """
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)}",
            file=source,
            line=1,
            hint=f"the orbit table needs columns {', '.join(REQUIRED)} and optionally log_odds",
        )
    if base == variant:
        raise InputError(f"--base and --variant are both {base!r}", hint="name two rankers")
    line_no = np.asarray(lines, dtype=np.int64)
    col = {c: _strings(columns[c]) for c in REQUIRED}
    ranker = col["ranker"]
    for name, flag in ((base, "--base"), (variant, "--variant")):
        if not np.any(ranker == name):
            found = ", ".join(sorted(set(ranker.tolist()))[:10])
            raise InputError(
                f"ranker {name!r} ({flag}) never occurs in column ranker",
                file=source,
                hint=f"rankers present: {found}",
            )
    keep = (ranker == base) | (ranker == variant)
    ignored = int(np.sum(~keep))
    col = {c: v[keep] for c, v in col.items()}
    line_no = line_no[keep]
    has_log_odds = "log_odds" in columns
    problems: list[InputError] = []

    def bad(mask: NDArray[np.bool_], what: str, hint: str) -> None:
        for i in np.flatnonzero(mask):
            problems.append(
                InputError(
                    what.format(**{c: str(col[c][i]) for c in col}),
                    file=source,
                    line=int(line_no[i]),
                    hint=hint,
                )
            )

    # Semantic state: "+"/"-", or two labels with --positive naming the "+" one.
    y_text = col["y"]
    if positive is None:
        bad(
            ~np.isin(y_text, ["+", "-"]),
            "y is {y!r}, not + or -",
            "use + and -, or pass --positive LABEL for two other labels",
        )
        is_pos = y_text == "+"
    else:
        labels = sorted(set(y_text.tolist()))
        if positive not in labels:
            raise InputError(
                f"--positive {positive!r} never occurs in column y",
                file=source,
                hint=f"labels present: {', '.join(labels[:10])}",
            )
        others = [v for v in labels if v != positive]
        if len(others) > 1:
            bad(
                ~np.isin(y_text, [positive, others[0]]),
                "y is {y!r}, a third label",
                f"y must take two values: {positive!r} and one other",
            )
        is_pos = y_text == positive
    z = np.stack([_parse_sign(col[f"z{j}"]) for j in (1, 2, 3)], axis=1)
    for j in (1, 2, 3):
        bad(
            z[:, j - 1] == 0,
            f"z{j} is {{z{j}!r}}, not -1 or +1",
            "binding, vocabulary and order are coded -1 or +1",
        )
    corr_lookup = {"0": 0.0, "1": 1.0, "0.0": 0.0, "1.0": 1.0, "False": 0.0, "True": 1.0}
    correct = _lookup(col["correct"], corr_lookup, np.nan)
    bad(np.isnan(correct), "correct is {correct!r}, not 0 or 1", "use 0 or 1")
    log_odds = np.zeros(len(correct))
    if has_log_odds:
        raw = _strings(columns["log_odds"])[keep]
        log_odds = _parse_floats(raw)
        for i in np.flatnonzero(~np.isfinite(log_odds)):
            problems.append(
                InputError(
                    f"log_odds is {str(raw[i])!r}, not a finite number",
                    file=source,
                    line=int(line_no[i]),
                    hint="give the reader's semantic log odds, or drop the column",
                )
            )
    for c in ("dataset", "reader", "claim_id"):
        bad(col[c] == "", f"{c} is empty", f"every row needs a {c}")
    if problems:
        raise _problems_to_error(problems)

    iface = (z[:, 0] == -1) * 4 + (z[:, 1] == -1) * 2 + (z[:, 2] == -1) * 1
    r_idx = (col["ranker"] == variant).astype(np.int64)
    ds_names, ds_idx = np.unique(col["dataset"], return_inverse=True)
    env_keys = np.char.add(np.char.add(col["dataset"], "\x1f"), col["reader"])
    env_names, env_idx = np.unique(env_keys, return_inverse=True)
    claim_keys = np.char.add(np.char.add(col["dataset"], "\x1f"), col["claim_id"])
    claim_names, claim_idx = np.unique(claim_keys, return_inverse=True)
    n_claims, n_env = len(claim_names), len(env_names)

    # One semantic state per (dataset, claim), whatever the reader or ranker.
    first_row = np.full(n_claims, -1)
    first_row[claim_idx[::-1]] = np.arange(len(claim_idx))[::-1]
    conflict = is_pos != is_pos[first_row[claim_idx]]
    for i in np.flatnonzero(conflict):
        j = first_row[claim_idx[i]]
        problems.append(
            InputError(
                f"claim {str(col['claim_id'][i])!r} of {str(col['dataset'][i])!r} has y {str(y_text[i])!r} but "
                f"line {line_no[j]} gives {str(y_text[j])!r}",
                file=source,
                line=int(line_no[i]),
                hint="a claim has one semantic state",
            )
        )
    cell = ((env_idx * n_claims + claim_idx) * 2 + r_idx) * 8 + iface
    order = np.argsort(cell, kind="stable")
    dup = np.zeros(len(cell), dtype=bool)
    dup[order[1:]] = cell[order[1:]] == cell[order[:-1]]
    for pos in np.flatnonzero(dup[order]):
        i, j = order[pos], order[pos - 1]
        problems.append(
            InputError(
                f"duplicate row for claim {str(col['claim_id'][i])!r} ({col['dataset'][i]}:"
                f"{col['reader'][i]}), ranker {col['ranker'][i]}, interface {INTERFACES[iface[i]]}"
                f" (first at line {line_no[j]})",
                file=source,
                line=int(line_no[i]),
                hint="keep one row per dataset, reader, claim, ranker and interface",
            )
        )
    if problems:
        raise _problems_to_error(problems)

    pair = env_idx * n_claims + claim_idx
    rows_per_pair = np.bincount(pair, minlength=n_env * n_claims)
    seen_pairs = np.unique(pair)
    incomplete_pairs = seen_pairs[rows_per_pair[seen_pairs] != 16]
    dropped: list[dict[str, Any]] = []
    if incomplete_pairs.size:
        have = np.zeros((n_env * n_claims, 16), dtype=bool)
        have[pair, r_idx * 8 + iface] = True
        first_line = np.full(n_env * n_claims, np.iinfo(np.int64).max)
        np.minimum.at(first_line, pair, line_no)
        for p in incomplete_pairs:
            e_i, c_i = divmod(int(p), n_claims)
            ds, rd = str(env_names[e_i]).split("\x1f")
            cid = str(claim_names[c_i]).split("\x1f", 1)[1]
            absent = [
                f"{(base, variant)[k // 8]} {INTERFACES[k % 8]}" for k in np.flatnonzero(~have[p])
            ]
            listed = ", ".join(absent[:4]) + (
                f" and {len(absent) - 4} more" if len(absent) > 4 else ""
            )
            if drop_incomplete:
                dropped.append(
                    {
                        "dataset": ds,
                        "reader": rd,
                        "claim_id": cid,
                        "line": int(first_line[p]),
                        "missing": absent,
                    }
                )
            else:
                problems.append(
                    InputError(
                        f"claim {cid!r} ({ds}:{rd}) is incomplete: no row for {listed}",
                        file=source,
                        line=int(first_line[p]),
                        hint="every claim needs both rankers at all 8 interfaces; add the rows "
                        "or pass --drop-incomplete",
                    )
                )
        if problems:
            raise _problems_to_error(problems)
    complete_pair = np.zeros(n_env * n_claims, dtype=bool)
    complete_pair[seen_pairs] = rows_per_pair[seen_pairs] == 16
    rows_ok = complete_pair[pair]

    datasets: list[Dataset] = []
    for d, ds in enumerate(ds_names):
        in_ds = np.flatnonzero(np.array([k.split("\x1f", 1)[0] == ds for k in claim_names]))
        local = np.full(n_claims, -1)
        local[in_ds] = np.arange(len(in_ds))
        positive_claim = np.zeros(len(in_ds), dtype=bool)
        positive_claim[local[claim_idx[ds_idx == d]]] = is_pos[ds_idx == d]
        envs: list[Environment] = []
        for e, key in enumerate(env_names):
            eds, reader = key.split("\x1f")
            if eds != ds:
                continue
            sel = (env_idx == e) & rows_ok
            cube = np.zeros((len(in_ds), 2, 8))
            cube[local[claim_idx[sel]], r_idx[sel], iface[sel]] = correct[sel]
            lo_cube = None
            if has_log_odds:
                lo_cube = np.zeros((len(in_ds), 2, 8))
                lo_cube[local[claim_idx[sel]], r_idx[sel], iface[sel]] = log_odds[sel]
            present = np.zeros(len(in_ds), dtype=bool)
            present[local[claim_idx[sel]]] = True
            for state, label in ((True, "+"), (False, "-")):
                if not np.any(present & (positive_claim == state)):
                    raise InputError(
                        f"environment {ds}:{reader} has no complete claim with y {label}",
                        file=source,
                        hint="g and h need claims of both semantic states",
                    )
            envs.append(Environment(ds, reader, present, cube, lo_cube))
        datasets.append(
            Dataset(
                str(ds), [claim_names[i].split("\x1f", 1)[1] for i in in_ds], positive_claim, envs
            )
        )
    return OrbitData(datasets, base, variant, dropped, ignored)


def _to_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")
