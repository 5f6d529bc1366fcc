"""Simulated annotators for the demo and for dry runs of the audit chain.

`simulate` (the demo's `--simulate`) fills two annotators' journals with answers
drawn at random; `simulate_panel` (`evaudit responses simulate`) makes any number
of people, e.g. the initial pair or three adjudicators, answer either by reading the
displayed pages (a condition is evident where a page mentions it) or from the labels
under test (`answers="labels"`, for BEIR and TREC projects, whose one condition per
query is rarely worded on the page), each answer departing from them with a stated
`noise` rate.

Every yes quotes a whole sentence of a displayed page, the one that supports the
condition best: the sentence holding a mention of the condition (its name or a form
its note quotes), else the one sharing most words with the condition's name and
requirement (`supporting_sentence`); it passes the quote gates.

In `simulate`, each simulated person answers every condition of most items; a yes selects a
page and quotes its supporting sentence. The second person agrees with the first most of the
time and otherwise flips the answer or picks another page, which gives the
admin views real agreement and confusion figures. Written through
`AnnotatorSession.save`, so the lines are exactly what the app writes.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from campaign.annotation import AnnotatorSession, ItemState
from campaign.project import Project, as_project
from campaign.simulated import record_simulated
from services.sentences import (
    Sentence,
    condition_forms,
    mention_span,
    sentence_choices,
    supporting_sentence,
    supports,
)
from vocabulary.errors import InputError
from vocabulary.gates import ConditionAnswer
from vocabulary.textnorm import is_nontrivial, quote_in_page


def quote_from(text: str, rng: random.Random, words: int = 8) -> str | None:
    """A verbatim window of `words` words from the page that passes the quote gates (the
    panel's misreading: a yes without a mention quotes some passage)."""
    tokens = text.split()
    if len(tokens) < 3:
        return None
    for _ in range(20):
        start = rng.randrange(0, max(1, len(tokens) - words))
        quote = " ".join(tokens[start : start + words])
        if is_nontrivial(quote) and quote_in_page(quote, text):
            return quote
    return None


def _window_answer(pool: dict[str, str], rng: random.Random, prefer: int) -> ConditionAnswer:
    keys = list(pool)
    order = keys[prefer % len(keys) :] + keys[: prefer % len(keys)]
    for key in order:
        quote = quote_from(pool[key], rng)
        if quote:
            return ConditionAnswer("yes", (key,), {key: quote})
    return ConditionAnswer("no")


def _answer(
    pool: dict[str, str],
    yes: bool,
    rng: random.Random,
    prefer: int,
    condition: dict[str, Any] | None = None,
    need_support: bool = False,
) -> ConditionAnswer:
    """No, or yes with the page whose sentence supports the condition best (ties: the
    `prefer`-th page in pool order first) and that sentence as the quote. With
    `need_support`, a yes needs a sentence that supports the condition (else no)."""
    if not yes:
        return ConditionAnswer("no")
    keys = list(pool)
    order = keys[prefer % len(keys) :] + keys[: prefer % len(keys)]
    best: tuple[Sentence, str] | None = None
    for key in order:
        found = supporting_sentence(pool[key], condition)
        if found is not None and (best is None or found.score > best[0].score):
            best = (found, key)
    if best is None or (need_support and not supports(best[0], condition)):
        if need_support:
            return ConditionAnswer("no")  # nothing on the pages supports it
        return _window_answer(pool, rng, prefer)
    sentence, key = best
    # People copy differently: one sentence of the best kind or, sometimes, it with its
    # neighbour (whole sentences either way), so two readers' streams are rarely identical.
    alike = [
        c
        for c in sentence_choices(pool[key], condition)
        if c.score // 1000 == sentence.score // 1000
        and c.mentions == sentence.mentions
        and (not need_support or supports(c, condition))
    ]
    if alike:
        sentence = rng.choice(alike)
    return ConditionAnswer("yes", (key,), {key: sentence.text})


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
    record_simulated(project, packet_id, annotators)  # `annotator list` marks them
    for item_id in first.packet.item_ids:
        pools = first.packet.pools(item_id)
        conds = {str(c["condition_key"]): c for c in first.packet.item(item_id)["conditions"]}
        a: dict[str, ConditionAnswer] = {}
        b: dict[str, ConditionAnswer] = {}
        for ckey, pool in pools.items():
            yes_a = rng.random() < p_yes
            yes_b = yes_a if rng.random() < p_agree else not yes_a
            # A yes quotes a sentence that supports the condition, or becomes a no.
            a[ckey] = _answer(pool, yes_a, rng, 0, conds[ckey], need_support=True)
            b[ckey] = _answer(
                pool, yes_b, rng, 0 if rng.random() < 0.7 else 1, conds[ckey], need_support=True
            )
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


# --- An evidence-reading panel: any number of people, e.g. three adjudicators -------------

CONTESTED_DEFAULT = {"initial": 0.08, "adjudication": 0.3, "challenge": 0.3}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # as services.annotators registers them


def quote_around(text: str, span: tuple[int, int], rng: random.Random) -> str | None:
    """A verbatim passage of the page holding the mention, a few words either side: what a
    reader copies. Checked against the gates; None if no passage passes."""
    tokens = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    first = next((i for i, (_s, e) in enumerate(tokens) if e > span[0]), None)
    if first is None:
        return None
    last = next((i for i, (s, _e) in enumerate(tokens) if s >= span[1]), len(tokens)) - 1
    for before, after in ((rng.randint(2, 5), rng.randint(2, 6)), (3, 3), (1, 1), (0, 3)):
        lo = max(0, first - before)
        hi = min(len(tokens) - 1, max(first, last) + after)
        raw = text[tokens[lo][0] : tokens[hi][1]]
        for quote in (" ".join(raw.split()), raw):
            if is_nontrivial(quote) and quote_in_page(quote, text):
                return quote
    return None


def _evident_pages(pool: dict[str, str], forms: list[str]) -> dict[str, tuple[int, int]]:
    found = {}
    for key, text in pool.items():
        span = mention_span(text, forms)
        if span is not None:
            found[key] = span
    return found


def _read_condition(
    pool: dict[str, str],
    evident: dict[str, tuple[int, int]],
    says_yes: bool,
    rng: random.Random,
) -> ConditionAnswer:
    """One person's answer: a yes selects one (sometimes two) mentioning pages and quotes
    the mention; a yes without any mention (a misreading) quotes some passage."""
    if not says_yes:
        return ConditionAnswer("no")
    keys = sorted(evident)
    rng.shuffle(keys)
    chosen: list[str] = []
    quotes: dict[str, str] = {}
    for key in keys[: 2 if rng.random() < 0.25 else 1]:
        quote = quote_around(pool[key], evident[key], rng)
        if quote:
            chosen.append(key)
            quotes[key] = quote
    if chosen:
        return ConditionAnswer("yes", tuple(chosen), quotes)
    return _window_answer(pool, rng, prefer=rng.randrange(len(pool)))


def label_claims(
    project: Project, packet_id: str, items: Sequence[dict[str, Any]]
) -> dict[str, set[str]]:
    """item_id -> the condition keys the label under test claims: as many as the admin
    key's grade, those a displayed page mentions first, then in packet order."""
    from campaign.packets import read_admin_key

    key_items = read_admin_key(project, packet_id).get("items") or {}
    claims: dict[str, set[str]] = {}
    for item in items:
        item_id = str(item["item_id"])
        entry = key_items.get(item_id)
        if not isinstance(entry, dict) or not isinstance(entry.get("grade"), int):
            raise InputError(
                f"the admin key has no grade for item {item_id}",
                file=project.key_path(packet_id),
                hint="rebuild the packet with `evaudit packet build`, or use --answers pages",
            )
        conds = item["conditions"]
        mentioned = [
            str(c["condition_key"])
            for c in conds
            if _evident_pages(
                {str(p["page_key"]): str(p["text"]) for p in c["pages"]}, condition_forms(c)
            )
        ]
        order = list(dict.fromkeys(mentioned + [str(c["condition_key"]) for c in conds]))
        claims[item_id] = set(order[: max(0, min(int(entry["grade"]), len(order)))])
    return claims


@dataclass(frozen=True)
class Panel:
    """How a simulated panel answers (see `simulate_panel`)."""

    seed: int = 11
    p_contested: float | None = None
    p_slip: float = 0.03
    coverage: float = 1.0
    answers: str = "pages"
    noise: float = 0.1


def simulate_panel(
    project: Project, packet_id: str, annotators: tuple[str, ...], panel: Panel = Panel()
) -> dict[str, int]:
    """Journals of several people who read the displayed pages (e.g. three adjudicators).

    A condition is evident when a displayed page mentions its name or a form its note
    quotes; everyone then says yes and quotes a passage around the mention, copied from
    that page. Disagreement comes from two sources: a contested condition (probability
    `p_contested`, shared by the panel: the rubric's "judge the meaning" bites) where each
    person independently departs from the evidence with probability 1/2, and a personal
    slip (`p_slip`). By default `p_contested` is 0.08 on an initial packet and 0.3 on
    adjudication and challenge packets, whose items are the cases people disagreed on. Each (item, condition, person) draws from its own seeded generator, so
    a person's answers do not depend on who else is simulated or on the order of items.
    `coverage` < 1 leaves some items unanswered. Returns saved lines per person.

    With `answers="labels"` (BEIR and TREC projects) the people answer from the labels
    under test instead (the admin key's grade: that many of the item's conditions are
    yes, those a page mentions first), and each answer departs from the label with
    probability `noise`, independently per person; `p_contested` and `p_slip` are not
    used. Every yes quotes the supporting sentence of the page it selects.
    """
    seed, p_slip, coverage, answers, noise = (
        panel.seed, panel.p_slip, panel.coverage, panel.answers, panel.noise
    )  # fmt: skip
    p_contested = panel.p_contested
    if answers not in ("pages", "labels"):
        raise InputError(f"unknown answers mode {answers!r}", hint="use pages or labels")
    bad = [n for n in annotators if not _NAME.match(n)]
    if bad or not annotators or len(set(annotators)) != len(annotators):
        raise InputError(
            f"annotator names must be distinct names of letters, digits, . _ -: "
            f"{','.join(annotators) or '(none)'}",
            hint="give e.g. --annotators adj1,adj2,adj3",
        )
    packet_file = project.packets_dir / f"{packet_id}.json"
    if not packet_file.is_file():
        raise InputError(
            f"no packet named {packet_id!r}", file=packet_file, hint="see `evaudit packet list`"
        )
    sessions = [
        AnnotatorSession.open(project.packets_dir, project.journals_dir, packet_id, name)
        for name in annotators
    ]
    taken = [s.journal_path for s in sessions if s.journal_path.exists()]
    if taken:
        # Never mix simulated lines into a real person's journal.
        raise InputError(
            "journal already exists; simulated people must be new names",
            file=taken[0],
            hint="choose other --annotators names",
        )
    packet = sessions[0].packet
    if p_contested is None:
        p_contested = CONTESTED_DEFAULT.get(packet.kind, 0.3)
    labels = label_claims(project, packet_id, packet.items) if answers == "labels" else {}
    saved = dict.fromkeys(annotators, 0)
    record_simulated(project, packet_id, annotators)  # `annotator list` marks them
    for item in packet.items:
        item_id = str(item["item_id"])
        given: dict[str, dict[str, ConditionAnswer]] = {name: {} for name in annotators}
        for cond in item["conditions"]:
            ckey = str(cond["condition_key"])
            pool = {str(p["page_key"]): str(p["text"]) for p in cond["pages"]}
            evident = _evident_pages(pool, condition_forms(cond))
            shared = random.Random(f"{seed}:{packet.sha256}:{item_id}:{ckey}")
            contested = shared.random() < p_contested
            for name in annotators:
                rng = random.Random(f"{seed}:{packet.sha256}:{item_id}:{ckey}:{name}")
                if answers == "labels":
                    says_yes = (ckey in labels[item_id]) != (rng.random() < noise)
                    given[name][ckey] = _answer(pool, says_yes, rng, 0, cond)
                    continue
                depart = rng.random() < (0.5 if contested else p_slip)
                says_yes = bool(evident) != depart
                given[name][ckey] = _read_condition(pool, evident, says_yes, rng)
        for session in sessions:
            rng = random.Random(f"{seed}:{packet.sha256}:{item_id}:{session.annotator}")
            if rng.random() >= coverage:
                continue
            mine = given[session.annotator]
            unclear = rng.random() < 0.03
            comment = "The rubric could be read more narrowly here." if unclear else ""
            session.save(item_id, ItemState(mine, unclear, comment))
            saved[session.annotator] += 1
    return saved


@dataclass(frozen=True)
class SimulateReport:
    """`responses simulate`: saved lines per simulated person."""

    packet: str
    seed: int
    answers: str
    saved: dict[str, int]

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def table(self) -> str:
        return f"{self.packet}: " + ", ".join(f"{k} {v} items" for k, v in self.saved.items())


def responses_simulate(
    project: Project | Path, packet_id: str, annotators: str, panel: Panel | None = None
) -> SimulateReport:
    """`evaudit responses simulate`: `simulate_panel` for comma-separated new names."""
    names = tuple(n.strip() for n in annotators.split(",") if n.strip())
    panel = panel or Panel()
    saved = simulate_panel(as_project(project), packet_id, names, panel)
    return SimulateReport(packet_id, panel.seed, panel.answers, saved)
