"""The layer contract (docs/architecture.md) holds: import-linter's contracts in pyproject.toml
pass, they cover every forbidden arrow of the design, and a planted violation is caught."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.packages import GENERATOR, PACKAGES

ROOT = Path(__file__).resolve().parent.parent

CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
# (importer, imported) pairs the design forbids; each must be covered by a forbidden contract.
REQUIRED = [
    *[("vocabulary", p) for p in PACKAGES if p != "vocabulary"],
    *[(p, "evaudit") for p in PACKAGES if p != "evaudit"],
    ("evaudit", "audit_app"),  # the CLI and the app are peers
    *[(p, GENERATOR) for p in PACKAGES],
    ("scorers", "policies"),
    *[(p, "audit_app") for p in ("services", "scorers", "policies", "packet_builder")],
    *[(p, m) for p in ("scorers", "policies") for m in ("campaign", "duckdb")],
    *[
        (a, m)
        for a in (
            "audit_app.annotator",
            "audit_app.session",
            "audit_app.actions",
            "audit_app.judging",
        )
        for m in ("campaign.store", "campaign.packets", "packet_builder.history", "duckdb")
    ],
]
LINT = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports())"


def _lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LINT], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_every_contract_is_kept() -> None:
    res = _lint(ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 broken" in res.stdout


def test_contracts_cover_every_forbidden_arrow() -> None:
    assert set(CONFIG["root_packages"]) == {*PACKAGES, GENERATOR}
    forbidden = [c for c in CONFIG["contracts"] if c["type"] == "forbidden"]
    missing = [
        (src, dst)
        for src, dst in REQUIRED
        if not any(src in c["source_modules"] and dst in c["forbidden_modules"] for c in forbidden)
    ]
    assert not missing


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("scorers/responses.py", "from policies import repair", "Scorers never import policies"),
        ("vocabulary/tables.py", "import evaudit.output", "Nothing imports the CLI package"),
        ("packet_builder/packets.py", "import audit_app.render", "never imports the app"),
        ("evaudit/commands/app.py", "import audit_app.access", "CLI never imports the app"),
        ("evaudit/commands/app.py", "import audit_app.access", "Layers: CLI|app down"),
        ("services/report.py", "import audit_app.admin", "never imports the app"),
        ("policies/repair.py", "import duckdb", "Scorers and policies stay pure"),
        ("audit_app/judging.py", "from campaign import store", "Annotator-facing modules"),
        ("packet_builder/build.py", "import sample_packets.construction", "generator is a tool"),
    ],
)
def test_a_planted_forbidden_import_is_caught(
    tmp_path: Path, module: str, line: str, contract: str
) -> None:
    for pkg in (*PACKAGES, GENERATOR):
        where = Path(*pkg.split("."))
        ignore = shutil.ignore_patterns("static", "*.pyc")
        shutil.copytree(ROOT / where, tmp_path / where, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    assert _lint(tmp_path).returncode == 0
    with (tmp_path / module).open("a", encoding="utf-8") as f:
        f.write(f"\n{line}  # noqa\n")
    res = _lint(tmp_path)
    assert res.returncode != 0
    broken = [ln for ln in res.stdout.splitlines() if ln.endswith("BROKEN") or "BROKEN (" in ln]
    assert any(contract in ln for ln in broken), res.stdout
