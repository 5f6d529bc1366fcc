"""Simulated annotators for the demo: realistic, partly disagreeing journals.

Each simulated person answers every condition of most items; a yes selects a
page and quotes a verbatim word window taken from that page's text (so the
quote passes the gates). The second person agrees with the first most of the
time and otherwise flips the answer or picks another page, which gives the
admin views real agreement and confusion figures. Written through
`AnnotatorSession.save`, so the lines are exactly what the app writes.
"""

from __future__ import annotations

import random
from pathlib import Path

from audit_app.session import AnnotatorSession, ItemState
from packet_builder.project import Project
from packet_builder.textnorm import is_nontrivial, quote_in_page
from policies.gates import ConditionAnswer


def quote_from(text: str, rng: random.Random, words: int = 8) -> str | None:
    """A verbatim window of `words` words from the page that passes the quote gates."""
    tokens = text.split()
    if len(tokens) < 3:
        return None
    for _ in range(20):
        start = rng.randrange(0, max(1, len(tokens) - words))
        quote = " ".join(tokens[start : start + words])
        if is_nontrivial(quote) and quote_in_page(quote, text):
            return quote
    return None


def _answer(pool: dict[str, str], yes: bool, rng: random.Random, prefer: int) -> ConditionAnswer:
    if not yes:
        return ConditionAnswer("no")
    keys = list(pool)
    order = keys[prefer % len(keys) :] + keys[: prefer % len(keys)]
    for key in order:
        quote = quote_from(pool[key], rng)
        if quote:
            return ConditionAnswer("yes", (key,), {key: quote})
    return ConditionAnswer("no")


def simulate(
    project: Project,
    packet_id: str,
    annotators: tuple[str, str],
    *,
    seed: int = 11,
    p_yes: float = 0.75,
    p_agree: float = 0.85,
    coverage: tuple[float, float] = (1.0, 0.9),
) -> dict[str, int]:
    """Fill two annotators' journals; returns saved lines per annotator."""
    rng = random.Random(seed)
    first, second = (
        AnnotatorSession.open(project.packets_dir, project.journals_dir, packet_id, name)
        for name in annotators
    )
    saved = {annotators[0]: 0, annotators[1]: 0}
    for item_id in first.packet.item_ids:
        pools = first.packet.pools(item_id)
        a: dict[str, ConditionAnswer] = {}
        b: dict[str, ConditionAnswer] = {}
        for ckey, pool in pools.items():
            yes_a = rng.random() < p_yes
            yes_b = yes_a if rng.random() < p_agree else not yes_a
            a[ckey] = _answer(pool, yes_a, rng, prefer=0)
            b[ckey] = _answer(pool, yes_b, rng, prefer=0 if rng.random() < 0.7 else 1)
        for session, answers, cover in ((first, a, coverage[0]), (second, b, coverage[1])):
            if rng.random() >= cover:
                continue
            # A first draft with the first condition only, then the full answer: like a person.
            first_key = next(iter(pools))
            session.save(item_id, ItemState({first_key: answers[first_key]}))
            unclear = rng.random() < 0.05
            comment = "The information need could mean either of two programmes." if unclear else ""
            session.save(item_id, ItemState(answers, unclear, comment))
            saved[session.annotator] += 2
    return saved


def journal_files(project: Project, packet_id: str) -> list[Path]:
    return sorted(project.journal_dir(packet_id).glob("*.jsonl"))
