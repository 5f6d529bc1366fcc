"""Admin page (AppTest): the label-error estimate is shown on request, with the CLI's figures,
or the CLI's reason when the audit is not final."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.simulate import simulate
from tests.app_fixture import PASSWORD, build

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "audit_app" / "streamlit_app.py")
EVAUDIT = str(ROOT / ".venv" / "bin" / "evaudit")


def test_estimate_button_shows_the_cli_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fx = build(tmp_path / "proj", items=8, conditions=2, pages=3)
    simulate(fx.project, "initial", ("alice", "bob"))
    res = subprocess.run([EVAUDIT, "agreement", "estimate", str(fx.project.root), "initial"],
                         capture_output=True, text=True)  # fmt: skip
    monkeypatch.setenv("EVAUDIT_PROJECT", str(fx.project.root))
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input[0].input(PASSWORD)
    at.button[0].click().run()
    assert not at.exception
    button = next(b for b in at.button if b.key == "estimate_initial")
    button.click().run()
    assert not at.exception
    shown = " ".join(str(x.value) for x in at.info) + " ".join(
        str(df.value.to_dict()) for df in at.dataframe
    )
    if res.returncode != 0:  # the audit is not final: the page gives the CLI's reason
        reason = res.stderr.strip().removeprefix("error: ")
        assert f"No estimate yet: {reason}" in shown
    else:
        assert "grade changes (all judged qrels)" in shown
