"""Stratified sampling and the challenge contrast: exact counts, reproducibility, pytrec_eval."""

from __future__ import annotations

import random

import pytest
import pytrec_eval

from packet_builder.challenge import contrast, gold_sets, ndcg_gold, promotions, split_targets
from packet_builder.sampling import Candidate, proportional, salt_for, sample, summary_table
from vocabulary.errors import InputError

STRATA = ("release", "source", "label")


def candidates() -> list[Candidate]:
    out = []
    for i in range(60):
        n = 2 + i % 2
        grade = n if i % 3 == 0 else 1
        out.append(Candidate(f"q{i // 2:02d}", f"d{i:03d}", grade, n, f"R{i % 2}", f"S{i % 3}"))
    return out


def test_per_stratum_exact_counts_and_reproducible() -> None:
    s = sample(candidates(), salt_for(1), STRATA, per_stratum=2)
    groups: dict[tuple[str, ...], int] = {}
    for c in s.selected:
        groups[c.stratum(STRATA)] = groups.get(c.stratum(STRATA), 0) + 1
    strata = {c.stratum(STRATA) for c in candidates()}
    assert groups == dict.fromkeys(strata, 2)
    assert [a["selected"] for a in s.allocation] == [2] * len(strata)
    again = sample(candidates(), salt_for(1), STRATA, per_stratum=2)
    assert again.selected == s.selected and again.selection_sha256 == s.selection_sha256
    other = sample(candidates(), salt_for(2), STRATA, per_stratum=2)
    assert other.selected != s.selected
    # item order is the salted-hash order, never query order
    assert [s.hashes[c.pair_id] for c in s.selected] == sorted(
        s.hashes[c.pair_id] for c in s.selected
    )


def test_proportional_allocation_largest_remainder() -> None:
    assert proportional({("a",): 50, ("b",): 30, ("c",): 20}, 7) == {
        ("a",): 4,
        ("b",): 2,
        ("c",): 1,
    }
    # quotas 3.33, 3.33, 3.33 -> remainders tie -> larger stratum, then key order
    assert proportional({("a",): 10, ("b",): 10, ("c",): 10}, 10) == {
        ("a",): 4,
        ("b",): 3,
        ("c",): 3,
    }
    s = sample(candidates(), salt_for(1), ("release",), total=9)
    assert [a["selected"] for a in s.allocation] == [5, 4]  # 30/30 split, remainder to R0


def test_one_per_query_and_too_few() -> None:
    s = sample(candidates(), salt_for(4), ("release",), per_stratum=10, one_per_query=True)
    assert len({c.query_id for c in s.selected}) == len(s.selected) == 20
    with pytest.raises(InputError, match="has only 30 eligible pairs, 31 wanted"):
        sample(candidates(), salt_for(4), ("release",), per_stratum=31)
    with pytest.raises(InputError, match="unknown or repeated stratum"):
        sample(candidates(), salt_for(4), ("colour",), per_stratum=1)
    with pytest.raises(InputError, match="exceeds"):
        sample(candidates(), salt_for(4), ("release",), total=61)


def test_summary_table_like_seed() -> None:
    rows = summary_table(sample(candidates(), salt_for(1), STRATA, per_stratum=1).selected)
    assert sum(r["pairs"] for r in rows) == len({c.stratum(STRATA) for c in candidates()})  # type: ignore[misc]
    assert all(r["pairs"] == r["gold"] + r["subset"] for r in rows)  # type: ignore[operator]


def _random_case(seed: int) -> tuple[dict, dict, dict, dict]:
    rng = random.Random(seed)
    grades, n, base, variant = {}, {}, {}, {}
    for q in range(12):
        qid = f"q{q}"
        n[qid] = rng.choice([2, 3])
        docs = [f"d{q}_{i}" for i in range(15)]
        for d in rng.sample(docs, 8):
            grades[(qid, d)] = rng.randint(1, n[qid])
        base[qid] = rng.sample(docs, 12)
        variant[qid] = rng.sample(docs, 12)
    return grades, n, base, variant


def test_ndcg_gold_equals_pytrec_eval() -> None:
    grades, n, base, _ = _random_case(5)
    gold = gold_sets(grades, n)
    qrel = {q: {d: 1 for d in g} for q, g in gold.items()}
    run = {q: {d: float(100 - i) for i, d in enumerate(base[q])} for q in gold}
    ref = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut_10"}).evaluate(run)
    for q in gold:
        assert ndcg_gold(base[q], gold[q], 10) == pytest.approx(ref[q]["ndcg_cut_10"], abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_promotion_deltas_equal_brute_force_recomputation(seed: int) -> None:
    grades, n, base, variant = _random_case(seed)
    promos = promotions(grades, n, base, variant, 10)
    before = contrast(gold_sets(grades, n), base, variant, 10)
    assert promos
    for p in promos:
        changed = dict(grades)
        changed[(p.query_id, p.doc_id)] = n[p.query_id]
        assert p.before == pytest.approx(before, abs=1e-12)
        assert p.after == pytest.approx(
            contrast(gold_sets(changed, n), base, variant, 10), abs=1e-12
        )
    targets, neutral = split_targets(promos)
    assert targets and all(p.grade < n[p.query_id] and p.after < p.before for p in targets)
    assert all(abs(p.delta) <= 1e-12 for p in neutral)
