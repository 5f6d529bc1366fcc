"""Run fusion (RRF, CombSUM, CombMNZ) against ranx's `fuse` and a plain-Python reference."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scorers.fusion import RunInput, fuse

ranx = pytest.importorskip("ranx")


def _random_runs(
    seed: int, nruns: int, nq: int, per_q: int, pool: int, ties: bool = False
) -> list[RunInput]:
    rng = random.Random(seed)
    runs = []
    for r in range(nruns):
        q, d, s = [], [], []
        for qi in range(nq):
            docs = rng.sample(range(pool), per_q)
            for doc in docs:
                q.append(f"q{qi}")
                d.append(f"d{doc}")
                s.append(float(rng.randint(0, 5)) if ties else rng.random() * 10 - 3)
        # Shuffle rows so file order is not rank order (the rank column is never used).
        rows = list(zip(q, d, s, strict=True))
        rng.shuffle(rows)
        runs.append(RunInput(f"r{r}", *map(list, zip(*rows, strict=True))))
    return runs


def _reference(runs: list[RunInput], method: str, k: int, depth: int) -> dict[str, list]:
    """The stated rules as a per-query Python loop (ties: first appearance, runs in order)."""
    first_seen: dict[tuple[str, str], int] = {}
    contrib: dict[tuple[str, str], list[float]] = {}
    queries: list[str] = []
    for run in runs:
        per_q: dict[str, list[tuple[int, str, float]]] = {}
        for i, (q, d, s) in enumerate(zip(run.query_id, run.doc_id, run.score, strict=True)):
            per_q.setdefault(q, []).append((i, d, s))
            if q not in queries:
                queries.append(q)
        for q, rows in per_q.items():
            top = sorted(rows, key=lambda t: (-t[2], t[0]))[:depth]
            lo, hi = min(t[2] for t in top), max(t[2] for t in top)
            for rank, (_, d, s) in enumerate(top, start=1):
                first_seen.setdefault((q, d), len(first_seen))
                value = 1 / (k + rank) if method == "rrf" else (s - lo) / max(hi - lo, 1e-09)
                contrib.setdefault((q, d), []).append(value)
    out: dict[str, list] = {}
    for q in queries:
        docs = []
        for (qq, d), vals in contrib.items():
            if qq != q:
                continue
            total = sum(sorted(vals, reverse=True))
            if method == "combmnz":
                total *= len(vals)
            docs.append((-total, first_seen[(q, d)], d, total))
        out[q] = [(d, t) for _, _, d, t in sorted(docs)[:depth]]
    return out


def _ranx_fuse(runs: list[RunInput], method: str, k: int, depth: int) -> dict[str, dict]:
    ranx_runs = []
    for run in runs:
        per_q: dict[str, list[tuple[int, str, float]]] = {}
        for i, (q, d, s) in enumerate(zip(run.query_id, run.doc_id, run.score, strict=True)):
            per_q.setdefault(q, []).append((i, d, s))
        top = {
            q: {d: s for _, d, s in sorted(rows, key=lambda t: (-t[2], t[0]))[:depth]}
            for q, rows in per_q.items()
        }
        ranx_runs.append(ranx.Run.from_dict(top, name=run.name))
    name = {"rrf": "rrf", "combsum": "sum", "combmnz": "mnz"}[method]
    params = {"k": k} if method == "rrf" else {}
    norm = None if method == "rrf" else "min-max"
    return ranx.fuse(ranx_runs, norm=norm, method=name, params=params).to_dict()


@pytest.mark.parametrize("method", ["rrf", "combsum", "combmnz"])
@pytest.mark.parametrize("seed", [1, 2])
def test_fuse_matches_ranx(method: str, seed: int) -> None:
    depth = 100
    runs = _random_runs(seed, nruns=4, nq=25, per_q=120, pool=260)
    ranked, report = fuse(runs, method=method, k=60, depth=depth)
    ours = ranked.per_query()
    theirs = _ranx_fuse(runs, method, 60, depth)
    assert set(ours) == set(theirs)
    assert report.queries == 25 and report.rows == 25 * depth
    for q, docs in ours.items():
        ref = sorted(theirs[q].items(), key=lambda t: -t[1])
        assert len(docs) == depth
        for d, s in docs:
            assert abs(theirs[q][d] - s) <= 1e-12
        # Exact order wherever ranx's fused scores are strictly ordered; inside a tie
        # block the same documents (ranx's sort is not stable, ours is stated).
        ref_scores = np.array([s for _, s in ref])
        for i, (d, s) in enumerate(docs):
            tied = np.flatnonzero(np.abs(ref_scores - s) <= 1e-12)
            if len(tied) == 1:
                assert ref[i][0] == d, (q, i)
            else:
                assert i in tied and d in {ref[j][0] for j in tied}


@pytest.mark.parametrize("method", ["rrf", "combsum", "combmnz"])
@pytest.mark.parametrize("ties", [False, True])
def test_fuse_matches_reference_loop_with_ties(method: str, ties: bool) -> None:
    runs = _random_runs(7, nruns=3, nq=15, per_q=40, pool=70, ties=ties)
    for depth in (1, 10, 30):
        ranked, _ = fuse(runs, method=method, k=60, depth=depth)
        ours = ranked.per_query()
        ref = _reference(runs, method, 60, depth)
        assert list(ours) == list(ref)
        for q in ref:
            assert [d for d, _ in ours[q]] == [d for d, _ in ref[q]], (q, depth)
            assert np.allclose([s for _, s in ours[q]], [s for _, s in ref[q]], atol=1e-12)


def test_rrf_ties_follow_first_appearance() -> None:
    # d1 is rank 1 in A and rank 2 in B; d2 the reverse: equal RRF scores, d1 seen first.
    a = RunInput("A", ["q", "q"], ["d1", "d2"], [2.0, 1.0])
    b = RunInput("B", ["q", "q"], ["d1", "d2"], [1.0, 2.0])
    ranked, _ = fuse([a, b], method="rrf", k=60, depth=10)
    assert [d for d, _ in ranked.per_query()["q"]] == ["d1", "d2"]
    ranked, _ = fuse([b, a], method="rrf", k=60, depth=10)
    assert [d for d, _ in ranked.per_query()["q"]] == ["d2", "d1"]
    assert ranked.score[0] == ranked.score[1]


def test_depth_cuts_each_input_and_the_output() -> None:
    a = RunInput("A", ["q"] * 3, ["x", "y", "z"], [3.0, 2.0, 1.0])
    b = RunInput("B", ["q"] * 3, ["z", "y", "x"], [3.0, 2.0, 1.0])
    ranked, report = fuse([a, b], method="rrf", k=0, depth=1)
    # Only x (A's top) and z (B's top) take part; each scores 1/1; x seen first.
    assert ranked.per_query() == {"q": [("x", 1.0)]}
    assert [r.rows_used for r in report.runs] == [1, 1]


def _canonical_rrf(runs: list[RunInput], k: int, depth: int) -> dict[str, list]:
    """RRF as a plain loop with the stated canonical sum: for each pair, its ranks in
    ascending order, each adding (runs at that rank) x 1 / (k + rank) to 0.0; ties by
    first appearance over the runs in order, each top to bottom."""
    ranks: dict[tuple[str, str], list[int]] = {}
    queries: list[str] = []
    for run in runs:
        per_q: dict[str, list[tuple[int, str, float]]] = {}
        for i, (q, d, s) in enumerate(zip(run.query_id, run.doc_id, run.score, strict=True)):
            per_q.setdefault(q, []).append((i, d, s))
            if q not in queries:
                queries.append(q)
        for q in sorted(per_q, key=queries.index):
            top = sorted(per_q[q], key=lambda t: (-t[2], t[0]))[:depth]
            for rank, (_, d, _) in enumerate(top):
                ranks.setdefault((q, d), []).append(rank)
    out: dict[str, list] = {}
    order = {key: n for n, key in enumerate(ranks)}
    for q in queries:
        docs = []
        for (qq, d), rs in ranks.items():
            if qq == q:
                total = 0.0
                for r in sorted(set(rs)):
                    total += float(rs.count(r)) * (1.0 / (k + float(r) + 1.0))
                docs.append((-total, order[(q, d)], d, total))
        out[q] = [(d, t) for _, _, d, t in sorted(docs)[:depth]]
    return out


@pytest.mark.parametrize(("nruns", "per_q", "pool"), [(2, 30, 35), (5, 40, 60), (70, 12, 20)])
def test_rrf_is_bit_identical_to_the_canonical_loop_on_ties(
    nruns: int, per_q: int, pool: int
) -> None:
    # Scores 0..2: long tie blocks within each run; few documents: many equal rank sets.
    runs = _random_runs(13, nruns=nruns, nq=6, per_q=per_q, pool=pool, ties=True)
    runs = [RunInput(r.name, r.query_id, r.doc_id, [s % 3 for s in r.score]) for r in runs]
    for depth in (1, 7, per_q):
        for k in (0, 60):
            ranked, _ = fuse(runs, method="rrf", k=k, depth=depth)
            ours = ranked.per_query()
            ref = _canonical_rrf(runs, k, depth)
            assert list(ours) == list(ref)
            for q in ref:
                assert ours[q] == ref[q], (q, depth, k)  # order and every bit of the score


def test_a_run_listing_a_pair_twice_is_refused() -> None:
    from scorers.fusion import RepeatedPair

    good = RunInput("A", ["q", "q"], ["x", "y"], [2.0, 1.0])
    twice = RunInput("B", ["q", "q", "q"], ["y", "z", "y"], [3.0, 2.0, 1.0])
    for runs, index in (([good, twice], 1), ([twice, good], 0), ([good] * 63 + [twice], 63)):
        with pytest.raises(RepeatedPair) as exc:
            fuse(runs, method="rrf", k=60, depth=10)
        assert exc.value.run == index and "'B' lists query 'q' and document 'y' twice" in str(
            exc.value.message
        )


def test_rrf_pair_codes_that_would_overflow_are_numbered_first() -> None:
    from scorers.fusion import _rrf_pairs

    big = 1 << 60
    keys = [np.array([big, 5]), np.array([5, big])]
    ranks = [np.array([0, 1]), np.array([0, 1])]
    pkeys, fused, tiebreak, bad = _rrf_pairs(keys, ranks, 60)
    assert bad == -1 and sorted(pkeys.tolist()) == [5, big]
    assert fused.tolist() == [1 / 61 + 1 / 62] * 2
    by_key = dict(zip(pkeys.tolist(), tiebreak.tolist(), strict=True))
    assert by_key[big] < by_key[5]  # big: run 0 rank 0; 5: run 0 rank 1


@pytest.mark.parametrize("method", ["rrf", "combsum"])
def test_cli_names_the_line_of_a_repeated_pair(tmp_path, method: str) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import run_cli

    ok = tmp_path / "ok.trec"
    ok.write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d3 2 2.0 a\n")
    dup = tmp_path / "dup.trec"
    dup.write_text("q1 Q0 d1 1 3.0 b\nq1 Q0 d2 2 2.0 b\nq1 Q0 d1 3 1.0 b\n")
    out = tmp_path / "f.trec"
    err = run_cli("runs", "fuse", "--method", method, "--run", ok, "--run", dup, "--out", out,
                  expect=2).stderr  # fmt: skip
    assert "dup.trec:3:" in err and "'d1' appears twice" in err and not out.exists()


@pytest.mark.parametrize(("batch", "chunk"), [(1, 1), (7, 20), (50, 50)])
def test_rrf_in_small_batches_and_chunks_is_the_same(monkeypatch, batch: int, chunk: int) -> None:  # type: ignore[no-untyped-def]
    # Documents interned per batch of queries and the work done chunk by chunk: tiny
    # batches and chunks (one query each, or cuts inside runs' blocks) change nothing.
    import pyarrow as pa

    from scorers import fusion_rrf

    runs = _random_runs(21, nruns=4, nq=9, per_q=15, pool=25, ties=True)
    ordered = [  # grouped and sorted runs take the slicing path; shuffled ones the sort
        RunInput(r.name, *map(list, zip(*sorted(zip(r.query_id, r.doc_id, r.score, strict=True),
                                                key=lambda t: (t[0], -t[2])), strict=True)))
        for r in runs[:2]
    ] + runs[2:]  # fmt: skip
    monkeypatch.setattr(fusion_rrf, "BATCH_ROWS", batch)
    monkeypatch.setattr(fusion_rrf, "CHUNK_ROWS", chunk)
    for depth in (3, 15):
        ranked, _ = fuse(ordered, method="rrf", k=60, depth=depth)
        assert ranked.per_query() == _canonical_rrf(ordered, 60, depth)
        # Query ids given dictionary-encoded (as the run reader gives them) change nothing.
        coded = [
            RunInput(r.name, pa.array(r.query_id).dictionary_encode(), r.doc_id, r.score)
            for r in ordered
        ]
        again, _ = fuse(coded, method="rrf", k=60, depth=depth)
        assert again.per_query() == ranked.per_query()
