"""Task-factor and source slices (n-Clue supplement, Table S1j and the per-source contrasts).

A slice spec names a per-query factor and, for numeric factors, cut points:
`n` (conditions), `release`, `source`, `lmin:30,100` (L_min = the smallest
page count among the query's gold documents, because the scored event can
succeed with any gold) and `dplus:25,50` (|D+| = the query's nonzero qrels).
Cut points c1 < c2 < ... give the bins `<=c1`, `(c1,c2]`, ..., `>cm`; a query
whose factor is undefined (L_min of a query without gold, an empty source)
falls in the cell `none`. Every cell reports each run's n-Clue Score and Gold
Hit over the cell's queries with the count, and each contrast's paired effect
with an exact-family bootstrap interval restricted to the cell (compare's
draws: a family contributes its queries inside the cell). Slices overlap and
are descriptive, not causal contrasts.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from scorers.runs.bind import BoundQrels
from scorers.runs.bootstrap import draw_family_counts, family_sums, percentile_interval
from scorers.runs.measures import PerQuery
from scorers.runs.sensitivity import memberships
from scorers.runs.text import interval, pts, table

FACTORS = ("n", "release", "source", "lmin", "dplus")
NUMERIC = ("lmin", "dplus")
NONE = "none"


@dataclass(frozen=True)
class SliceSpec:
    factor: str
    cuts: tuple[float, ...] = ()

    @property
    def label(self) -> str:
        return self.factor + (":" + ",".join(f"{c:g}" for c in self.cuts) if self.cuts else "")


def parse_slice(text: str) -> SliceSpec:
    """`n`, `release`, `source`, `lmin:30,100`, `dplus:25,50`; ValueError says what is wrong."""
    factor, _, rest = text.partition(":")
    if factor not in FACTORS:
        raise ValueError(f"unknown slice factor {factor!r} (use {', '.join(FACTORS)})")
    if factor not in NUMERIC:
        if rest:
            raise ValueError(f"slice factor {factor!r} takes no cut points")
        return SliceSpec(factor)
    try:
        cuts = tuple(float(x) for x in rest.split(",") if x.strip())
    except ValueError as exc:
        raise ValueError(f"cut points of {text!r} must be numbers, e.g. {factor}:25,50") from exc
    if not cuts or any(b <= a for a, b in itertools.pairwise(cuts)):
        raise ValueError(f"{factor} needs increasing cut points, e.g. {factor}:25,50")
    return SliceSpec(factor, cuts)


def bin_labels(cuts: Sequence[float]) -> list[str]:
    c = [f"{x:g}" for x in cuts]
    return [f"<={c[0]}"] + [f"({a},{b}]" for a, b in itertools.pairwise(c)] + [f">{c[-1]}"]


def query_factors(
    bound: BoundQrels,
    release: Sequence[str] | None = None,
    source: Sequence[str] | None = None,
    page_counts: Mapping[str, int] | None = None,
) -> dict[str, np.ndarray]:
    """Per-query factor values (object arrays of str, float arrays with NaN = undefined)."""
    nq = bound.n_queries
    judged = memberships(bound, "judged").matrix
    out: dict[str, np.ndarray] = {
        "n": bound.n.astype(np.float64),
        "dplus": np.asarray(judged.sum(axis=1), dtype=np.float64).ravel(),
        "release": np.array(list(release) if release is not None else [""] * nq, dtype=object),
        "source": np.array(list(source) if source is not None else [""] * nq, dtype=object),
    }
    lmin = np.full(nq, np.nan)
    if page_counts is not None:
        gold = memberships(bound, "gold")
        pages = np.array([page_counts.get(d, np.nan) for d in gold.doc_ids], dtype=np.float64)
        coo = gold.matrix.tocoo()
        np.fmin.at(lmin, coo.row, pages[coo.col])
    out["lmin"] = lmin
    return out


def cell_labels(spec: SliceSpec, values: np.ndarray) -> np.ndarray:
    """The cell of every query under spec."""
    if spec.factor == "n":
        return np.array([f"n={int(v)}" for v in values], dtype=object)
    if spec.factor in NUMERIC:
        names = np.array(bin_labels(spec.cuts), dtype=object)
        idx = np.searchsorted(np.asarray(spec.cuts), values, side="left")  # v <= c1 -> bin 0
        return np.where(np.isnan(values), NONE, names[np.minimum(idx, len(names) - 1)])
    return np.array([str(v) if v else NONE for v in values], dtype=object)


def _cell_order(spec: SliceSpec, labels: np.ndarray) -> list[str]:
    present = set(labels.tolist())
    if spec.factor in NUMERIC:
        order = [x for x in bin_labels(spec.cuts) if x in present]
    elif spec.factor == "n":
        order = sorted(present - {NONE}, key=lambda s: int(s[2:]))
    else:
        order = sorted(present - {NONE})
    return order + ([NONE] if NONE in present else [])


@dataclass(frozen=True)
class Cell:
    label: str
    queries: int
    runs: dict[str, dict[str, float]]  # run -> {"nclue", "gold_hit"}
    contrasts: list[dict[str, object]] = field(default_factory=list)


@dataclass(frozen=True)
class Slice:
    spec: str
    cells: list[Cell]


@dataclass(frozen=True)
class SliceReport:
    k: int
    queries: int
    bootstrap: int
    seed: int
    all_queries: Cell
    slices: list[Slice]

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def to_text(self) -> str:
        out = [
            f"Task-factor slices (n-Clue supplement Table S1j): every cell is n-Clue Score@{self.k}"
            " / Gold Hit in points with its query count; slices overlap and are descriptive."
        ]
        for sl in self.slices:
            cells = [self.all_queries, *sl.cells]
            head = ["run"] + [f"{c.label} ({c.queries})" for c in cells]
            rows = [
                [run] + [f"{pts(c.runs[run]['nclue'])}/{pts(c.runs[run]['gold_hit'])}"
                         for c in cells]
                for run in self.all_queries.runs
            ]  # fmt: skip
            out += [f"\nby {sl.spec}:", table(rows, ["run", *head[1:]])]
            if self.all_queries.contrasts:
                prow = []
                for i, con in enumerate(self.all_queries.contrasts):
                    row = [f"{con['base']} -> {con['variant']}"]
                    for c in cells:
                        x = c.contrasts[i]
                        row.append(f"{pts(x['diff_nclue'], True)} {interval(x['ci95'])}")  # type: ignore[arg-type]
                    prow.append(row)
                out += [
                    f"paired n-Clue effect by {sl.spec} (points, exact-family 95% CI):",
                    table(prow, ["contrast", *head[1:]]),
                ]
        return "\n".join(out)


def _cell(
    label: str,
    mask: np.ndarray,
    bound: BoundQrels,
    scored: Mapping[str, PerQuery],
    pairs: Sequence[tuple[str, str]],
    counts: np.ndarray | None,
) -> Cell:
    nq = int(mask.sum())
    runs = {}
    for tag, pq in scored.items():
        vals = pq.values()[:2, mask]
        runs[tag] = {
            "nclue": float(vals[0].mean()) if nq else 0.0,
            "gold_hit": float(vals[1].mean()) if nq else 0.0,
        }
    contrasts: list[dict[str, object]] = []
    if pairs:
        d = np.stack([scored[v].values()[:2] - scored[b].values()[:2] for b, v in pairs])
        dm = d * mask
        ci: list[list[float] | None] = [None] * len(pairs)
        if counts is not None and nq:
            num = family_sums(dm[:, 0, :], bound.family, bound.n_families) @ counts.T
            size = family_sums(mask.astype(np.float64), bound.family, bound.n_families)
            den = size @ counts.T
            reps = num / np.where(den > 0, den, np.nan)
            ci = []
            for row in reps:
                ok = row[~np.isnan(row)]
                ci.append(None if ok.size == 0 else [float(x) for x in percentile_interval(ok)])
        for i, (b, v) in enumerate(pairs):
            contrasts.append(
                {
                    "base": b,
                    "variant": v,
                    "diff_nclue": float(dm[i, 0].sum() / nq) if nq else 0.0,
                    "diff_gold_hit": float(dm[i, 1].sum() / nq) if nq else 0.0,
                    "ci95": ci[i],
                }
            )
    return Cell(label, nq, runs, contrasts)


def slice_report(
    bound: BoundQrels,
    scored: Mapping[str, PerQuery],
    specs: Sequence[SliceSpec],
    factors: Mapping[str, np.ndarray],
    pairs: Sequence[tuple[str, str]] = (),
    *,
    bootstrap: int = 1000,
    seed: int = 11,
) -> SliceReport:
    """Cells of every spec; contrasts (with intervals) only when pairs are given."""
    counts = None
    if pairs and bootstrap > 0:
        counts = draw_family_counts(bound.n_families, bootstrap, np.random.default_rng(seed))
    everything = np.ones(bound.n_queries, dtype=bool)
    all_cell = _cell("All", everything, bound, scored, pairs, counts)
    out = []
    for spec in specs:
        labels = cell_labels(spec, factors[spec.factor])
        cells = [
            _cell(lab, labels == lab, bound, scored, pairs, counts)
            for lab in _cell_order(spec, labels)
        ]
        out.append(Slice(spec.label, cells))
    return SliceReport(bound.k, bound.n_queries, bootstrap, seed, all_cell, out)
