"""Surface forms of a condition and the exact rule for "occurs on a page".

A condition occurs on a page when its name or one of its aliases occurs in the
page's normalized text (vocabulary.textnorm.normalize) as a whole word
sequence. Word characters are ASCII letters and digits plus `@` and `_`, and a
`:` directly followed by a letter: LaTeX internals (`\\start@align`) and expl3
names (`\\pdfannot_dict_put:nnx`) are one name, so neither `\\start` nor
`\\pdfannot` (nor the bare word `pdfannot`) occurs in them. A command form
(`\\foo`) starts with its backslash, and in TeX a backslash always starts a
new control sequence, so what precedes it does not matter: `\\arabic` occurs in
`smilesimg\\arabic{smilescounter}` (a file name built by calling `\\arabic`)
and in `\\the\\value`, but `\\foo` does not occur in `\\foobar`.

The bundled sample benchmark was built before `@`, `_` and `:` counted
(ConstructionConfig.rules = 1, `tex_names=False`); the scale corpus uses this rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from vocabulary.textnorm import normalize

TOKEN = re.compile(r"[a-z0-9]+")


def singular(word: str) -> str:
    """English singular of a lower-case word by suffix rules (good enough for terminology)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def plural(word: str) -> str:
    if len(word) > 2 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def concept_key(form: str) -> str:
    """Forms that differ only in spacing, hyphenation, backslash or a plural final word share a key.

    e.g. "table of contents", "table-of-contents" and "\\tableofcontents" -> "tableofcontents".
    """
    words = TOKEN.findall(normalize(form))
    if not words:
        return ""
    words[-1] = singular(words[-1])
    return "".join(words)


def phrase_variants(words: Sequence[str]) -> list[str]:
    """Singular/plural x space/hyphen/joined variants of a (singular) word sequence."""
    out: list[str] = []
    for last in (words[-1], plural(words[-1])):
        ws = [*words[:-1], last]
        out.append(" ".join(ws))
        if len(ws) > 1:
            out.append("-".join(ws))
            out.append("".join(ws))
    return out


# What may not follow a form: a word character, or a ':' that continues an expl3 name
# (`\\foo:nn`); a ':' before a space or the end of a sentence ends it.
COMMAND_END = r"(?![a-z0-9@_]|:[a-z])"
_BEFORE = r"(?<![a-z0-9@_])"
# What may stand before a command form: no word character (`smilesimg\\arabic` is inside a
# longer word), unless that word is itself a control word (`\\the\\value` calls \\value).
# Python's lookbehind is fixed-width, so each control-word length up to 40 is spelled out.
COMMAND_BEFORE = (
    "(?:" + _BEFORE + "|" + "|".join(rf"(?<=\\[a-z@_]{{{k}}})" for k in range(1, 41)) + ")"
)
# Rule 1 (`tex_names=False`): the bundled sample benchmark was built with it, where only
# letters and digits are word characters; it is kept so those files stay reproducible.
_END_V1 = r"(?![a-z0-9])"
_BEFORE_V1 = r"(?<![a-z0-9])"


def alias_pattern(form: str, tex_names: bool = True) -> str:
    body = re.escape(form)
    end = COMMAND_END if tex_names else _END_V1
    if form.startswith("\\"):
        return (COMMAND_BEFORE if tex_names else "") + body + end
    return (_BEFORE if tex_names else _BEFORE_V1) + body + end


def compile_matcher(forms: Iterable[str], tex_names: bool = True) -> re.Pattern[str]:
    """One regex for all forms; longest first so the alternation is deterministic."""
    uniq = sorted({normalize(f) for f in forms if normalize(f)}, key=lambda f: (-len(f), f))
    return re.compile("|".join(alias_pattern(f, tex_names) for f in uniq))


class Matcher:
    """The occurrence rule for one condition, fast: a plain substring test gates each form's
    regex (a whole-word match implies the substring), so most pages cost a few `in` checks."""

    def __init__(self, forms: Iterable[str], tex_names: bool = True) -> None:
        uniq = sorted({normalize(f) for f in forms if normalize(f)})
        self._forms = [(f, re.compile(alias_pattern(f, tex_names))) for f in uniq]

    def search(self, norm_page: str) -> bool:
        return any(f in norm_page and pat.search(norm_page) for f, pat in self._forms)


def form_tokens(form: str) -> list[str]:
    """Tokens every page matching `form` must contain (used to pre-filter pages)."""
    return TOKEN.findall(normalize(form))


def occurs(forms: Iterable[str], norm_page: str, tex_names: bool = True) -> bool:
    """The one rule: does any of `forms` occur in this normalized page text?"""
    return compile_matcher(forms, tex_names).search(norm_page) is not None
