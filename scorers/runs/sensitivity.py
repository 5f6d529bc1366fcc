"""Shared-document sensitivity of a contrast (n-Clue supplement, Tables S1g and S1i).

Queries that share a document are not independent. Given the per-query
difference d_q (variant - base, n-Clue Score by default) and a membership
relation query -> documents (its gold documents, or every judged gold/partial
document with membership "judged"), this module computes the supplement's
stress schemes. None of them is *the* sampling distribution; each exposes how
much the observed gap rests on reused documents.

* document macro: mean over member documents of (mean d_q over the queries
  that have the document as a member);
* crossed query x document bootstrap: each draw gives every query a
  multiplicity w_q and every document a multiplicity u_d (independent
  resamples with replacement: multinomial counts summing to Q and to D); a
  query's weight is w_q * mean of u_d over its member documents (1 for a
  query without members), and the draw's gap is the weighted mean of d_q;
  the 95% percentile interval;
* leave-one-document-out range: min and max of the mean d_q over the queries
  left after removing one document's member queries, over every document;
* one query per document: each draw picks one member query per document
  uniformly at random; the gap is the mean of d over documents; 95% interval;
* components of the bipartite query-document graph (count, and queries in the
  largest; a query without members is its own component);
* the gap after removing the `remove_top` highest-degree documents' queries
  (degree = member queries; ties by document id), and the queries left.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy import sparse
from scipy.sparse import csgraph

from scorers.runs.bind import _SEP, BoundQrels
from scorers.runs.bootstrap import draw_family_counts, percentile_interval
from scorers.runs.text import interval, pts, table

_CHUNK = 1000  # crossed draws per block: bounds memory at _CHUNK x (Q + D) floats


@dataclass(frozen=True)
class Membership:
    """Query-document memberships as a (Q, D) 0/1 sparse matrix and the document ids."""

    matrix: sparse.csr_matrix
    doc_ids: list[str]


def memberships(bound: BoundQrels, which: str = "gold") -> Membership:
    """Gold (grade == n) or every judged (grade > 0) membership of the bound queries."""
    if which not in ("gold", "judged"):
        raise ValueError("membership must be 'gold' or 'judged'")
    parts = pc.split_pattern(bound.pairs, _SEP, max_splits=1)
    qcol = pc.list_element(parts, 0)
    dcol = pc.list_element(parts, 1)
    qidx = np.asarray(pc.index_in(qcol, value_set=bound.query_ids).to_numpy(zero_copy_only=False))
    keep = bound.grades == bound.n[qidx] if which == "gold" else bound.grades > 0
    docs = pc.filter(dcol, pa.array(keep))
    vocab = pc.unique(docs).sort()
    didx = np.asarray(pc.index_in(docs, value_set=vocab).to_numpy(zero_copy_only=False))
    qk = qidx[keep].astype(np.int64)
    mat = sparse.csr_matrix(
        (np.ones(qk.size), (qk, didx.astype(np.int64))), shape=(bound.n_queries, len(vocab))
    )
    return Membership(mat, [str(x) for x in vocab.to_pylist()])


def _crossed_gaps(d: np.ndarray, m: Membership, draws: int, seed: int) -> np.ndarray:
    """Gap of every crossed draw. Each block of draws takes query then document multiplicities
    from one stream seeded [seed, 2], so a test replays them with draw_family_counts."""
    mat = m.matrix
    deg = np.asarray(mat.sum(axis=1)).ravel()
    norm = sparse.diags(np.where(deg > 0, 1.0 / np.maximum(deg, 1), 0.0)) @ mat  # row means
    out = np.empty(draws)
    rng = np.random.default_rng([seed, 2])
    done = 0
    while done < draws:
        b = min(_CHUNK, draws - done)
        w = draw_family_counts(mat.shape[0], b, rng)
        u = draw_family_counts(mat.shape[1], b, rng)
        ubar = np.asarray((norm @ u.T).T)  # (b, Q) mean document multiplicity per query
        ubar[:, deg == 0] = 1.0
        weight = w * ubar
        tot = weight.sum(axis=1)
        out[done : done + b] = np.where(tot > 0, (weight @ d) / np.where(tot > 0, tot, 1), np.nan)
        done += b
    return out


def _one_per_doc(d: np.ndarray, m: Membership, draws: int, seed: int) -> np.ndarray:
    csc = m.matrix.tocsc()
    deg = np.diff(csc.indptr)
    docs = np.flatnonzero(deg > 0)
    if docs.size == 0:
        return np.full(draws, np.nan)
    rng = np.random.default_rng([seed, 3])
    out = np.empty(draws)
    done = 0
    while done < draws:
        b = min(_CHUNK, draws - done)
        pick = np.floor(rng.random((b, docs.size)) * deg[docs]).astype(np.int64)
        rows = csc.indices[csc.indptr[docs][None, :] + pick]
        out[done : done + b] = d[rows].mean(axis=1)
        done += b
    return out


def components(m: Membership) -> tuple[int, int]:
    """(connected components, queries in the largest) of the bipartite query-document graph."""
    nq = m.matrix.shape[0]
    if nq == 0:
        return 0, 0
    adj = sparse.bmat([[None, m.matrix], [m.matrix.T, None]], format="csr")
    _, labels = csgraph.connected_components(adj, directed=False)
    qlab = labels[:nq]
    _, sizes = np.unique(qlab, return_counts=True)
    return int(sizes.size), int(sizes.max())


def leave_one_document_out(d: np.ndarray, m: Membership) -> np.ndarray:
    """Mean d over the queries left after removing each document's queries (NaN if none left)."""
    csc = m.matrix.tocsc()
    removed_sum = csc.T @ d
    removed_n = np.diff(csc.indptr)
    left = d.size - removed_n
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(left > 0, (d.sum() - removed_sum) / np.maximum(left, 1), np.nan)


def remove_top_documents(d: np.ndarray, m: Membership, top: int) -> tuple[float | None, int]:
    """(mean d, queries left) after removing the `top` highest-degree documents' queries."""
    deg = np.diff(m.matrix.tocsc().indptr)
    order = np.lexsort((np.arange(deg.size), -deg))[:top]  # doc ids are sorted: index = id order
    hit = np.asarray(m.matrix[:, order].sum(axis=1)).ravel() > 0
    left = int((~hit).sum())
    return (float(d[~hit].mean()) if left else None), left


def document_macro(d: np.ndarray, m: Membership) -> float | None:
    csc = m.matrix.tocsc()
    deg = np.diff(csc.indptr)
    if not (deg > 0).any():
        return None
    per_doc = (csc.T @ d)[deg > 0] / deg[deg > 0]
    return float(per_doc.mean())


def _ci(x: np.ndarray) -> list[float] | None:
    x = x[~np.isnan(x)]
    if x.size == 0:
        return None
    lo, hi = percentile_interval(x)
    return [float(lo), float(hi)]


@dataclass(frozen=True)
class SensitivityReport:
    base: str
    variant: str
    metric: str
    membership: str
    queries: int
    documents: int  # distinct member documents
    draws: int
    seed: int
    observed: float
    document_macro: float | None
    crossed_ci95: list[float] | None
    leave_one_doc_range: list[float] | None
    one_query_per_doc_ci95: list[float] | None
    components: int
    largest_component: int
    remove_top: int
    gap_after_removal: float | None
    queries_after_removal: int

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def to_text(self) -> str:
        rng = self.leave_one_doc_range
        rows = [
            ["Queries / distinct member docs", f"{self.queries} / {self.documents}"],
            ["Connected components (largest)", f"{self.components} ({self.largest_component})"],
            [f"Observed {self.variant} - {self.base} gap", pts(self.observed, True)],
            ["Document macro", pts(self.document_macro, True)],
            ["Crossed query/doc 95% interval", interval(self.crossed_ci95)],
            ["Leave-one-doc gap range", interval(rng)],
            ["One-query/doc 95% interval", interval(self.one_query_per_doc_ci95)],
            [
                f"Remove {self.remove_top} highest-degree docs",
                f"{pts(self.gap_after_removal, True)} ({self.queries_after_removal} q.)",
            ],
        ]
        return "\n".join(
            [
                f"Shared-document sensitivity (n-Clue supplement Tables S1g, S1i) of {self.metric} "
                f"in points, {self.membership} memberships, {self.draws} draws (seed {self.seed}). "
                "Stress models, not sampling distributions.",
                table(rows, ["scheme", "value"]),
            ]
        )


def sensitivity_report(
    bound: BoundQrels,
    d: np.ndarray,
    *,
    base: str,
    variant: str,
    metric: str = "nclue",
    membership: str = "gold",
    draws: int = 1000,
    seed: int = 11,
    remove_top: int = 20,
) -> SensitivityReport:
    """All schemes for the per-query differences d (Q,) of one contrast."""
    d = np.asarray(d, dtype=np.float64)
    m = memberships(bound, membership)
    loo = leave_one_document_out(d, m)
    loo = loo[~np.isnan(loo)]
    comp, largest = components(m)
    gap_rm, left = remove_top_documents(d, m, remove_top)
    return SensitivityReport(
        base=base,
        variant=variant,
        metric=metric,
        membership=membership,
        queries=bound.n_queries,
        documents=int((np.diff(m.matrix.tocsc().indptr) > 0).sum()),
        draws=draws,
        seed=seed,
        observed=float(d.mean()) if d.size else 0.0,
        document_macro=document_macro(d, m),
        crossed_ci95=_ci(_crossed_gaps(d, m, draws, seed)) if draws else None,
        leave_one_doc_range=[float(loo.min()), float(loo.max())] if loo.size else None,
        one_query_per_doc_ci95=_ci(_one_per_doc(d, m, draws, seed)) if draws else None,
        components=comp,
        largest_component=largest,
        remove_top=remove_top,
        gap_after_removal=gap_rm,
        queries_after_removal=left,
    )
