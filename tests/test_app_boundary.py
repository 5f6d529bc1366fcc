"""The annotator-facing code never reaches admin data (static half; the runtime half, which
files an annotator session opens, is in test_app_page.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.packages import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
ANNOTATOR = ROOT / "audit_app" / "annotator"
# Project modules the annotator code may never import, directly or through others.
FORBIDDEN = (
    "duckdb",
    "pandas",
    # The DuckDB store; the PostgreSQL store (`campaign.store_pg`) holds the journal, which
    # the annotator's session reads, but not its override log.
    "campaign.store",
    "campaign.store_load",
    "campaign.store_corpus",
    "campaign.store_pg_overrides",
    "campaign.packets",  # admin keys and the registry
    "campaign.overrides",
    "packet_builder.build",
    "packet_builder.packets",
    "audit_app.admin",
    "audit_app.render",
    "services.demo",
    "services.simulate",
    "services.serving",
    "services.admin",
    "scorers",
)
# Names that would mean reading admin data from annotator code.
FORBIDDEN_NAMES = (
    "keys_dir",
    "key_path",
    ".key.json",
    "store_path",
    "audit.duckdb",
    "iter_journals",
    "latest_states",
    "admin_password",
    "read_admin_key",
    "read_streams",
)
LOCAL = PACKAGES


def _imports(path: Path, *, nested: bool = True) -> set[str]:
    """Imported module names; `nested=False` keeps only module-level imports (what importing
    the module loads), `nested=True` also those inside functions."""
    out: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree) if nested else tree.body:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def _module_file(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _closure(files: list[Path]) -> set[str]:
    """Every module loaded transitively: all imports of `files` (even inside functions),
    then the module-level imports of this repository's modules they reach."""
    seen: set[str] = set()
    todo = [imp for f in files for imp in _imports(f)]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name.split(".")[0] in LOCAL:
            path = _module_file(name)
            if path is not None:
                todo.extend(_imports(path, nested=False))
    return seen


def test_annotator_import_closure_has_no_admin_module() -> None:
    files = sorted(ANNOTATOR.glob("*.py"))
    assert files
    reached = _closure(files)
    bad = sorted(m for m in reached if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
    assert not bad, f"annotator code reaches {bad}"


def test_annotator_source_names_no_admin_artefact() -> None:
    session = (ROOT / "audit_app" / "session.py", ROOT / "campaign" / "annotation.py")
    for path in [*ANNOTATOR.glob("*.py"), *session]:
        text = path.read_text(encoding="utf-8")
        hits = [n for n in FORBIDDEN_NAMES if n in text]
        assert not hits, f"{path.name} mentions {hits}"


def test_entry_script_routes_token_links_only_to_annotator_code() -> None:
    tree = ast.parse((ROOT / "audit_app" / "streamlit_app.py").read_text(encoding="utf-8"))
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    branch = next(
        n for n in ast.walk(main) if isinstance(n, ast.If) and "token" in ast.unparse(n.test)
    )
    inside = ast.unparse(ast.Module(body=branch.body, type_ignores=[]))
    assert "audit_app.annotator" in inside and "admin" not in inside
    assert isinstance(branch.body[-1], ast.Return)  # the admin code below is never reached
