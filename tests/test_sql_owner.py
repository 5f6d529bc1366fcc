"""All DuckDB SQL lives in the store (docs/architecture.md): outside `campaign/store*.py`
no module imports duckdb or calls `.execute` / `.executemany` / `.sql` (or registers a
DataFrame as a view, which only makes sense for a statement that reads it).

The PostgreSQL journal backend has its own SQL on psycopg connections; those modules are
named here, and must not reach DuckDB or the store either. Benchmarks keep their baseline
SQL and tests query stores directly, so both are out of scope."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "campaign",
    "packet_builder",
    "services",
    "evaudit",
    "audit_app",
    "scorers",
    "policies",
    "vocabulary",
)
CALLS = {"execute", "executemany", "sql", "register", "unregister"}
# psycopg (PostgreSQL) SQL: the journal backend and the override log stored beside it.
POSTGRES = {"campaign/journal_pg.py", "campaign/overrides.py"}


def _is_store(rel: str) -> bool:
    return rel == "campaign/store.py" or rel.startswith("campaign/store_")


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not _is_store(rel):
                out.append((rel, ast.parse(path.read_text(encoding="utf-8"), filename=rel)))
    return out


def _duckdb_imports(tree: ast.Module) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(n.split(".")[0] == "duckdb" for n in names):
            lines.append(node.lineno)
    return lines


def _sql_calls(tree: ast.Module) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CALLS
        # `x.register(...)` is also an ordinary method name; only calls on something named
        # like a connection count (the store hands out `con`).
        and (node.func.attr not in {"register", "unregister"} or _receiver(node) in {"con", "conn"})
    ]


def _receiver(node: ast.Call) -> str:
    value = node.func.value  # type: ignore[attr-defined]
    return value.id if isinstance(value, ast.Name) else ""


def test_no_duckdb_sql_outside_the_store() -> None:
    found = []
    for rel, tree in _modules():
        found += [f"{rel}:{n}: imports duckdb" for n in _duckdb_imports(tree)]
        if rel not in POSTGRES:
            found += [f"{rel}:{n}: runs SQL" for n in _sql_calls(tree)]
    assert not found, "SQL outside campaign/store*.py:\n" + "\n".join(found)


def test_postgres_modules_do_not_reach_the_store() -> None:
    for rel in POSTGRES:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {
            f"{n.module}.{a.name}"
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom)
            for a in n.names
        }
        assert not {"duckdb", "campaign.store"} & names, rel
        assert not _duckdb_imports(tree), rel
