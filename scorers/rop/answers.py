"""Answer scoring of the ROP study ("Does the Selected Object Reach the Reader?", Sec. 4:
"Exact match uses standard HybridQA normalization"; "Answer-token F1").

HybridQA's evaluation normalizes answers as the SQuAD v1.1 evaluation script does:
lower-case, remove ASCII punctuation (`string.punctuation`), remove the articles a, an and
the as whole words, collapse whitespace. Exact match is 1 when the normalized prediction
equals a normalized gold answer; answer-token F1 is the harmonic mean of precision and
recall of the shared tokens counted as bags (a token occurring twice in both counts
twice); each is the maximum over the gold answers. As in SQuAD v1.1, an F1 with no shared
token is 0, also when both answers normalize to nothing (their exact match is 1).
`tests/test_rop_answers.py` checks both against the published SQuAD v1.1 functions.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vocabulary.errors import InputError

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Lower-case, strip ASCII punctuation and the articles a/an/the, collapse whitespace."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def _f1(pred: list[str], gold: list[str]) -> float:
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class AnswerScore:
    em: float  # 1.0 or 0.0
    f1: float


def score_answer(prediction: str, golds: Sequence[str]) -> AnswerScore:
    """Exact match and answer-token F1 of one prediction, each the max over `golds`."""
    if not golds:
        raise ValueError("at least one gold answer")
    pred = normalize_answer(prediction)
    norms = [normalize_answer(g) for g in golds]
    em = 1.0 if any(pred == g for g in norms) else 0.0
    tokens = pred.split()
    return AnswerScore(em, max(_f1(tokens, g.split()) for g in norms))


def gold_answers(value: object) -> list[str] | None:
    """A row's `gold`: one answer string or a non-empty list of them; None when malformed."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(g, str) for g in value):
        return list(value)
    return None


def row_scores(obj: dict[str, Any], source: str, line: int) -> tuple[float, float | None] | None:
    """(EM, F1) of a reader or call row. With `gold` (a string or a list of strings) the
    row's `answer` (the raw prediction) is scored here; a recorded `em` beside it must
    agree. Without `gold` the recorded `em` (a number in [0, 1]) is taken and F1 is None.
    None when the row has neither `gold` nor `em`."""
    if "gold" in obj:
        golds = gold_answers(obj["gold"])
        if golds is None:
            raise InputError(
                "'gold' must be an answer string or a non-empty list of them",
                file=source,
                line=line,
            )
        answer = obj.get("answer")
        if not isinstance(answer, str):
            raise InputError(
                "a row with 'gold' needs the predicted 'answer' string", file=source, line=line
            )
        got = score_answer(answer, golds)
        em = obj.get("em")
        if em is not None and (isinstance(em, bool) or em != got.em):
            raise InputError(
                f"'em' {em!r} differs from the exact match of 'answer' against 'gold' ({got.em:g})",
                file=source,
                line=line,
                hint="drop 'em' (it is computed from the answers) or correct it",
            )
        return got.em, got.f1
    em = obj.get("em")
    if em is None:
        return None
    if isinstance(em, bool) or not isinstance(em, int | float) or not 0 <= em <= 1:
        raise InputError(
            "'em' must be a number in [0, 1]", file=source, line=line, hint="1 exact, 0 not"
        )
    return float(em), None
