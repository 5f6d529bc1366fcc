"""The ROP package's imports: no cycle among its modules, every third-party import declared."""

from __future__ import annotations

import ast
import sys
import tomllib
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.conftest import REPO
from tests.packages import PACKAGES

ROP = REPO / "scorers" / "rop"
FILES = [*sorted(ROP.glob("*.py")), REPO / "formats" / "rop_files.py"]
FIRST_PARTY = set(PACKAGES) - {"evaudit", "services"}
# import name -> distribution name, where they differ
DISTRIBUTIONS = {"yaml": "pyyaml"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def test_rop_modules_import_no_cycle() -> None:
    graph = {
        f"scorers.rop.{p.stem}": {
            i
            for i in _imports(p)
            if i.startswith("scorers.rop.") and (ROP / f"{i[12:]}.py").exists()
        }
        for p in ROP.glob("*.py")
    }
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:  # pragma: no cover - the message names the cycle
        raise AssertionError(f"import cycle: {exc.args[1]}") from exc


def test_every_third_party_import_is_a_declared_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        d.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip().lower()
        for d in project["dependencies"]
    }
    for path in FILES:
        for name in _imports(path):
            top = name.split(".")[0]
            if top in FIRST_PARTY or top in sys.stdlib_module_names or top == "__future__":
                continue
            assert DISTRIBUTIONS.get(top, top).lower() in declared, (path.name, top)


def test_an_evaluation_loads_neither_pandas_nor_a_compiler() -> None:
    # pyarrow imports pandas on its first `pa.array` of a Python list, `to_numpy` or
    # `fill_null` (0.3 s warm, seconds cold); the evaluator builds its arrays without them.
    import subprocess

    example = REPO / "examples" / "rop" / "hard-fixture" / "declaration.json"
    code = (
        "import sys; from formats.rop_files import evaluate_declaration_file; "
        f"r = evaluate_declaration_file({str(example)!r}); "
        "print(r.run_status, sorted(m for m in ('pandas', 'numba', 'llvmlite') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.split()
    assert out == ["RUN_PASS", "[]"]
