"""All SQL lives in the stores (docs/architecture.md): outside `campaign/store*.py` no module
imports a database driver (duckdb, psycopg) or runs a statement: it calls no `.execute` /
`.executemany` / `.sql`, handles no connection (`.cursor()`, `.copy()`, `.transaction()`,
`.commit()`, `.rollback()`, `.close()`), and registers no DataFrame as a view (which only
makes sense for a statement that reads it).

The DuckDB store (`campaign/store.py`, `store_load.py`, `store_corpus.py`) and the
PostgreSQL store of the journal backend (`campaign/store_pg*.py`) keep to their own driver.
Benchmarks keep their baseline SQL and tests query stores directly, so both are out of
scope."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.packages import PACKAGES

ROOT = Path(__file__).resolve().parents[1]
DRIVERS = {"duckdb", "psycopg", "psycopg2"}
CALLS = {"execute", "executemany", "sql"}
# Also ordinary method names (`dict.copy()`, a registry's `register`): they count only on
# something named like a connection or cursor (the stores hand out `con` / `conn`).
CONNECTION_CALLS = {
    "register",
    "unregister",
    "cursor",
    "copy",
    "transaction",
    "commit",
    "rollback",
    "close",
}
CONNECTIONS = {"con", "conn", "cur", "cursor"}


def _is_store(rel: str) -> bool:
    return rel == "campaign/store.py" or rel.startswith("campaign/store_")


def _is_pg_store(rel: str) -> bool:
    return rel.startswith("campaign/store_pg")


def _parse(rel: str, text: str) -> ast.Module:
    return ast.parse(text, filename=rel)


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            out.append((rel, _parse(rel, path.read_text(encoding="utf-8"))))
    return out


def _imported(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module) for every import, also those inside functions."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            mod = node.module or ""
            out += [(node.lineno, mod), *((node.lineno, f"{mod}.{a.name}") for a in node.names)]
    return out


def _driver_imports(tree: ast.Module, drivers: set[str] = DRIVERS) -> list[tuple[int, str]]:
    seen = {(n, m.split(".")[0]) for n, m in _imported(tree) if m.split(".")[0] in drivers}
    return sorted(seen)


def _sql_calls(tree: ast.Module) -> list[int]:
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and (
            node.func.attr in CALLS
            or (node.func.attr in CONNECTION_CALLS and _receiver(node) in CONNECTIONS)
        )
    )


def _receiver(node: ast.Call) -> str:
    value = node.func.value  # type: ignore[attr-defined]
    return value.id if isinstance(value, ast.Name) else ""


def _violations(rel: str, tree: ast.Module) -> list[str]:
    found = [f"{rel}:{n}: imports {d}" for n, d in _driver_imports(tree)]
    return found + [f"{rel}:{n}: runs SQL" for n in _sql_calls(tree)]


def test_no_sql_outside_the_stores() -> None:
    found = []
    for rel, tree in _modules():
        if not _is_store(rel):
            found += _violations(rel, tree)
    assert not found, "SQL outside campaign/store*.py:\n" + "\n".join(found)


def test_each_store_keeps_to_its_driver() -> None:
    """The PostgreSQL store never reaches DuckDB or its store, nor the DuckDB store psycopg."""
    duckdb_store = {"campaign.store", "campaign.store_load", "campaign.store_corpus"}
    found = []
    for rel, tree in _modules():
        if not _is_store(rel):
            continue
        if _is_pg_store(rel):
            found += [f"{rel}:{n}: imports duckdb" for n, _ in _driver_imports(tree, {"duckdb"})]
            found += [f"{rel}:{n}: imports {m}" for n, m in _imported(tree) if m in duckdb_store]
        else:
            pg = {"psycopg", "psycopg2"}
            found += [f"{rel}:{n}: imports {d}" for n, d in _driver_imports(tree, pg)]
    assert not found, "\n".join(found)


def test_the_checks_catch_a_planted_violation() -> None:
    planted = (
        "import psycopg\n"
        "from duckdb import connect\n"
        "def f(conn, con, d):\n"
        "    with conn.cursor() as cur:\n"
        "        cur.copy('COPY t FROM STDIN')\n"
        "    con.register('v', d)\n"
        "    with conn.transaction():\n"
        "        d.copy()\n"  # an ordinary dict copy: not SQL
    )
    found = _violations("x.py", _parse("x.py", planted))
    assert found == [
        "x.py:1: imports psycopg",
        "x.py:2: imports duckdb",
        "x.py:4: runs SQL",
        "x.py:5: runs SQL",
        "x.py:6: runs SQL",
        "x.py:7: runs SQL",
    ]
