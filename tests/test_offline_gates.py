"""gates.js gives the same messages as vocabulary/gates.py.

The file is services/card/gates.js: the judging card's gates, in the app and the offline
packet alike."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from vocabulary.gates import ConditionAnswer, QuoteRule, check_condition

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

POOL = {
    "J001-C1-A": "The trial enrolled 412 adult patients across nine sites in 2019.",
    "J001-C1-B": "Outcomes were measured at twelve weeks using the \u201cHAM-D\u201d scale.",
    "J001-C1-C": "Side ef-\nfects included nausea and headache in the treatment arm.",
}


def run_gates_js(cases: list[dict[str, Any]]) -> list[list[str]]:
    assert NODE is not None
    proc = subprocess.run(
        [NODE, str(ROOT / "tests" / "js" / "driver.cjs")],
        input=json.dumps({"op": "check_condition", "cases": cases}),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )
    return list(json.loads(proc.stdout))


def python_messages(case: dict[str, Any]) -> list[str]:
    rule = QuoteRule(**case["rule"])
    return check_condition(ConditionAnswer.from_json(case["answer"]), case["pool"], rule)


def _quote(rng: random.Random, key: str) -> str:
    text = POOL.get(key, "not a page of this pool at all")
    kind = rng.choice(["verbatim", "upper", "short", "absent", "blank", "empty", "hyphen"])
    if kind == "verbatim":
        words = text.split()
        a = rng.randrange(len(words))
        return " ".join(words[a : a + rng.randint(1, 6)])
    if kind == "upper":
        return text[5:40].upper()
    if kind == "short":
        return text.split()[0]
    if kind == "absent":
        return "this sentence is nowhere on the page"
    if kind == "blank":
        return "  \n "
    if kind == "hyphen":
        return "side effects included nausea"
    return ""


def random_case(rng: random.Random) -> dict[str, Any]:
    keys = [*POOL, "J001-C2-A"]
    answer: dict[str, Any] = {
        "answer": rng.choice([None, "yes", "yes", "yes", "no", "no", "maybe", ""]),
        "pages": rng.sample(keys, rng.randint(0, 3)),
        "quotes": {},
    }
    if rng.random() < 0.1:
        answer["pages"] = answer["pages"] + answer["pages"][:1]  # a duplicated selection
    for key in rng.sample(keys, rng.randint(0, 4)):
        answer["quotes"][key] = _quote(rng, key)
    if rng.random() < 0.05:
        answer = {}
    rule = rng.choice(
        [
            {"min_words": 3, "min_chars": 12},
            {"min_words": 2, "min_chars": 5},
            {"min_words": 5, "min_chars": 30},
        ]
    )
    return {"answer": answer, "pool": POOL, "rule": rule}


def test_same_messages_as_python_on_random_answers() -> None:
    rng = random.Random(9)
    cases = [random_case(rng) for _ in range(2000)]
    js = run_gates_js(cases)
    for case, messages in zip(cases, js, strict=True):
        assert messages == python_messages(case), case
    # The sample exercises every message of the Python gates.
    seen = {m.split(":")[-1] if m.startswith("Page ") else m for ms in js for m in ms}
    assert len(seen) >= 10, seen


@pytest.mark.parametrize(
    "answer",
    [
        {
            "answer": "yes",
            "pages": ["J001-C1-C"],
            "quotes": {"J001-C1-C": "side effects included nausea"},
        },
        {"answer": "no", "pages": ["J001-C1-A"], "quotes": {}},
        {"answer": "no", "pages": [], "quotes": {"J001-C1-A": "The trial enrolled 412"}},
        {"answer": "yes", "pages": [], "quotes": {}},
        {"answer": "maybe", "pages": [], "quotes": {}},
        {"answer": "it's", "pages": [], "quotes": {}},
        {"answer": None},
    ],
)
def test_named_cases(answer: dict[str, Any]) -> None:
    case = {"answer": answer, "pool": POOL, "rule": {"min_words": 3, "min_chars": 12}}
    assert run_gates_js([case]) == [python_messages(case)]
