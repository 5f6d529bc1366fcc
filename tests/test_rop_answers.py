"""ROP study answer scoring ("Does the Selected Object Reach the Reader?", Sec. 4): exact
match and answer-token F1 from raw answers, equal to the official SQuAD v1.1 evaluation
functions (HybridQA's normalization), on awkward answers and generated ones; the F1
columns, complete-case and valid-repeat summaries of `rop deletion`; replay-check's
bound fields; `rop evaluate` saying when the envelope checks did not apply.
"""

from __future__ import annotations

import json
import random
import re
import string
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from scorers.rop.answers import normalize_answer, score_answer
from tests.conftest import REPO, cli_json, run_cli

# --- The published SQuAD v1.1 evaluation functions (evaluate-v1.1.py), as the reference. ---


def ref_normalize_answer(s: str) -> str:
    """Lower text and remove punctuation, articles and extra whitespace."""

    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text: str) -> str:
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def ref_f1_score(prediction: str, ground_truth: str) -> float:
    prediction_tokens = ref_normalize_answer(prediction).split()
    ground_truth_tokens = ref_normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def ref_exact_match_score(prediction: str, ground_truth: str) -> bool:
    return ref_normalize_answer(prediction) == ref_normalize_answer(ground_truth)


def ref_metric_max_over_ground_truths(
    metric_fn: Any, prediction: str, ground_truths: list[str]
) -> Any:
    scores_for_ground_truths = []
    for ground_truth in ground_truths:
        score = metric_fn(prediction, ground_truth)
        scores_for_ground_truths.append(score)
    return max(scores_for_ground_truths)


# --------------------------------------------------------------------------------------------

AWKWARD: list[tuple[str, list[str]]] = [
    ("The Beatles", ["Beatles"]),
    ("an apple a day", ["apple day"]),
    ("a", ["the"]),  # both normalize to nothing: EM 1, F1 0 (SQuAD v1.1)
    ("", [""]),
    ("", ["Paris"]),
    ("Paris", [""]),
    ("   \t\n ", ["  "]),
    ("U.S.A.", ["USA"]),
    ("3,000", ["3000"]),
    ("Theatre of the Absurd", ["theatre absurd"]),  # 'the' inside a word stays
    ("Café", ["cafe"]),  # diacritics are not folded
    ("naïve ÉCOLE", ["Naïve école"]),
    ("“quoted” — dash", ['"quoted" - dash']),  # Unicode punctuation is not removed
    ("İstanbul", ["i̇stanbul"]),
    ("Straße", ["strasse"]),
    ("ａｎ apple", ["apple"]),  # a full-width article is not an article
    ("the the the", ["the"]),
    ("a a b b", ["a b b b"]),
    ("New York City", ["new york", "York City!", "NYC"]),
    ("red, green, and blue", ["red green blue", "blue"]),
    ("don't stop", ["dont stop"]),
    ("1/2 cup", ["12 cup"]),
    ("A-ha", ["aha", "a ha"]),
    ("北京 大学", ["北京大学", "北京 大学"]),
    ("ANSWER\u00a0WITH NBSP", ["answer with nbsp"]),
]


@pytest.mark.parametrize(("prediction", "golds"), AWKWARD)
def test_awkward_answers_equal_squad_v11(prediction: str, golds: list[str]) -> None:
    got = score_answer(prediction, golds)
    assert normalize_answer(prediction) == ref_normalize_answer(prediction)
    em = ref_metric_max_over_ground_truths(ref_exact_match_score, prediction, golds)
    f1 = ref_metric_max_over_ground_truths(ref_f1_score, prediction, golds)
    assert got.em == float(em) and got.f1 == f1


def test_generated_answers_equal_squad_v11() -> None:
    rng = random.Random(11)
    pool = ["the", "a", "an", "The", "A.", "Paris", "paris,", "x", "X!", "—", "é", "2", "2.0",
            "an-", "of", "ok", "  ", "\t", "'s", "Ça"]  # fmt: skip
    for _ in range(3000):
        pred = " ".join(rng.choice(pool) for _ in range(rng.randint(0, 6)))
        golds = [
            "".join(rng.choice([" ", ""]) + rng.choice(pool) for _ in range(rng.randint(0, 5)))
            for _ in range(rng.randint(1, 3))
        ]
        got = score_answer(pred, golds)
        assert got.em == float(
            ref_metric_max_over_ground_truths(ref_exact_match_score, pred, golds)
        )
        assert got.f1 == ref_metric_max_over_ground_truths(ref_f1_score, pred, golds)


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _scores(pred: str, gold: str | list[str]) -> tuple[float, float]:
    golds = [gold] if isinstance(gold, str) else gold
    return (
        float(ref_metric_max_over_ground_truths(ref_exact_match_score, pred, golds)),
        float(ref_metric_max_over_ground_truths(ref_f1_score, pred, golds)),
    )


def test_association_scores_raw_answers(tmp_path: Path) -> None:
    # q1..q4, one model: the id arm holds the object, the question arm does not.
    answers = [
        ("The Eiffel Tower", "Eiffel Tower.", "tower"),
        ("1889", ["1889", "in 1889"], "1890"),
        ("Gustave Eiffel", "gustave eiffel", "Eiffel"),
        ("an iron lattice", ["iron lattice tower"], "steel"),
    ]
    rows: list[dict[str, Any]] = []
    for n, (pred_id, gold, pred_q) in enumerate(answers):
        for arm, pred, holds in (("id", pred_id, True), ("question", pred_q, False)):
            rows.append({"question_id": f"q{n}", "model": "m", "arm": arm, "answer": pred,
                         "gold": gold, "contains_selected": holds, "passages": 5})  # fmt: skip
    out = cli_json(
        "rop", "association", _jsonl(tmp_path / "r.jsonl", rows), "--pair", "id:question"
    )
    pair = out["pairs"][0]
    ret = [_scores(p, g) for p, g, _q in answers]
    omit = [_scores(q, g) for _p, g, q in answers]
    assert pair["n"] == 4
    assert pair["return_em"] == sum(e for e, _ in ret) / 4
    assert pair["omit_em"] == sum(e for e, _ in omit) / 4
    assert pair["return_f1"] == pytest.approx(sum(f for _, f in ret) / 4, abs=1e-15)
    assert pair["omit_f1"] == pytest.approx(sum(f for _, f in omit) / 4, abs=1e-15)
    assert pair["delta_f1"] == pytest.approx(pair["return_f1"] - pair["omit_f1"], abs=1e-15)
    text = run_cli("rop", "association", tmp_path / "r.jsonl", "--pair", "id:question").stdout
    assert "Return F1" in text and "Delta F1" in text
    # A recorded em that contradicts the answers is refused on its line.
    rows[2]["em"] = 0
    err = run_cli("rop", "association", _jsonl(tmp_path / "bad.jsonl", rows), "--pair",
                  "id:question", expect=2).stderr  # fmt: skip
    assert "bad.jsonl:3:" in err and "'em' 0 differs" in err
    del rows[2]["em"]
    rows[3]["gold"] = []
    err = run_cli("rop", "association", _jsonl(tmp_path / "bad.jsonl", rows), "--pair",
                  "id:question", expect=2).stderr  # fmt: skip
    assert "bad.jsonl:4:" in err and "'gold' must be" in err


def _call(
    item: str, arm: str, rep: int, answer: str | None, gold: str = "Blue Whale"
) -> dict[str, Any]:
    row: dict[str, Any] = {"item_id": item, "arm": arm, "repeat": rep, "gold": gold}
    if answer is None:
        row["status"] = "failed"
    else:
        row |= {"status": "valid", "answer": answer}
    return row


def test_deletion_f1_and_failure_free_summaries(tmp_path: Path) -> None:
    # Two arms, three items, two repeats; failures at i1/intact#2 and i2/drop#1.
    plan = {
        ("i0", "intact"): ["the blue whale", "Blue whale!"],
        ("i0", "drop"): ["whale", "a shark"],
        ("i1", "intact"): ["blue whale", None],
        ("i1", "drop"): ["blue", "blue whales"],
        ("i2", "intact"): ["Blue Whale", "blue whale."],
        ("i2", "drop"): [None, "blue whale"],
    }
    rows = [
        _call(i, a, r + 1, ans) for (i, a), answers in plan.items() for r, ans in enumerate(answers)
    ]
    out = cli_json("rop", "deletion", _jsonl(tmp_path / "c.jsonl", rows), "--arms", "intact,drop")
    c = out["contrasts"][0]

    def cell(item: str, arm: str, metric: int, valid_only: bool = False) -> list[float]:
        got = [
            _scores(a, "Blue Whale")[metric] if a is not None else None for a in plan[(item, arm)]
        ]
        return [g for g in got if g is not None] if valid_only else [g or 0.0 for g in got]

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs)

    items = ["i0", "i1", "i2"]
    for metric, key in ((0, "em"), (1, "f1")):
        a = [mean(cell(i, "intact", metric)) for i in items]
        b = [mean(cell(i, "drop", metric)) for i in items]
        assert c[f"{key}_a"] == pytest.approx(mean(a), abs=1e-15)
        assert c[f"{key}_b"] == pytest.approx(mean(b), abs=1e-15)
        # complete-case: only i0 has every call valid in both arms.
        cc = c["complete_case"]
        assert cc["n"] == 1
        assert cc[f"{key}_a"] == pytest.approx(a[0], abs=1e-15)
        assert cc[f"{key}_b"] == pytest.approx(b[0], abs=1e-15)
        # valid-repeat: each item's mean over its valid repeats.
        vr = c["valid_repeat"]
        va = [mean(cell(i, "intact", metric, True)) for i in items]
        vb = [mean(cell(i, "drop", metric, True)) for i in items]
        assert vr["n"] == 3
        assert vr[f"{key}_a"] == pytest.approx(mean(va), abs=1e-15)
        assert vr[f"delta_{key}"] == pytest.approx(mean(va) - mean(vb), abs=1e-15)
    # adverse F1: a failed drop call scores 1.
    adverse_b = [
        mean([_scores(x, "Blue Whale")[1] if x is not None else 1.0 for x in plan[(i, "drop")]])
        for i in items
    ]
    assert c["adverse_delta_f1"] == pytest.approx(c["f1_a"] - mean(adverse_b), abs=1e-15)
    # Table 21's "same valid answer" compares normalized answers: i2/intact is the same.
    acc = {a["arm"]: a for a in out["accounting"]}
    assert acc["intact"]["same_valid_answer"] == 2  # i0 and i2: raw answers differ
    text = run_cli("rop", "deletion", tmp_path / "c.jsonl", "--arms", "intact,drop").stdout
    assert "complete-case" in text and "valid-repeat" in text and "Delta F1" in text


def test_deletion_rows_with_recorded_em_only_have_no_f1(tmp_path: Path) -> None:
    rows = [{"item_id": "i0", "arm": arm, "repeat": 1, "status": "valid", "em": em}
            for arm, em in (("intact", 1), ("drop", 0))]  # fmt: skip
    out = cli_json("rop", "deletion", _jsonl(tmp_path / "c.jsonl", rows), "--arms", "intact,drop")
    c = out["contrasts"][0]
    assert c["delta_em"] == 1.0 and c["f1_a"] is None and c["delta_f1"] is None
    assert c["complete_case"]["delta_f1"] is None and c["complete_case"]["delta_em"] == 1.0


BOUND = {
    "condition": "selected-id",
    "reference_path": "trace",
    "cutoff": 5,
    "task": "answer",
    "terminal_attempt": 1,
    "invalid_output_policy": "score-zero",
    "status": "valid",
}


def test_replay_check_rejects_one_record_per_bound_field(tmp_path: Path) -> None:
    ids = ["d1", "d2"]
    sha = __import__("hashlib").sha256("".join(f"{i}\n" for i in ids).encode()).hexdigest()
    runs = _jsonl(tmp_path / "runs.jsonl", [
        {"record_id": "r1", "question_id": "q1", "returned": ids, **BOUND},
    ])  # fmt: skip
    good = {"run_record_id": "r1", "question_id": "q1", "returned_sha256": sha, **BOUND}
    other = {"condition": "question", "reference_path": "selected", "cutoff": 20,
             "task": "rewrite", "terminal_attempt": 2, "invalid_output_policy": "drop",
             "status": "failed"}  # fmt: skip
    reader = [good] + [{**good, name: other[name]} for name in BOUND]
    reader.append({k: v for k, v in good.items() if k != "cutoff"})  # missing on the reader
    reader.append({**good, "cutoff": "5"})  # the same value as another type
    path = _jsonl(tmp_path / "reader.jsonl", reader)
    res = run_cli("rop", "replay-check", "--runs", runs, "--reader", path, "--json", expect=1)
    out = json.loads(res.stdout)
    assert out["accepted"] == 1 and out["run_records"] == 1
    rej = out["rejections"]
    assert [r["line"] for r in rej] == list(range(2, 2 + len(BOUND) + 2))
    assert [r["fields"] for r in rej] == [[name] for name in BOUND] + [["cutoff"], ["cutoff"]]
    for r, name in zip(rej, BOUND, strict=False):
        assert (
            f"{name} {other[name]!r} differs from the run record's {BOUND[name]!r}" == r["reason"]
        )
    assert rej[len(BOUND)]["reason"] == "no 'cutoff' (the run record's is 5)"
    text = run_cli("rop", "replay-check", "--runs", runs, "--reader", path, expect=1).stdout
    assert f"{path}:3: reference_path 'selected' differs" in text
    # A field only the reader carries is not bound by the run record.
    bare = _jsonl(
        tmp_path / "bare.jsonl", [{"record_id": "r1", "question_id": "q1", "returned": ids}]
    )
    res = run_cli("rop", "replay-check", "--runs", bare, "--reader", _jsonl(tmp_path / "one.jsonl", [good]),
                  "--json", expect=1)  # fmt: skip
    fields = json.loads(res.stdout)["rejections"][0]["fields"]
    assert fields == list(BOUND)
    bad = _jsonl(
        tmp_path / "badruns.jsonl",
        [{"record_id": "r1", "question_id": "q1", "returned": ids, "cutoff": 0}],
    )
    err = run_cli("rop", "replay-check", "--runs", bad, "--reader", path, expect=2).stderr
    assert "badruns.jsonl:1:" in err and "'cutoff' must be an integer >= 1" in err


def test_evaluate_says_when_the_envelope_checks_did_not_apply() -> None:
    rop = REPO / "examples" / "rop"
    plain = rop / "hard-fixture" / "declaration.json"
    assert "envelope" not in json.loads(plain.read_text())
    out = cli_json("rop", "evaluate", plain)
    assert out["envelope"]["status"] == "not_applicable" and out["envelope"]["applied"] is False
    assert "did not apply" in out["envelope"]["note"]
    text = run_cli("rop", "evaluate", plain).stdout
    assert "envelope checks: not applicable" in text and "did not apply" in text
    wrapped = cli_json("rop", "evaluate", rop / "envelope" / "declaration.json")
    assert wrapped["envelope"]["status"] == "valid" and wrapped["envelope"]["applied"] is True
    differs = run_cli("rop", "evaluate", rop / "envelope-mode-differs" / "declaration.json",
                      "--json", expect=None)  # fmt: skip
    env = json.loads(differs.stdout)["envelope"]
    assert env["status"] == "invalid" and "mode" in env["note"]
