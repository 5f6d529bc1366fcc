"""Shared fixtures: real PDFs made with PyMuPDF, real project folders, the real CLI."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from evaudit.cli import cli

# the real PostgreSQL server (pg_server, pg_url); headless Chromium (chromium_path, browser)
pytest_plugins = ["tests.pg_fixture", "tests.browser_fixture"]

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_packets"


@pytest.fixture(autouse=True)
def _keep_main_module() -> Iterator[None]:
    """Streamlit's AppTest leaves its script as `sys.modules["__main__"]`; a later
    'spawn' process pool then re-runs that script in every worker, which dies (a
    from_function script is not runnable alone) and is respawned without end."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


def make_pdf(path: Path, pages: Sequence[str]) -> Path:
    """A real PDF with one text page per entry (wrapped into the page box)."""
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text, fontsize=10)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def run_cli(*args: Any, expect: int | None = 0) -> Result:
    """Invoke `evaudit` in-process; asserts the exit code unless expect is None."""
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    if expect is not None:
        assert result.exit_code == expect, (result.exit_code, result.output, result.stderr)
    return result


def cli_json(*args: Any) -> Any:
    result = run_cli(*args, "--json")
    return json.loads(result.stdout)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An initialised, empty project folder."""
    root = tmp_path / "proj"
    run_cli("init", root, "--admin-password", "pw-for-tests")
    return root
