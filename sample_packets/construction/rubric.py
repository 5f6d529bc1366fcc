"""Rubric fields and query wording for mined conditions (deterministic given the rng)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sample_packets.construction.inventory import Concept

_ALWAYS_EXCLUDED = "A passing mention in an index, table of contents or list of bookmarks"


def display_name(c: Concept) -> str:
    return c.name[:1].upper() + c.name[1:] if c.kind == "heading" else c.name


def condition_fields(c: Concept, condition_id: str) -> dict[str, Any]:
    name = display_name(c)
    forms = ", ".join(f'"{f}"' for f in c.forms)
    if c.kind == "command":
        requirement = (
            f"The page must explain how to use the LaTeX command {name} or show it in use."
        )
        counts = [
            f"A definition or usage description of {name}",
            f"A code example in which {name} is called",
            f"A description of an argument, option or side effect of {name}",
        ]
        does_not_count = [
            _ALWAYS_EXCLUDED,
            f"A different command whose name merely begins with {name} (for example {name}x)",
            f"{name} appearing only in a change log or version history entry",
        ]
    elif c.kind == "heading":
        requirement = (
            f'The page must contain the section "{name}" or text that belongs to such a section.'
        )
        counts = [
            f'A heading "{name}" (numbered or not) with the text under it',
            f"A paragraph that deals with the {c.name} of the documented package",
        ]
        does_not_count = [
            _ALWAYS_EXCLUDED,
            "A running header or footer that repeats the section title",
            f'The words "{c.name}" used in an unrelated sense',
        ]
    else:
        requirement = (
            f"The page must discuss {name} (what it means, how it behaves or how to use it)."
        )
        counts = [
            f"An explanation of {name}",
            f"Instructions or an example that involve {name}",
            f"A list or table entry that describes {name}",
        ]
        does_not_count = [
            _ALWAYS_EXCLUDED,
            "The words occurring only in a bibliography entry, URL or file name",
            f"A related notion that never names {name}",
        ]
    note = (
        f"Construction counted a page when one of these forms occurs in its normalized text "
        f"as whole words: {forms}. Judge the meaning, not only the words."
    )
    return {
        "condition_id": condition_id,
        "name": name,
        "requirement": requirement,
        "counts": counts,
        "does_not_count": does_not_count,
        "note": note,
        "aliases": list(c.aliases),
    }


_CLAUSES = {
    "command": ["explains how to use the {n} command", "documents {n}", "shows {n} in use"],
    "heading": ["has a section on {l}", "includes a section called \u201c{n}\u201d"],
    "phrase": ["discusses {n}", "covers {n}", "explains {n}"],
}
_FRAMES = [
    "Find documentation that {x}.",
    "Which manual {x}?",
    "I need a package guide that {x}.",
    "Looking for a document that {x}.",
]


def query_text(conds: Sequence[Concept], rng: random.Random) -> str:
    parts = [
        rng.choice(_CLAUSES[c.kind]).format(n=display_name(c), l=c.name.lower()) for c in conds
    ]
    joined = (
        parts[0] + " and " + parts[1]
        if len(parts) == 2
        else ", ".join(parts[:-1]) + ", and " + parts[-1]
    )
    return rng.choice(_FRAMES).format(x=joined)
