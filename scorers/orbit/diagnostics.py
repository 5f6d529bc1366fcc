"""Generation diagnostics of "Which Reranking Conclusions Survive the Answer Interface?".

The audit's decisions come from forced-choice scoring; greedy generation is diagnostic
only. With a ``generated`` column (the semantic label the reader generated: ``+``/``-``,
or the two ``y`` labels when ``--positive`` names one; anything else, including an empty
cell, is an invalid generation) this module reports, per environment and per ranker:

* generation invalidity: the share of rows whose generation is not a valid label;
* generation-to-score disagreement: the share of rows whose generated label differs from
  the forced-choice decision (``y`` when ``correct`` is 1, the other state when 0); an
  invalid generation counts as a disagreement, so disagreement >= invalidity.

and the range of both over environments (the paper reports 0.0%-79.3% and 0.07%-79.4%).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vocabulary.errors import InputError

GENERATED = "generated"


def states(
    y: NDArray[Any], lines: NDArray[np.int64], source: str, positive: str | None
) -> tuple[NDArray[np.bool_], set[str], set[str]]:
    """(is positive per row, labels meaning +, labels meaning -); bad labels name their line."""
    if positive is None:
        plus, minus = {"+"}, {"-"}
    else:
        plus = {positive}
        minus = {str(v) for v in np.unique(y)} - plus
    bad = ~np.isin(y, list(plus | minus))
    if bad.any() or len(minus) != 1:
        line = int(lines[np.flatnonzero(bad)[0]]) if bad.any() else int(lines[0])
        raise InputError(
            "column y needs two states",
            file=source,
            line=line,
            hint="use + and -, or --positive LABEL with exactly one other label",
        )
    return np.isin(y, list(plus)), plus, minus


def correct_flags(
    correct: NDArray[Any], lines: NDArray[np.int64], source: str
) -> NDArray[np.bool_]:
    bad = ~np.isin(correct, ["0", "1"])
    if bad.any():
        raise InputError(
            "column correct must be 0 or 1", file=source, line=int(lines[np.flatnonzero(bad)[0]])
        )
    return correct == "1"


@dataclass(frozen=True)
class GenerationRow:
    environment: str
    ranker: str | None  # None: both rankers pooled
    rows: int
    invalid: int
    disagree: int

    def to_json(self) -> dict[str, Any]:
        return {
            "environment": self.environment,
            "ranker": self.ranker,
            "rows": self.rows,
            "invalid": self.invalid,
            "disagree": self.disagree,
            "invalidity": self.invalid / self.rows,
            "disagreement": self.disagree / self.rows,
        }


@dataclass(frozen=True)
class GenerationDiagnostics:
    rows: list[GenerationRow]

    def to_json(self) -> dict[str, Any]:
        pooled = [r for r in self.rows if r.ranker is None]
        inv = [r.invalid / r.rows for r in pooled]
        dis = [r.disagree / r.rows for r in pooled]
        return {
            "by_environment": [r.to_json() for r in pooled],
            "by_ranker": [r.to_json() for r in self.rows if r.ranker is not None],
            "invalidity_range": [min(inv), max(inv)],
            "disagreement_range": [min(dis), max(dis)],
        }


def generation_diagnostics(
    columns: Mapping[str, NDArray[Any]],
    lines: NDArray[np.int64],
    source: str,
    *,
    positive: str | None = None,
    rankers: tuple[str, ...] | None = None,
) -> GenerationDiagnostics | None:
    """None when the table has no ``generated`` column; rows of other rankers are left out."""
    if GENERATED not in columns:
        return None
    keep = np.ones(len(lines), dtype=bool)
    if rankers is not None:
        keep = np.isin(columns["ranker"], list(rankers))
    col = {k: v[keep] for k, v in columns.items()}
    ln = lines[keep]
    pos, plus, minus = states(col["y"], ln, source, positive)
    right = correct_flags(col["correct"], ln, source)
    decided_plus = pos == right  # forced choice: y when correct, the other state when not
    gen = col[GENERATED]
    valid = np.isin(gen, list(plus | minus))
    gen_plus = np.isin(gen, list(plus))
    disagree = ~valid | (gen_plus != decided_plus)
    env = np.array([f"{d}:{r}" for d, r in zip(col["dataset"], col["reader"], strict=True)])
    out: list[GenerationRow] = []
    for name in sorted(set(env.tolist())):
        in_env = env == name
        for ranker in [None, *sorted(set(col["ranker"][in_env].tolist()))]:
            m = in_env if ranker is None else in_env & (col["ranker"] == ranker)
            out.append(
                GenerationRow(
                    name, ranker, int(m.sum()), int((~valid & m).sum()), int((disagree & m).sum())
                )
            )
    return GenerationDiagnostics(out)
