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
from pathlib import Path
from typing import Any

from audit_app.session import AnnotatorSession, ItemState
from campaign.project import Project
from vocabulary.errors import InputError
from vocabulary.gates import ConditionAnswer
from vocabulary.textnorm import is_nontrivial, normalize, normalize_with_map, quote_in_page

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n\s*\n|\s*[\u2022\u25aa\u25cf]\s*")
_CONTENT_WORD = re.compile(r"[a-z][a-z0-9-]{3,}")
# Words of rubric boilerplate that say nothing about a condition's subject.
_GENERIC_WORDS = """that this with from what which when where about page pages must discuss
discusses passage passages document documents text gives give information answers answer
question means behaves reports report findings known used using there their"""
_GENERIC = frozenset(_GENERIC_WORDS.split())
MAX_SENTENCE_WORDS = 60


def sentences(text: str) -> list[tuple[int, int]]:
    """[start, end) of each sentence of a page (a full stop, question or exclamation mark
    before white space, a blank line or a bullet ends one), surrounding space trimmed."""
    spans: list[tuple[int, int]] = []
    start = 0
    for brk in [*_SENTENCE_BREAK.finditer(text), None]:
        end = brk.start() if brk is not None else len(text)
        if brk is not None and brk.group(0)[:1] in "\"')]":
            end = brk.start() + len(brk.group(0).rstrip())
        raw = text[start:end]
        lead = len(raw) - len(raw.lstrip())
        if raw.strip():
            spans.append((start + lead, start + len(raw.rstrip())))
        start = brk.end() if brk is not None else len(text)
    return spans


def _words(text: str) -> set[str]:
    return {w for w in _CONTENT_WORD.findall(normalize(text)) if w not in _GENERIC}


def condition_words(condition: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(words of the condition's name and quoted forms, words of its requirement)."""
    named = _words(" ".join([str(condition.get("name") or ""), *condition_forms(condition)]))
    return named, _words(str(condition.get("requirement") or "")) - named


def _usable(quote: str, text: str) -> bool:
    return (
        len(quote.split()) <= MAX_SENTENCE_WORDS
        and is_nontrivial(quote)
        and quote_in_page(quote, text)
    )


def supporting_sentence(
    text: str,
    condition: dict[str, Any] | None = None,
    span: tuple[int, int] | None = None,
) -> tuple[int, str] | None:
    """(score, sentence) of the page's sentence that supports the condition best: the one
    holding the mention `span` (score 100), else the one sharing most words with the
    condition's name (3 each) and requirement (1 each). None when no sentence passes the
    quote gates. Without a condition, the first usable sentence (score 0)."""
    best: tuple[int, str] | None = None
    named, required = condition_words(condition) if condition else (set(), set())
    for lo, hi in sentences(text):
        quote = " ".join(text[lo:hi].split())
        if not _usable(quote, text):
            continue
        if span is not None and lo <= span[0] < hi:
            return 100, quote
        words = _words(quote)
        score = 3 * len(words & named) + len(words & required)
        if best is None or score > best[0]:
            best = (score, quote)
    return best


def quote_from(text: str, rng: random.Random, words: int = 8) -> str | None:
    """A verbatim sentence of the page that passes the quote gates (a random one among
    them), else a window of `words` words: what a careless reader copies."""
    usable = [
        " ".join(text[lo:hi].split())
        for lo, hi in sentences(text)
        if _usable(" ".join(text[lo:hi].split()), text)
    ]
    if usable:
        return rng.choice(usable)
    tokens = text.split()
    if len(tokens) < 3:
        return None
    for _ in range(20):
        start = rng.randrange(0, max(1, len(tokens) - words))
        quote = " ".join(tokens[start : start + words])
        if is_nontrivial(quote) and quote_in_page(quote, text):
            return quote
    return None


def _answer(
    pool: dict[str, str],
    yes: bool,
    rng: random.Random,
    prefer: int,
    condition: dict[str, Any] | None = None,
) -> ConditionAnswer:
    """No, or yes with the page whose sentence supports the condition best (ties: the
    `prefer`-th page in pool order first) and that sentence as the quote."""
    if not yes:
        return ConditionAnswer("no")
    keys = list(pool)
    order = keys[prefer % len(keys) :] + keys[: prefer % len(keys)]
    forms = condition_forms(condition) if condition else []
    best: tuple[int, str, str] | None = None
    for key in order:
        span = mention_span(pool[key], forms) if forms else None
        found = supporting_sentence(pool[key], condition, span)
        if found is not None and (best is None or found[0] > best[0]):
            best = (found[0], key, found[1])
    if best is None:
        for key in order:
            quote = quote_from(pool[key], rng)
            if quote:
                return ConditionAnswer("yes", (key,), {key: quote})
        return ConditionAnswer("no")
    return ConditionAnswer("yes", (best[1],), {best[1]: best[2]})


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
        conds = {str(c["condition_key"]): c for c in first.packet.item(item_id)["conditions"]}
        a: dict[str, ConditionAnswer] = {}
        b: dict[str, ConditionAnswer] = {}
        for ckey, pool in pools.items():
            yes_a = rng.random() < p_yes
            yes_b = yes_a if rng.random() < p_agree else not yes_a
            a[ckey] = _answer(pool, yes_a, rng, prefer=0, condition=conds[ckey])
            b[ckey] = _answer(
                pool, yes_b, rng, prefer=0 if rng.random() < 0.7 else 1, condition=conds[ckey]
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

_FORMS = re.compile(r'"([^"]+)"')
CONTESTED_DEFAULT = {"initial": 0.08, "adjudication": 0.3, "challenge": 0.3}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # as audit_app.access registers them


def condition_forms(condition: dict[str, Any]) -> list[str]:
    """The wordings a reader looks for: the name, plus the forms the rubric's note quotes."""
    forms = [str(condition.get("name") or "")]
    forms += _FORMS.findall(str(condition.get("note") or ""))
    seen: dict[str, str] = {}
    for form in forms:
        norm = normalize(form)
        if len(norm) >= 3:
            seen.setdefault(norm, form)
    return list(seen)  # normalized forms, longest-first matters little: any hit counts


def mention_span(text: str, forms: list[str]) -> tuple[int, int] | None:
    """[start, end) in the ORIGINAL page text of the first whole-word mention of a form."""
    page = normalize_with_map(text)
    best: tuple[int, int] | None = None
    for form in forms:
        pat = re.compile(r"(?<![a-z0-9])" + re.escape(form) + r"(?![a-z0-9])")
        hit = pat.search(page.text)
        if hit and (best is None or hit.start() < best[0]):
            best = (hit.start(), hit.end())
    if best is None:
        return None
    return page.origin[best[0]], page.origin[best[1] - 1] + 1


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
    condition: dict[str, Any] | None = None,
) -> ConditionAnswer:
    """One person's answer: a yes selects one (sometimes two) mentioning pages and quotes
    the sentence holding the mention (a passage around it when that sentence is too long);
    a yes without any mention (a misreading) quotes the page's best sentence."""
    if not says_yes:
        return ConditionAnswer("no")
    keys = sorted(evident)
    rng.shuffle(keys)
    chosen: list[str] = []
    quotes: dict[str, str] = {}
    for key in keys[: 2 if rng.random() < 0.25 else 1]:
        found = supporting_sentence(pool[key], condition, evident[key])
        quote = found[1] if found and found[0] == 100 else None
        quote = quote or quote_around(pool[key], evident[key], rng)
        if quote:
            chosen.append(key)
            quotes[key] = quote
    if chosen:
        return ConditionAnswer("yes", tuple(chosen), quotes)
    return _answer(pool, True, rng, prefer=rng.randrange(len(pool)), condition=condition)


def label_claims(
    project: Project, packet_id: str, items: list[dict[str, Any]]
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


def simulate_panel(
    project: Project,
    packet_id: str,
    annotators: tuple[str, ...],
    *,
    seed: int = 11,
    p_contested: float | None = None,
    p_slip: float = 0.03,
    coverage: float = 1.0,
    answers: str = "pages",
    noise: float = 0.1,
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
                given[name][ckey] = _read_condition(pool, evident, says_yes, rng, cond)
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
