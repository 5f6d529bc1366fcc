"""Every benchmark script starts and answers --help without running its benchmark.

The scripts import test helpers and library modules that move as the code does; a
script that no longer imports is found here, not by the next person who runs it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# `_name.py`: modules the scripts share (benchmarks/_data.py), not scripts of their own
SCRIPTS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))


def test_there_are_benchmark_scripts() -> None:
    assert len(SCRIPTS) >= 9


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_benchmark_script_has_help(script: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(script), "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("usage: "), out.stdout[:500]
