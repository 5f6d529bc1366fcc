"""Issue 21: the scale corpus's TeX whole-word rule, name filter and verb-phrase filter (rules 2)."""

from __future__ import annotations

from sample_packets.construction.aliases import occurs
from sample_packets.construction.extract import DocText
from sample_packets.construction.inventory import _COMMAND, Concept, _proper_name, _verb_phrase
from vocabulary.textnorm import normalize


def test_tex_command_names_are_whole_words() -> None:
    # `@`, `_` and `:` + letter continue a TeX name: a command inside a longer one is no hit
    assert not occurs(["\\start"], normalize(r"\def\start@align{...}"))
    assert not occurs(["\\pdfannot", "pdfannot"], normalize(r"\pdfannot_dict_put:nnx {x}"))
    assert not occurs(["\\pdfannot"], normalize(r"\pdfannot:nnx"))
    # letters before the backslash: inside a longer word (as the lexical route reads it) ...
    assert not occurs(["\\arabic"], normalize(r"-O smilesimg\arabic{smilescounter}.png"))
    assert occurs(["\\arabic"], normalize(r"-O smilesimg-\arabic{smilescounter}.png"))
    # ... unless that word is itself a control word: `\the\value` calls \value
    assert occurs(["\\value"], normalize(r"\the\value{page}"))
    assert occurs(["\\value"], normalize(r"\the@x\value{page}"))
    assert occurs(["\\start"], normalize(r"use \start here, or \start: it ends"))
    assert not occurs(["\\foo"], "use \\foobar") and occurs(["\\foo"], "use \\foo{x}")
    # rule 1 (the bundled sample) is unchanged
    assert occurs(["\\start"], normalize(r"\start@align"), tex_names=False)
    # mining proposes no \start from \start@align, and \pdfannot only where it stands alone
    assert _COMMAND.findall(normalize(r"\start@align \pdfannot_dict_put:nnx \pdfannot x")) == [
        "pdfannot"
    ]
    assert _COMMAND.findall(normalize(r"smilesimg\arabic{n} \the\value")) == ["value"]


def _doc(pages: list[str]) -> DocText:
    return DocText("d", "s", tuple(pages), tuple(normalize(p) for p in pages), (), "0")


def _concept(name: str, pages: int) -> Concept:
    return Concept(name.replace(" ", ""), "phrase", name, (), {0: tuple(range(1, pages + 1))})


def test_person_names_and_verb_phrases_are_not_topics() -> None:
    credits = [
        "Here is what Scott Pakin wrote about it.",
        "(Emulates or patches code by SCOTT PAKIN.)",
        "Scott Pakin provided a language definition.",
        "[1] Scott Pakin: The attachfile package.",
    ]
    docs = [_doc(credits)]
    assert _proper_name(_concept("scott pakin", 4), docs)
    # rule 1 counted Title Case only: 2 of 4 here are not, so it let the name through
    assert not _proper_name(_concept("scott pakin", 4), docs, all_caps=False)
    tune = [
        "you may fine-tune line breaking",
        "continued to fine-tune the kernel",
        "ways to fine-tune if you want it",
        "A note on fine tune settings.",
    ]
    assert _verb_phrase(_concept("fine tune", 4), [_doc(tune)])
    topic = ["The font size is set here.", "Change the font size of captions.", "font size: 10pt"]
    assert not _verb_phrase(_concept("font size", 3), [_doc(topic)])
    assert not _proper_name(_concept("font size", 3), [_doc(topic)])
    assert _verb_phrase(_concept("feel free", 1), [_doc(["Please feel free to write."])])
