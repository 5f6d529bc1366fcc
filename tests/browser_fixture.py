"""Headless Debian Chromium for the `evaudit serve` browser tests (a pytest plugin).

`chromium_path` skips, with the reason, when the Debian package is not installed;
`browser` is one Chromium per test module. Tests with their own launch options
(the offline HTML and served-app tests) define their own `browser`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium missing: apt-get install chromium")
    return CHROMIUM


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=ARGS)
        yield b
        b.close()
