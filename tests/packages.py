"""The project's first-party packages, read once from pyproject.toml's import-linter
root packages (the one list the contracts, mypy and these tests share)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
GENERATOR = "sample_packets.construction"  # a tool beside the sample it builds, not a layer
PACKAGES: tuple[str, ...] = tuple(
    p for p in _CONFIG["tool"]["importlinter"]["root_packages"] if p != GENERATOR
)
