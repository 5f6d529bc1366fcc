"""Mine the per-page condition inventory: P0(d, c) for phrases, LaTeX commands and headings.

Proposals come from token statistics (bigrams/trigrams of prose words, command
tokens, PDF-outline titles). Forms that share a concept key (spacing, hyphen,
backslash, plural) merge into one concept whose aliases are all those forms plus
generated singular/plural and hyphen/space variants, and an abbreviation when
the corpus defines one as "long form (abbr)". The page sets are then computed
exactly with `aliases.Matcher` (the occurrence rule of `aliases.occurs`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sample_packets.construction.aliases import (
    COMMAND_BEFORE,
    COMMAND_END,
    TOKEN,
    Matcher,
    concept_key,
    form_tokens,
    phrase_variants,
    singular,
)
from sample_packets.construction.config import ConstructionConfig
from sample_packets.construction.extract import DocText
from sample_packets.construction.stopwords import (
    GENERIC_HEADS,
    STOPWORDS,
    VERB_FIRST,
    WEAK_FIRST,
    WEAK_HEADS,
)
from vocabulary.textnorm import normalize

# Mined command names begin and end as the occurrence rule has them (aliases.COMMAND_BEFORE,
# COMMAND_END), so an internal name such as \\start@align never proposes \\start.
_COMMAND = re.compile(COMMAND_BEFORE + r"\\([a-z]{5,})" + COMMAND_END)
_COMMAND_V1 = re.compile(r"\\([a-z]{5,})(?![a-z0-9])")
# TeX plumbing that every code listing is full of: not something a reader looks for.
_PLUMBING_TEXT = (
    "begingroup endgroup bgroup egroup expandafter relax makeatletter makeatother csname "
    "endcsname noexpand global gdef edef xdef protect ifx fi else unexpanded detokenize "
    "string number romannumeral afterassignment aftergroup futurelet"
)
_PLUMBING = frozenset(_PLUMBING_TEXT.split())
# A phrase that mostly occurs inside one longer phrase is a fragment of it.
_FRAGMENT_SHARE = 0.6
_SEGMENT_BREAK = re.compile(r"\\[a-z]+|[^a-z \-]+")
_WORD = re.compile(r"[a-z]+")
_HEADING_NUMBER = re.compile(
    r"^\s*((chapter|section|part|appendix)\s+)?([0-9ivxlc]+|[a-z])?([.\s][0-9.]*)*\s+"
)
_HEADING_OK = re.compile(r"[a-z][a-z \-]*[a-z]")


@dataclass(frozen=True)
class Concept:
    key: str
    kind: str  # "phrase" | "command" | "heading"
    name: str
    aliases: tuple[str, ...]  # every counted form except the name, sorted
    postings: dict[int, tuple[int, ...]]  # doc index -> 1-based pages where a form occurs

    @property
    def forms(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


def _content_word(w: str) -> bool:
    return len(w) >= 3 and w not in STOPWORDS


def _head_word(w: str) -> bool:
    """Last word of a phrase: a content word that is not a participle or adverb
    ("comma separated", "done automatically" are not things a reader looks up)."""
    return (
        _content_word(w)
        and w not in GENERIC_HEADS
        and w not in WEAK_HEADS
        and not w.endswith(("ed", "ly"))
    )


def _first_word(w: str) -> bool:
    return _content_word(w) and w not in WEAK_FIRST and not w.endswith("ly")


def _phrases(segment_words: list[str]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    n = len(segment_words)
    for i in range(n - 1):
        a, b = segment_words[i], segment_words[i + 1]
        # After a vague modifier ("low level macros") the pair is a fragment, not a term.
        after_weak = i > 0 and segment_words[i - 1] in WEAK_FIRST
        if _first_word(a) and _head_word(b) and not after_weak:
            out.append((a, b))
        if i + 2 < n:
            c = segment_words[i + 2]
            if _first_word(a) and _head_word(c) and (b == "of" or _content_word(b)):
                out.append((a, b, c))
    return out


def _clean_heading(title: str) -> str:
    t = normalize(title)
    t = _HEADING_NUMBER.sub("", t, count=1).strip(" .:")
    t = re.sub(r"^(the|a|an) ", "", t)
    if not _HEADING_OK.fullmatch(t) or len(t.split()) > 4 or len(t) < 5:
        return ""
    return t


def _fragments(
    docs: Sequence[DocText],
    phrase_pages: Counter[str],
    phrase_docs: dict[str, set[int]],
    cfg: ConstructionConfig,
) -> set[str]:
    """Candidate phrases whose pages are mostly pages of one longer phrase containing them."""
    cands = {
        g
        for g, n in phrase_pages.items()
        if n >= cfg.min_pages and len(phrase_docs[g]) >= cfg.df_min
    }
    tri = {g for g in cands if g.count(" ") == 2}
    ext: Counter[str] = Counter()  # (longer phrase) -> pages, for longer phrases of candidates
    if tri:
        for doc in docs:
            for page in doc.norm_pages:
                seen: set[str] = set()
                for seg in _SEGMENT_BREAK.split(page):
                    ws = _WORD.findall(seg)
                    for i in range(len(ws) - 3):
                        if " ".join(ws[i : i + 3]) in tri or " ".join(ws[i + 1 : i + 4]) in tri:
                            seen.add(" ".join(ws[i : i + 4]))
                ext.update(seen)
    longest: Counter[str] = Counter()  # phrase -> page count of its most frequent extension
    for g4, n in ext.items():
        ws = g4.split()
        for sub in (" ".join(ws[:3]), " ".join(ws[1:])):
            longest[sub] = max(longest[sub], n)
    for g3 in cands:
        ws = g3.split()
        if len(ws) == 3:
            n = phrase_pages[g3]
            for sub in (" ".join(ws[:2]), " ".join(ws[1:])):
                longest[sub] = max(longest[sub], n)
    return {g for g in cands if longest[g] >= _FRAGMENT_SHARE * phrase_pages[g]}


@dataclass
class _Proposal:
    kind: str
    surface: Counter[str]  # observed surface form -> pages
    docs: set[int]


def _propose(docs: Sequence[DocText], cfg: ConstructionConfig) -> dict[str, _Proposal]:
    phrase_pages: Counter[str] = Counter()
    phrase_docs: dict[str, set[int]] = defaultdict(set)
    cmd_pages: Counter[str] = Counter()
    cmd_docs: dict[str, set[int]] = defaultdict(set)
    for di, doc in enumerate(docs):
        for page in doc.norm_pages:
            grams: set[str] = set()
            for seg in _SEGMENT_BREAK.split(page):
                for gram in _phrases(_WORD.findall(seg)):
                    grams.add(" ".join(gram))
            for g in grams:
                phrase_pages[g] += 1
                phrase_docs[g].add(di)
            for c in set((_COMMAND if cfg.tex_names else _COMMAND_V1).findall(page)):
                cmd_pages["\\" + c] += 1
                cmd_docs["\\" + c].add(di)
    fragments = _fragments(docs, phrase_pages, phrase_docs, cfg)
    heading_docs: dict[str, set[int]] = defaultdict(set)
    for di, doc in enumerate(docs):
        for title in doc.headings:
            h = _clean_heading(title)
            if h:
                heading_docs[h].add(di)

    props: dict[str, _Proposal] = {}

    def add(kind: str, form: str, pages: int, dset: set[int]) -> None:
        key = concept_key(form)
        if not key:
            return
        p = props.get(key)
        if p is None:
            p = props[key] = _Proposal(kind, Counter(), set())
        # A heading or phrase reading names the concept better than a bare command.
        rank = {"heading": 0, "phrase": 1, "command": 2}
        if rank[kind] < rank[p.kind]:
            p.kind = kind
        p.surface[form] += pages
        p.docs |= dset

    for g, n in phrase_pages.items():
        if n >= cfg.min_pages and len(phrase_docs[g]) >= cfg.df_min and g not in fragments:
            add("phrase", g, n, phrase_docs[g])
    for c, n in cmd_pages.items():
        if c[1:] not in _PLUMBING and n >= cfg.min_pages and len(cmd_docs[c]) >= cfg.df_min:
            add("command", c, n, cmd_docs[c])
    for h, dset in heading_docs.items():
        if len(dset) >= cfg.heading_min_docs:
            add("heading", h, len(dset), dset)
    return props


def _initials(words: Sequence[str]) -> str:
    return "".join(w[0] for w in words if w not in ("of", "and"))


def _abbreviation(words: Sequence[str], pages_text: Sequence[str]) -> str | None:
    """An acronym the corpus itself introduces as 'long form (abbr)'."""
    initials = _initials(words)
    if len(initials) < 2:
        return None
    long_forms = "|".join(re.escape(v) for v in phrase_variants(words))
    pat = re.compile(r"(?<![a-z0-9])(?:" + long_forms + r") \(" + re.escape(initials) + r"\)")
    return initials if any(pat.search(t) for t in pages_text) else None


def _forms_for(key: str, prop: _Proposal) -> tuple[str, list[str]]:
    """(name, aliases) for a proposal: observed forms plus generated variants."""
    observed = sorted(prop.surface, key=lambda f: (-prop.surface[f], f))
    forms: set[str] = set()
    commands = [f for f in observed if f.startswith("\\")]
    words_forms = [f for f in observed if not f.startswith("\\")]
    for f in words_forms:
        ws = _WORD.findall(f)
        ws[-1] = singular(ws[-1])
        forms.update(phrase_variants(ws))
    for c in commands:
        forms.add(c)
        # The bare command name is used in prose ("the includegraphics command"), but short
        # names are ordinary English words ("label", "item"), so only long ones count.
        if not words_forms and len(c) >= 8:
            forms.add(c[1:])
    name = words_forms[0] if words_forms else commands[0]
    forms.discard(name)
    return name, sorted(forms)


def mine_inventory(docs: Sequence[DocText], cfg: ConstructionConfig) -> list[Concept]:
    """All concepts with their exact page sets, sorted by key."""
    # Inverted index token -> global page ids, to pre-filter pages before the exact regex.
    page_ref: list[tuple[int, int]] = []
    index: dict[str, set[int]] = defaultdict(set)
    for di, doc in enumerate(docs):
        for pi, page in enumerate(doc.norm_pages):
            gid = len(page_ref)
            page_ref.append((di, pi))
            for tok in set(TOKEN.findall(page)):
                index[tok].add(gid)
    empty: set[int] = set()

    concepts: list[Concept] = []
    for key, prop in sorted(_propose(docs, cfg).items()):
        name, aliases = _forms_for(key, prop)
        if prop.kind != "command":
            ws = _WORD.findall(name)
            ws[-1] = singular(ws[-1])
            # Only pages holding both the first word and the would-be acronym can define it.
            cand = index.get(ws[0], empty) & index.get(_initials(ws), empty)
            if len(ws) >= 2 and cand:
                abbr = _abbreviation(
                    ws, [docs[page_ref[g][0]].norm_pages[page_ref[g][1]] for g in sorted(cand)]
                )
                if abbr and abbr not in STOPWORDS:
                    aliases = sorted({*aliases, abbr})
        forms = [name, *aliases]
        candidates: set[int] = set()
        for f in forms:
            toks = form_tokens(f)
            if not toks:
                continue
            sets = sorted((index.get(t, empty) for t in toks), key=len)
            candidates |= sets[0].intersection(*sets[1:])
        matcher = Matcher(forms, cfg.tex_names)
        postings: dict[int, list[int]] = defaultdict(list)
        for gid in sorted(candidates):
            di, pi = page_ref[gid]
            if matcher.search(docs[di].norm_pages[pi]):
                postings[di].append(pi + 1)
        concepts.append(
            Concept(
                key, prop.kind, name, tuple(aliases), {d: tuple(p) for d, p in postings.items()}
            )
        )
    return concepts


def eligible(
    concepts: Sequence[Concept], docs: Sequence[DocText], cfg: ConstructionConfig
) -> list[Concept]:
    """Concepts usable as query conditions: moderate document frequency, few pages per document,
    and, for phrases, a topic a query can name ("discusses X"): not a person's or product's
    name, not a verb phrase."""
    out: list[Concept] = []
    for c in concepts:
        df = len(c.postings)
        if not cfg.df_min <= df <= cfg.df_max:
            continue
        frac = sum(len(p) / len(docs[d].pages) for d, p in c.postings.items()) / df
        if frac > cfg.max_mean_page_frac:
            continue
        if c.kind == "phrase" and _proper_name(c, docs, all_caps=cfg.rules >= 2):
            continue
        if c.kind == "phrase" and cfg.rules >= 2 and _verb_phrase(c, docs):
            continue
        out.append(c)
    return out


def _occurrences(
    c: Concept, docs: Sequence[DocText], hyphens: bool = True
) -> Iterator[tuple[str, int, int]]:
    """(raw page text, start, end) of every occurrence of the phrase, any case, with spaces,
    hyphens or nothing between its words ("fine tune", "fine-tune", "Fine-tune"); rule 1
    allowed whitespace only."""
    words = c.name.split()
    gap = r"[\s-]*" if hyphens else r"\s+"
    pat = re.compile(r"(?<![A-Za-z])" + gap.join(map(re.escape, words)) + r"(?![A-Za-z])", re.I)
    for d, pages in sorted(c.postings.items()):
        for p in pages:
            text = docs[d].pages[p - 1]
            for m in pat.finditer(text):
                yield text, m.start(), m.end()


def _proper_name(c: Concept, docs: Sequence[DocText], all_caps: bool = True) -> bool:
    """A phrase capitalised nearly everywhere (Like This, or LIKE THIS on title pages and in
    credits) is a person's or product's name ("Scott Pakin"), not a topic. Rule 1 counted
    Title Case only (and whitespace between the words), which let "Scott Pakin" through."""
    capitalised = total = 0
    for text, start, end in _occurrences(c, docs, hyphens=all_caps):
        ws = text[start:end].split() if not all_caps else re.findall(r"[A-Za-z]+", text[start:end])
        total += 1
        if all_caps:
            capitalised += all(w[:1].isupper() for w in ws)
        else:
            capitalised += all(w[:1].isupper() and w[1:].islower() for w in ws)
    return total > 0 and capitalised >= 0.8 * total


_VERB_BEFORE = re.compile(
    r"(?:^|\W)(?:to|can|cannot|may|might|could|will|would|should|must|you|we)\s+$", re.I
)
_VERB_AFTER = re.compile(
    r"^\s+(?:the|a|an|its|their|your|our|his|her|this|these|that|those|it|them|some|certain)\b",
    re.I,
)
# Share of occurrences in verb position above which a phrase is a verb ("fine tune").
_VERB_SHARE = 0.4


def _verb_phrase(c: Concept, docs: Sequence[DocText]) -> bool:
    """A phrase mostly used as a verb (after "to"/a modal, or before a determiner: "to
    fine-tune the spacing") makes "discusses fine tune" read wrong: not a topic."""
    if c.name.split()[0] in VERB_FIRST:
        return True
    verbal = total = 0
    for text, start, end in _occurrences(c, docs):
        total += 1
        before, after = text[max(0, start - 12) : start], text[end : end + 12]
        verbal += bool(_VERB_BEFORE.search(before) or _VERB_AFTER.search(after))
    return total > 0 and verbal >= _VERB_SHARE * total
