"""Follow a use case through the code as it runs: which first-party modules it enters,
and whether a call ever runs back up a layer or re-enters a module it is still inside
through another one (A -> B -> A).

The layers are import-linter's (pyproject.toml): a call from a module to one in a higher
layer is a call back up, even when no import says so (a callback handed down). The two
front ends are peers at the top (one layer, `evaudit | audit_app`). Threads are traced too, each with its own stack.
"""

from __future__ import annotations

import sys
import threading
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from tests.packages import ROOT

_LAYERS = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
_ORDER = next(c["layers"] for c in _LAYERS["contracts"] if c["type"] == "layers")
# "a | b": independent peers in one layer
RANK = {p.strip(): i for i, layer in enumerate(_ORDER) for p in layer.split("|")}


def _package(module: str | None) -> str | None:
    top = (module or "").split(".")[0]
    return top if top in RANK else None


@dataclass
class Trace:
    modules: list[str] = field(default_factory=list)  # first-party modules, in entry order
    up_calls: set[tuple[str, str]] = field(default_factory=set)  # (caller, callee)
    reentries: set[tuple[str, ...]] = field(default_factory=set)  # the stack A .. B .. A

    def packages(self) -> list[str]:
        return sorted({m.split(".")[0] for m in self.modules})


@contextmanager
def trace_calls() -> Iterator[Trace]:
    """Record every first-party call made inside the block, in this thread and in threads
    started inside it."""
    result = Trace()
    seen: set[str] = set()
    local = threading.local()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        stack: list[tuple[FrameType, str]] = getattr(local, "stack", None) or []
        local.stack = stack
        if event == "return":
            if stack and stack[-1][0] is frame:
                stack.pop()
            return
        if event != "call":
            return
        module = frame.f_globals.get("__name__")
        if _package(module) is None:
            return
        assert module is not None
        if module not in seen:
            seen.add(module)
            result.modules.append(module)
        if stack:
            caller = stack[-1][1]
            if caller != module:
                if RANK[_package(caller) or ""] > RANK[_package(module) or ""]:
                    result.up_calls.add((caller, module))
                names = [m for _f, m in stack]
                if module in names:
                    i = len(names) - 1 - names[::-1].index(module)
                    path = [m for j, m in enumerate(names[i:]) if j == 0 or m != names[i + j - 1]]
                    result.reentries.add((*path, module))
        stack.append((frame, module))

    old: Callable[..., Any] | None = sys.getprofile()
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        yield result
    finally:
        sys.setprofile(old)
        threading.setprofile(None)  # type: ignore[arg-type]
