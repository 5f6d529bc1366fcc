"""Start-up stays light, and every distribution the packages import is declared.

`evaudit --help` and every command's `--help` must not import the heavy
libraries (a user waits for them on every call); the packages' third-party
imports must all be runtime dependencies in pyproject.toml (altair and
starlette were imported but undeclared: they came in only through streamlit).
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.packages import PACKAGES

ROOT = Path(__file__).resolve().parents[1]
HEAVY = [
    "pandas",
    "numpy",
    "scipy",
    "pyarrow",
    "duckdb",
    "fitz",
    "pymupdf",
    "streamlit",
    "matplotlib",
    "statsmodels",
    "sklearn",
    "psycopg",
]

# One process walks every command: each --help is invoked in turn and the first
# command after which a heavy module is loaded is named.
_PROBE = r"""
import json, sys
import click
from click.testing import CliRunner
from evaudit.cli import cli
HEAVY = json.loads(sys.argv[1])
def walk(group, prefix=()):
    for name, cmd in sorted(group.commands.items()):
        yield (*prefix, name)
        if isinstance(cmd, click.Group):
            yield from walk(cmd, (*prefix, name))
seen = {}
runner = CliRunner()
for path in [(), *walk(cli)]:
    runner.invoke(cli, [*path, "--help"])
    for mod in HEAVY:
        if mod in sys.modules and mod not in seen:
            seen[mod] = " ".join(path) or "(top level)"
print(json.dumps(seen))
"""


def test_help_imports_no_heavy_library() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert loaded == {}, f"--help imported heavy modules (module: first command): {loaded}"


def test_console_help_imports_no_heavy_library() -> None:
    code = (
        "import sys; sys.argv=['evaudit','--help']\nfrom evaudit.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def _imported_top_names() -> set[str]:
    names: set[str] = set()
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - set(PACKAGES) - {"sample_packets"}


def _declared() -> set[str]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return {re.split(r"[\[<>=!~ ;]", d, maxsplit=1)[0].lower().replace("_", "-") for d in deps}


def test_every_imported_distribution_is_declared() -> None:
    dists = importlib.metadata.packages_distributions()
    declared = _declared()
    missing = {}
    for name in sorted(_imported_top_names()):
        owners = {d.lower().replace("_", "-") for d in dists.get(name, [])}
        assert owners, f"import {name!r}: no installed distribution provides it"
        if not owners & declared:
            missing[name] = sorted(owners)
    assert missing == {}, f"imported but not declared in pyproject.toml dependencies: {missing}"
