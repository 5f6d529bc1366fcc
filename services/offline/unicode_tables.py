"""Generate the Unicode tables that `services/card/textnorm.js` embeds.

The JavaScript normalizer must give exactly the output of the Python one
(`vocabulary/textnorm.py`). Two pieces of Python behaviour have no stable
browser equivalent, so they are copied from Python's `unicodedata` as tables:

- `unicodedata.combining(ch) != 0` (how the text is split into clusters);
- `str.casefold()` (full case folding: ß -> ss, ς -> σ, Cherokee, ...);
  `String.prototype.toLowerCase` differs on several hundred code points and
  changes with the browser's Unicode version.

Run `python -m services.offline.unicode_tables` to print the block, or with
`--write` to replace the generated block inside textnorm.js. A test checks
that the file holds exactly what this module generates.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

BEGIN = "// BEGIN GENERATED UNICODE TABLES"
END = "// END GENERATED UNICODE TABLES"
TEXTNORM_JS = Path(__file__).resolve().parent.parent / "card" / "textnorm.js"


def _code_points() -> range:
    return range(0x110000)


def combining_ranges() -> list[tuple[int, int]]:
    """Inclusive ranges of code points with a nonzero canonical combining class."""
    ranges: list[list[int]] = []
    for cp in _code_points():
        if 0xD800 <= cp <= 0xDFFF or not unicodedata.combining(chr(cp)):
            continue
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return [(a, b) for a, b in ranges]


def casefold_tables() -> tuple[list[tuple[int, int, int, int]], dict[int, str]]:
    """Single-code-point foldings as runs (start, count, step, delta); the rest one by one."""
    singles: list[tuple[int, int]] = []
    multi: dict[int, str] = {}
    for cp in _code_points():
        if 0xD800 <= cp <= 0xDFFF:
            continue
        folded = chr(cp).casefold()
        if folded == chr(cp):
            continue
        if len(folded) == 1:
            singles.append((cp, ord(folded) - cp))
        else:
            multi[cp] = folded
    runs: list[tuple[int, int, int, int]] = []
    i = 0
    while i < len(singles):
        start, delta = singles[i]
        count, step = 1, 0
        if i + 1 < len(singles) and singles[i + 1][1] == delta:
            step = singles[i + 1][0] - start
            if step in (1, 2):
                while (
                    i + count < len(singles)
                    and singles[i + count][1] == delta
                    and singles[i + count][0] == start + count * step
                ):
                    count += 1
            else:
                step = 0
        runs.append((start, count, step or 1, delta))
        i += count
    return runs, multi


def _js_string(text: str) -> str:
    return '"' + "".join(f"\\u{{{ord(ch):x}}}" for ch in text) + '"'


def _wrap(items: list[str], indent: str = "  ") -> str:
    lines: list[str] = []
    line = indent
    for item in items:
        if len(line) + len(item) + 1 > 99:
            lines.append(line.rstrip())
            line = indent
        line += item + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def generate_block() -> str:
    comb = combining_ranges()
    runs, multi = casefold_tables()
    comb_items = [f"0x{a:x}, 0x{b:x}," for a, b in comb]
    run_items = [f"0x{s:x}, {c}, {st}, {d}," for s, c, st, d in runs]
    multi_items = [f"0x{cp:x}, {_js_string(s)}," for cp, s in sorted(multi.items())]
    return "\n".join(
        [
            BEGIN,
            "// (python -m services.offline.unicode_tables --write; do not edit by hand)",
            f'const UNIDATA_VERSION = "{unicodedata.unidata_version}";',
            "// Inclusive [first, last] pairs: unicodedata.combining(ch) != 0.",
            "const COMBINING_RANGES = [",
            _wrap(comb_items),
            "];",
            "// str.casefold() to one code point: start, count, step, delta.",
            "const CASEFOLD_RUNS = [",
            _wrap(run_items),
            "];",
            "// str.casefold() to several code points: code point, folded string.",
            "const CASEFOLD_MULTI = [",
            _wrap(multi_items),
            "];",
            END,
        ]
    )


def write_block(path: Path = TEXTNORM_JS) -> None:
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    path.write_text(head + generate_block() + tail, encoding="utf-8")


def embedded_block(path: Path = TEXTNORM_JS) -> str:
    text = path.read_text(encoding="utf-8")
    start = text.index(BEGIN)
    return text[start : text.index(END, start) + len(END)]


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write_block()
    else:
        print(generate_block())
