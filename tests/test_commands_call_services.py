"""The CLI is a front end (docs/architecture.md, issue #27): every command parses its
options, calls exactly one service and prints the service's report.

An AST check over evaudit/commands/*.py: each click command function calls exactly one
function imported from `services` (a report or option class built from `services` is not
a call of the use case), and no command module imports the builder, the campaign, the
scorers or the policies (`vocabulary.errors` is allowed: a command may raise or catch an
`InputError`). And nowhere in evaudit/ does an f-string, `str.format` or `format()` carry
a numeric format spec (`:.3f`, `:,`, `:5d`, `:%`): a figure's format is its report's.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import string
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
COMMANDS = REPO / "evaudit" / "commands"

# Command modules exempt from the checks: none since #27 moved the last of them.
ALLOWLIST: set[str] = set()

FORBIDDEN = ("packet_builder", "audit_chain", "formats", "campaign", "scorers", "policies")
ALLOWED_VOCABULARY = ("vocabulary.errors",)

# A format spec that formats a number: precision, grouping, a sign, a width with a
# numeric type, or a numeric type alone (`.3f`, `,`, `+d`, `5d`, `%`, `g`, `x`).
_NUMERIC_SPEC = re.compile(r"(\.\d+)|[,_]|^[+\- ]|[bcdeEfFgGnoxX%]$")


def _modules(exclude: set[str]) -> list[Path]:
    return sorted(p for p in COMMANDS.glob("*.py") if p.name not in exclude)


def _is_command(fn: ast.FunctionDef) -> bool:
    """A function decorated with `@click.command(...)` or `@GROUP.command(...)`."""
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr == "command":
            return True
    return False


def _service_functions(tree: ast.AST) -> dict[str, str]:
    """Local name -> `services.module.name` of every function imported from services."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("services"):
            module = importlib.import_module(node.module or "")
            for alias in node.names:
                obj = getattr(module, alias.name)
                if inspect.isfunction(obj):
                    out[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return out


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module or "")
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return names


@pytest.mark.parametrize("path", _modules(ALLOWLIST), ids=lambda p: p.name)
def test_each_command_calls_exactly_one_service(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    services = _service_functions(tree)
    commands = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and _is_command(n)]
    wrong = []
    for fn in commands:
        calls = [
            services[n.func.id]
            for n in ast.walk(fn)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in services
        ]
        if len(calls) != 1:
            wrong.append(f"{path.name}:{fn.lineno} {fn.name} calls {calls or 'no service'}")
    assert not wrong, "a command calls one service:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path", _modules(ALLOWLIST), ids=lambda p: p.name)
def test_commands_import_no_library_below_services(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [
        m
        for m in _imports(tree)
        if m.split(".")[0] in FORBIDDEN
        or (m.split(".")[0] == "vocabulary" and m not in ALLOWED_VOCABULARY)
    ]
    assert not bad, f"{path.name} imports {bad}: call a service instead"


def _numeric_specs(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, spec) of every numeric format spec in f-strings, str.format and format()."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(
                v.value if isinstance(v, ast.Constant) else "{...}"
                for v in getattr(node.format_spec, "values", [])
            )
            if _NUMERIC_SPEC.search(spec):
                found.append((node.lineno, spec))
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "format" and len(node.args) == 2:
                spec = node.args[1]
                if isinstance(spec, ast.Constant) and _NUMERIC_SPEC.search(str(spec.value)):
                    found.append((node.lineno, str(spec.value)))
            if (
                isinstance(f, ast.Attribute)
                and f.attr == "format"
                and isinstance(f.value, ast.Constant)
                and isinstance(f.value.value, str)
            ):
                for _lit, _field, spec, _conv in string.Formatter().parse(f.value.value):
                    if spec and _NUMERIC_SPEC.search(spec):
                        found.append((node.lineno, spec))
    return found


def test_no_numeric_format_spec_in_the_cli() -> None:
    files = [
        p
        for p in sorted((REPO / "evaudit").rglob("*.py"))
        if not (p.parent == COMMANDS and p.name in ALLOWLIST)
    ]
    bad = [
        f"{p.relative_to(REPO)}:{line} :{spec}"
        for p in files
        for line, spec in _numeric_specs(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert not bad, "format figures in the service's report:\n" + "\n".join(bad)


def test_the_check_catches_a_planted_violation(tmp_path: Path) -> None:
    """The three checks see what they are for (a check that passes everything is no check)."""
    src = (
        "import click\n"
        "from campaign.project import open_project\n"
        "from services.integrity import integrity\n"
        "@click.command()\n"
        "def cmd(d):\n"
        "    integrity(open_project(d), 'p')\n"
        "    integrity(d, 'q')\n"
        "    click.echo(f'{1.5:.3f} {2:,}')\n"
        "    click.echo('{:.1%}'.format(0.5), format(3, '5d'))\n"
    )
    tree = ast.parse(src)
    services = _service_functions(tree)
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert _is_command(fn)
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and n.func.id in services]  # fmt: skip
    assert len(calls) == 2
    assert "campaign.project" in _imports(tree)
    assert sorted(s for _, s in _numeric_specs(tree)) == [",", ".1%", ".3f", "5d"]
    # a text spec is not a figure's format
    assert _numeric_specs(ast.parse("f'{name:>10}' f'{x!r}'")) == []
