"""`evaudit demo` (the README's first command) as a user runs it, without serving.

The served app is driven in Chromium by the app tests; this checks what the demo builds:
a project with the sample's packet, working login links and admin password, and the
simulated journals whose line counts it prints.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from audit_app.access import check_admin_password
from campaign import journal
from campaign.packets import list_packets
from campaign.project import open_project
from campaign.registry import authenticate

ROOT = Path(__file__).resolve().parent.parent
EVAUDIT = str(ROOT / ".venv" / "bin" / "evaudit")


def test_demo_builds_a_project_people_can_sign_in_to(tmp_path: Path) -> None:
    where = tmp_path / "demo"
    out = subprocess.run(
        [EVAUDIT, "demo", "--dir", str(where), "--no-serve", "--simulate", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["dir"] == str(where) and report["packet"] == "initial"
    project = open_project(where)
    assert [p.name for p in list_packets(project)] == ["initial"]
    assert check_admin_password(project, report["admin_password"])
    assert not check_admin_password(project, report["admin_password"] + "x")
    assert sorted(report["urls"]) == ["alice", "bob", "carol"]
    for name, url in report["urls"].items():
        token = parse_qs(urlparse(url).query)["token"][0]
        who = authenticate(project, token)
        assert who is not None and who.name == name
    assert authenticate(project, "not-a-token") is None
    # The simulated annotators' journals hold as many lines as the demo says.
    assert sorted(report["simulated"]) == ["alice", "bob"]
    for name, lines in report["simulated"].items():
        path = journal.journal_path(project.journal_dir("initial"), name)
        assert lines > 0 and len(journal.read_journal(path).lines) == lines, name
    assert not journal.journal_path(project.journal_dir("initial"), "carol").exists()


def test_demo_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    where = tmp_path / "busy"
    where.mkdir()
    (where / "notes.txt").write_text("mine", encoding="utf-8")
    out = subprocess.run(
        [EVAUDIT, "demo", "--dir", str(where), "--no-serve", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert sorted(p.name for p in where.iterdir()) == ["notes.txt"]
