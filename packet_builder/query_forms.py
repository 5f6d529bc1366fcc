"""Deterministic query forms and their verbatim-containment check (pure).

The n-Clue supplement ("Do Current Retrievers Cover All the Evidence?",
section "Query-Form Robustness Protocol") keeps query ids, conditions and
qrels fixed and varies only the query text:

* ``raw``: the query's own text, unchanged;
* ``clean_v2``: each condition's name in double quotes, joined by "; "
  (``"Grievance Mechanism"; "Comparison"; "Resettlement"``). The semicolon is
  the supplement's choice because 388 of 1,000 older queries had an "and"
  inside a concept, which blurs where one condition ends;
* ``natural``: ``Find the document that discusses "X".`` for one condition,
  ``"X" and "Y"`` for two, ``"X", "Y", and "Z"`` (serial comma) for three or more.

A condition's name is used with surrounding whitespace removed and inner runs
of whitespace made one space; nothing else is changed (a name's own quotes,
semicolons and "and" stay verbatim). The check counts, per form, the queries
whose text contains every condition name after the project's normalisation
(vocabulary.textnorm: NFKC, case fold, quote and dash variants, whitespace),
as a phrase: an occurrence inside a longer word does not count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from formats.records import Query
from vocabulary.textnorm import normalize

FORMS = ("raw", "clean_v2", "natural")


def clean_name(name: str) -> str:
    return " ".join(name.split())


def render(query: Query, form: str) -> str:
    """The query text in ``form`` (module docstring)."""
    if form == "raw":
        return query.text
    quoted = [f'"{clean_name(c.name)}"' for c in query.conditions]
    if form == "clean_v2":
        return "; ".join(quoted)
    if form == "natural":
        if len(quoted) == 1:
            listed = quoted[0]
        elif len(quoted) == 2:
            listed = f"{quoted[0]} and {quoted[1]}"
        else:
            listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
        return f"Find the document that discusses {listed}."
    raise ValueError(f"unknown query form {form!r}")


def contains_phrase(norm_text: str, norm_name: str) -> bool:
    """Whether the name occurs in the text and not inside a longer word ("b" is not in "about")."""
    if not norm_name:
        return False
    before = r"(?<!\w)" if re.match(r"\w", norm_name[0]) else ""
    after = r"(?!\w)" if re.match(r"\w", norm_name[-1]) else ""
    return re.search(before + re.escape(norm_name) + after, norm_text) is not None


def missing_conditions(text: str, query: Query) -> list[str]:
    """Condition ids whose normalised name does not occur as a phrase in the normalised text."""
    norm_text = normalize(text)
    return [
        c.condition_id
        for c in query.conditions
        if not contains_phrase(norm_text, normalize(clean_name(c.name)))
    ]


@dataclass(frozen=True)
class ContainmentFailure:
    query_id: str
    missing: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "missing": list(self.missing)}


@dataclass(frozen=True)
class FormCheck:
    form: str
    queries: int
    contained: int
    failures: tuple[ContainmentFailure, ...]

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        return {
            "form": self.form,
            "queries": self.queries,
            "contained": self.contained,
            "ok": self.ok,
            "failures": [f.to_json() for f in self.failures],
        }


@dataclass(frozen=True)
class FormsReport:
    checks: tuple[FormCheck, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "forms": [c.to_json() for c in self.checks]}


def check_texts(form: str, queries: Sequence[Query], texts: Sequence[str]) -> FormCheck:
    """Containment of every condition name in each text (texts[i] renders queries[i])."""
    failures = []
    for q, text in zip(queries, texts, strict=True):
        missing = missing_conditions(text, q)
        if missing:
            failures.append(ContainmentFailure(q.query_id, tuple(missing)))
    return FormCheck(form, len(queries), len(queries) - len(failures), tuple(failures))


def check_forms(queries: Sequence[Query], forms: Sequence[str]) -> FormsReport:
    """The check for each form rendered from the queries' own conditions."""
    return FormsReport(
        tuple(check_texts(f, queries, [render(q, f) for q in queries]) for f in forms)
    )
