"""The one JSON-lines iterator: every reader of a `.jsonl` file a person hands over, or
a campaign log, goes through `json_lines`, so each gets the same guards and the same
`file:line` errors: a missing file, bytes that are not UTF-8, a line that is not JSON
(named with its column), a line that is not an object, a lone UTF-16 surrogate escape
(which `json.loads` accepts but no UTF-8 file, database or page can hold), and a value
nested too deep or an integer too long (`jsonread.json_loads`). Blank lines are skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from vocabulary.errors import InputError
from vocabulary.jsonread import json_loads, json_problem

# A \u escape of a UTF-16 surrogate: json.loads turns an unpaired one into a str that no
# UTF-8 file, database or page can hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def text_lines(path: Path, *, missing_hint: str = "check the path") -> Iterator[tuple[int, str]]:
    """(line number, line) of a UTF-8 text file; a missing file or bad UTF-8 raises."""
    if not path.is_file():
        raise InputError("file not found", file=path, hint=missing_hint)
    try:
        with path.open(encoding="utf-8") as fh:
            yield from enumerate(fh, start=1)
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", file=path, hint="save as UTF-8") from exc


def json_lines(
    path: Path,
    *,
    missing_hint: str = "check the path",
    json_hint: str | None = "one JSON object per line",
    bad_line: str = "malformed JSON",
    not_object: str = "expected a JSON object",
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; the first bad line raises.
    `bad_line` and `not_object` word the two errors for the file's own kind of line
    (the override log says "bad override line")."""
    yield from json_objects(
        text_lines(path, missing_hint=missing_hint), path,
        json_hint=json_hint, bad_line=bad_line, not_object=not_object,
    )  # fmt: skip


def json_objects(
    lines: Iterable[tuple[int, str]],
    path: Path,
    *,
    json_hint: str | None = "one JSON object per line",
    bad_line: str = "malformed JSON",
    not_object: str = "expected a JSON object",
) -> Iterator[tuple[int, dict[str, Any]]]:
    """`json_lines` over (line number, line) pairs read some other way (a gzip or Latin-1
    TREC collection); `path` names the file in errors."""
    for lineno, line in lines:
        if not line.strip():
            continue
        try:
            obj = json_loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{bad_line} ({json_problem(exc)})", file=path, line=lineno, hint=json_hint
            ) from exc
        if not isinstance(obj, dict):
            raise InputError(not_object, file=path, line=lineno, hint=json_hint)
        if _SURROGATE_ESCAPE.search(line) and not _encodable(obj):
            raise InputError(
                "a string holds half of a UTF-16 surrogate pair (a lone \\udXXX escape),"
                " which is not text",
                file=path,
                line=lineno,
                hint="write the character itself, or both halves of its escape",
            )
        yield lineno, obj


def _encodable(obj: Any) -> bool:
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
