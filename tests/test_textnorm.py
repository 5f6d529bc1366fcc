"""The quote normalizer in Python and JavaScript against the shared vectors, and against each other."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from services.offline import unicode_tables
from vocabulary.textnorm import find_quote, is_nontrivial, normalize, quote_in_page

ROOT = Path(__file__).resolve().parent.parent
VECTORS = json.loads((ROOT / "tests" / "data" / "textnorm_vectors.json").read_text("utf-8"))
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_node(op: str, cases: list[Any]) -> list[Any]:
    """Run the JavaScript side on a batch of cases (tests/js/driver.cjs)."""
    assert NODE is not None
    proc = subprocess.run(
        [NODE, str(ROOT / "tests" / "js" / "driver.cjs")],
        input=json.dumps({"op": op, "cases": cases}),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )
    return list(json.loads(proc.stdout))


@pytest.mark.parametrize("case", VECTORS["normalize"], ids=lambda c: c["name"])
def test_python_normalize_vectors(case: dict[str, Any]) -> None:
    assert normalize(case["input"]) == case["expected"]


@pytest.mark.parametrize("case", VECTORS["nontrivial"], ids=lambda c: c["name"])
def test_python_nontrivial_vectors(case: dict[str, Any]) -> None:
    got = is_nontrivial(case["quote"], case.get("min_words", 3), case.get("min_chars", 12))
    assert got is case["expected"]


@pytest.mark.parametrize("case", VECTORS["quote_in_page"], ids=lambda c: c["name"])
def test_python_quote_vectors(case: dict[str, Any]) -> None:
    assert quote_in_page(case["quote"], case["page"]) is case["expected"]
    span = find_quote(case["quote"], case["page"])
    assert (list(span) if span else None) == case["span"]


def test_vectors_cover_the_required_families() -> None:
    names = " ".join(c["name"] for c in VECTORS["normalize"]).lower()
    for family in (
        "ligature",
        "hyphenated",
        "curly",
        "dash",
        "whitespace",
        "sharp s",
        "full-width",
        "combining",
        "soft hyphen",
        "case",
    ):
        assert family in names, family


@needs_node
def test_node_runs_the_shared_vectors() -> None:
    proc = subprocess.run(
        [str(NODE), "--test", str(ROOT / "tests" / "js")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# fail 0" in proc.stdout


def test_embedded_unicode_tables_are_current() -> None:
    """textnorm.js embeds exactly the tables this Python's unicodedata generates."""
    assert unicode_tables.embedded_block() == unicode_tables.generate_block()


def _assigned_code_points() -> list[int]:
    skip = {"Cn", "Cs", "Co"}
    return [cp for cp in range(0x110000) if unicodedata.category(chr(cp)) not in skip]


@needs_node
def test_every_assigned_character_normalizes_identically() -> None:
    chars = [chr(cp) for cp in _assigned_code_points()]
    # Each character alone and between letters (clustering, joining and trimming all act).
    cases = chars + [f"a{ch}b" for ch in chars]
    js = run_node("normalize", cases)
    diffs = [(c, p, j) for c, j in zip(cases, js, strict=True) if (p := normalize(c)) != j]
    assert diffs[:20] == []


_ALPHABET = [
    *"abcxyzABCXYZ019_ .,;:!?'\"-\n\t\r",
    *"\u00df\u1e9e\u03a3\u03c2\u0130\ufb01\ufb02\ufb03\uff21\uff41\uff11\u2460\u00bd\u2167",
    *"\u0301\u0300\u0323\u0302\u0308\u00e9\u00ad\u00a0\u2009\u2018\u2019\u201c\u201d",
    *"\u00b4\u2033\u2013\u2014\u2212\u2011\u2028\u2029\x85\x0b\u3000\U0001d400\U0001f600",
]


def _random_text(rng: random.Random, max_len: int) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, max_len)))


@needs_node
def test_random_strings_agree() -> None:
    rng = random.Random(20261129)
    texts = [_random_text(rng, 40) for _ in range(3000)]
    assert run_node("normalize", texts) == [normalize(t) for t in texts]

    quotes: list[dict[str, Any]] = []
    for _ in range(1500):
        q = _random_text(rng, 25)
        quotes.append({"quote": q, "min_words": rng.randint(1, 4), "min_chars": rng.randint(1, 14)})
    assert run_node("nontrivial", quotes) == [
        is_nontrivial(c["quote"], c["min_words"], c["min_chars"]) for c in quotes
    ]

    pairs = []
    for _ in range(1500):
        page = _random_text(rng, 60)
        chars = list(page)
        a = rng.randint(0, len(chars))
        b = rng.randint(a, len(chars))
        # Half the quotes are cut from the page (with its quirks), half are random.
        quote = "".join(chars[a:b]) if rng.random() < 0.5 else _random_text(rng, 10)
        pairs.append({"quote": quote, "page": page})
    spans = run_node("find", pairs)
    found = run_node("in_page", pairs)
    for case, span, hit in zip(pairs, spans, found, strict=True):
        expected = find_quote(case["quote"], case["page"])
        assert span == (list(expected) if expected else None), case
        assert hit is quote_in_page(case["quote"], case["page"]), case
