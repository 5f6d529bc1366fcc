"""The one exception type that means "the user gave bad input".

Library code raises `InputError`; the CLI turns it into a one-line message and
a non-zero exit, never a traceback. Anything else escaping is a bug.
"""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Bad input, reported as ``file:line: what is wrong (fix)``."""

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        hint: str | None = None,
        exit_code: int = 2,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.hint = hint
        self.exit_code = exit_code
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.file is not None:
            where = f"{self.file}:{self.line}: " if self.line is not None else f"{self.file}: "
        text = f"{where}{self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text

    def to_json(self) -> dict[str, object]:
        """The one JSON object a command prints under --json when it fails (`ingest`):
        the one-line error and every problem found (one, or an `InputErrors`' list)."""
        problems: list[InputError] = getattr(self, "problems", [self])
        return {
            "error": self.render(),
            "problems": [
                {"message": e.message, "file": e.file, "line": e.line, "hint": e.hint}
                for e in problems
            ],
        }


class InputErrors(InputError):
    """Several problems found in one pass (all reported, first one in the message)."""

    def __init__(self, problems: list[InputError]) -> None:
        if not problems:
            raise ValueError("InputErrors needs at least one problem")
        self.problems = problems
        first = problems[0]
        extra = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        super().__init__(
            first.message + extra,
            file=first.file,
            line=first.line,
            hint=first.hint,
            exit_code=first.exit_code,
        )

    def all_lines(self) -> list[str]:
        return [p.render() for p in self.problems]
