"""Registry, tokens, admin password, response export/import and the CLI for them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from audit_app import access
from audit_app.session import AnnotatorSession, ItemState
from campaign import journal, registry
from evaudit.cli import cli
from services import annotators
from services.responses import export_responses, import_responses
from tests.app_fixture import PASSWORD, build
from vocabulary.errors import InputError, InputErrors
from vocabulary.gates import ConditionAnswer


@pytest.fixture
def fx(tmp_path: Path):
    return build(tmp_path / "proj")


def test_add_stores_only_token_hash_and_authenticates(fx) -> None:
    _entry, token = annotators.add_annotator(fx.project, "alice", ["initial"])
    raw = fx.project.annotators_path.read_text()
    assert token not in raw
    assert hashlib.sha256(token.encode()).hexdigest() in raw
    assert len(token) >= 32
    who = registry.authenticate(fx.project, token)
    assert who is not None and who.name == "alice" and who.packets == ("initial",)
    assert registry.authenticate(fx.project, token + "x") is None
    assert registry.authenticate(fx.project, "") is None
    annotators.revoke_annotator(fx.project, "alice")
    assert registry.authenticate(fx.project, token) is None
    assert [p.revoked for p in registry.list_annotators(fx.project)] == [True]


def test_add_rejects_bad_input(fx) -> None:
    annotators.add_annotator(fx.project, "alice", ["initial"])
    with pytest.raises(InputError, match="already exists"):
        annotators.add_annotator(fx.project, "alice", ["initial"])
    with pytest.raises(InputError, match="no packet named"):
        annotators.add_annotator(fx.project, "bob", ["nope"])
    with pytest.raises(InputError, match="invalid annotator name"):
        annotators.add_annotator(fx.project, "../evil", ["initial"])
    with pytest.raises(InputError, match="invalid role"):
        annotators.add_annotator(fx.project, "bob", ["initial"], role="boss")


def test_admin_password(fx) -> None:
    assert access.check_admin_password(fx.project, PASSWORD)
    assert not access.check_admin_password(fx.project, "wrong")
    assert not access.check_admin_password(fx.project, "")


def _answered(fx, item_id: str) -> ItemState:
    answers = {}
    for i, ckey in enumerate(("C1", "C2")):
        pkey = f"{item_id}-{ckey}-A"
        answers[ckey] = (
            ConditionAnswer("yes", (pkey,), {pkey: fx.quotes[pkey]})
            if i == 0
            else ConditionAnswer("no")
        )
    return ItemState(answers)


def test_export_import_roundtrip(fx, tmp_path: Path) -> None:
    annotators.add_annotator(fx.project, "alice", ["initial"])
    session = AnnotatorSession.open(
        fx.project.packets_dir, fx.project.journals_dir, "initial", "alice"
    )
    session.save("J001", _answered(fx, "J001"))
    session.save("J002", ItemState({"C1": ConditionAnswer("yes")}))
    doc = export_responses(fx.project, "initial", "alice")
    assert doc["format"] == "evaudit-responses" and set(doc["items"]) == {"J001", "J002"}
    assert doc["items"]["J001"]["complete"] is True
    assert doc["items"]["J002"]["complete"] is False
    path = tmp_path / "resp.json"
    # Importing an unchanged export appends nothing; a changed item appends one line.
    path.write_text(json.dumps(doc))
    assert import_responses(fx.project, path)["imported"] == 0
    doc["items"]["J002"] = {**doc["items"]["J001"], "conditions": _answered(fx, "J002").answers}
    doc["items"]["J002"]["conditions"] = {
        k: v.to_json() for k, v in _answered(fx, "J002").answers.items()
    }
    path.write_text(json.dumps(doc))
    result = import_responses(fx.project, path)
    assert result["imported"] == 1 and result["unchanged"] == 1 and result["complete"] == 2
    lines = journal.read_journal(session.journal_path).lines
    assert [ln["seq"] for ln in lines] == [1, 2, 3]
    assert journal.latest_by_item(lines)["J002"]["complete"] is True


def test_import_reports_every_problem_and_writes_nothing(fx, tmp_path: Path) -> None:
    annotators.add_annotator(fx.project, "alice", ["initial"])
    pk = "J001-C1-A"
    bad = {
        "format": "evaudit-responses",
        "version": 1,
        "packet_id": "initial",
        "packet_sha256": "0" * 64,
        "annotator": "mallory",
        "items": {
            "J999": {"conditions": {}},
            "J001": {
                "conditions": {
                    "C1": {
                        "answer": "yes",
                        "pages": [pk],
                        "quotes": {pk: "not on the page at all"},
                    },
                    "C2": {"answer": "maybe", "pages": ["J001-C1-B"], "quotes": {}},
                    "C9": {"answer": "no", "pages": [], "quotes": {}},
                },
                "complete": True,
            },
        },
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(InputErrors) as err:
        import_responses(fx.project, path)
    text = "\n".join(err.value.all_lines())
    for needle in (
        "packet hash",
        "unknown annotator 'mallory'",
        "J999: not an item",
        "the quote is not on this page",
        "answer must be yes, no or null",
        "page J001-C1-B is not in this condition's candidate pool",
        "condition C9 is not a condition of this item",
    ):
        assert needle in text, needle
    assert all(line.startswith(str(path)) for line in err.value.all_lines())
    assert not list(fx.project.journals_dir.rglob("*.jsonl"))


def test_cli_annotator_and_responses(fx, tmp_path: Path) -> None:
    runner = CliRunner()
    root = str(fx.project.root)
    out = runner.invoke(cli, ["annotator", "add", root, "bob", "--packet", "initial", "--json"])
    assert out.exit_code == 0, out.output
    obj = json.loads(out.stdout)
    assert set(obj) == {"name", "token", "url"} and obj["token"] in obj["url"]
    listed = json.loads(runner.invoke(cli, ["annotator", "list", root, "--json"]).stdout)
    assert listed["annotators"][0]["name"] == "bob"
    assert "token" not in json.dumps(listed)
    dup = runner.invoke(cli, ["annotator", "add", root, "bob", "--packet", "initial"])
    assert dup.exit_code != 0 and "already exists" in dup.stderr and "Traceback" not in dup.output
    exp = runner.invoke(
        cli, ["responses", "export", root, "--packet", "initial", "--annotator", "bob"]
    )
    assert exp.exit_code == 0 and json.loads(exp.stdout)["items"] == {}
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    res = runner.invoke(cli, ["responses", "import", root, str(broken)])
    assert res.exit_code != 0 and f"{broken}:1:" in res.stderr
    rev = runner.invoke(cli, ["annotator", "revoke", root, "bob", "--json"])
    assert json.loads(rev.stdout)["revoked"] is True
    missing = runner.invoke(cli, ["annotator", "revoke", root, "zed"])
    assert missing.exit_code != 0 and "no annotator named 'zed'" in missing.stderr


class _Clock:
    """A clock the test moves by hand (the throttle takes any monotonic clock)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_login_delay_grows_and_locks_out(fx) -> None:
    clock = _Clock()
    throttle = access.LoginThrottle(clock=clock)
    checked: list[str] = []

    def check(pw: str):
        return lambda: (checked.append(pw), access.check_admin_password(fx.project, pw))[1]

    first = throttle.attempt(check("wrong-1"))
    assert first == access.SignIn(False, "Wrong password. Wait 1 s before the next try.")
    # During the wait even the right password is refused, and not even checked.
    early = throttle.attempt(check(PASSWORD))
    assert not early.ok and early.message.startswith("Too soon after a wrong password: wait 1 s")
    assert checked == ["wrong-1"]
    delays = []
    for i in range(2, access.LOCKOUT_AFTER):
        clock.now += throttle.wait_left()
        result = throttle.attempt(check(f"wrong-{i}"))
        delays.append(int(result.message.split("Wait ")[1].split(" s")[0]))
    assert delays == [2, 4, 8, 16, 32, 64, 128, 256]
    clock.now += throttle.wait_left()
    locked = throttle.attempt(check("wrong-10"))
    assert "Admin sign-in is locked after 10 wrong passwords in a row" in locked.message
    assert "Restart the server (`evaudit serve`) to unlock it now." in locked.message
    clock.now += access.LOCKOUT_SECONDS - 1
    still = throttle.attempt(check(PASSWORD))
    assert not still.ok and "is locked" in still.message and checked[-1] == "wrong-10"
    clock.now += 1
    assert throttle.attempt(check(PASSWORD)).ok  # after the lockout the right one works
    assert throttle.failures == 0 and throttle.wait_left() == 0
    assert throttle.attempt(check("again")).message.endswith("Wait 1 s before the next try.")


def test_admin_page_throttle_is_shared_by_sessions_and_survives_reruns(fx, monkeypatch) -> None:
    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parent.parent / "audit_app" / "streamlit_app.py")
    monkeypatch.setenv("EVAUDIT_PROJECT", str(fx.project.root))
    at = AppTest.from_file(app, default_timeout=60).run()
    at.text_input[0].input("not the password")
    at.button[0].click().run()
    assert [e.value for e in at.error] == ["Wrong password. Wait 1 s before the next try."]
    # A second browser session (a fresh AppTest) right away: refused, even the right one.
    other = AppTest.from_file(app, default_timeout=60).run()
    other.text_input[0].input(PASSWORD)
    other.button[0].click().run()
    assert other.error[0].value.startswith("Too soon after a wrong password")
    assert "## Campaign admin" not in [m.value for m in other.markdown]
    access.login_throttle(fx.project).not_before = 0.0  # the wait is over
    other.text_input[0].input(PASSWORD)
    other.button[0].click().run()
    assert "## Campaign admin" in [m.value for m in other.markdown]


def test_throttle_is_per_client_with_a_global_cap(fx) -> None:
    clock = _Clock()
    throttles = access.ClientThrottles(clock=clock)

    def check(pw: str):
        return lambda: access.check_admin_password(fx.project, pw)

    # One client locks itself out; another client's right password is never refused.
    for i in range(access.LOCKOUT_AFTER):
        clock.now += throttles.for_client("10.0.0.1").wait_left()
        assert not throttles.attempt("10.0.0.1", check(f"wrong-{i}")).ok
    assert "is locked" in throttles.attempt("10.0.0.1", check(PASSWORD)).message
    assert throttles.attempt("10.0.0.2", check(PASSWORD)).ok
    # One client alone never reaches the cap: locked out again after each further guess.
    clock.now += access.LOCKOUT_SECONDS
    assert not throttles.attempt("10.0.0.1", check("wrong-again")).ok
    assert "is locked" in throttles.attempt("10.0.0.1", check("x")).message
    # Its ten earlier guesses took 511 s of waits and 900 s of lockout: out of the window.
    assert len(throttles.recent_failures) == 1
    # Many addresses, one wrong guess each: the cap pauses every check, then lifts.
    clock.now += access.GLOBAL_WINDOW_SECONDS
    for n in range(access.GLOBAL_CAP):
        assert throttles.attempt(f"10.1.{n // 250}.{n % 250}", check("guess")).checked
    paused = throttles.attempt("10.0.0.3", check(PASSWORD))
    assert not paused.ok and not paused.checked
    assert paused.message.startswith(f"Sign-in is paused: {access.GLOBAL_CAP} wrong passwords")
    clock.now += access.GLOBAL_WINDOW_SECONDS
    assert throttles.attempt("10.0.0.3", check(PASSWORD)).ok
    # A success forgets clients with nothing to hold against them (memory stays bounded).
    assert "10.0.0.2" not in throttles.clients and "10.0.0.3" not in throttles.clients
    assert "10.0.0.1" in throttles.clients  # still locked out: kept


def test_a_project_handle_reads_project_json_once(fx, monkeypatch: pytest.MonkeyPatch) -> None:
    """What an admin page run or a metrics request asks of project.json (format, admin
    password, its fingerprint, the metrics token) is read once per handle; a write through
    the handle is seen by it."""
    from campaign.init import new_metrics_token, set_admin_password
    from campaign.project import Project, has_metrics_token, open_project

    reads: list[Path] = []
    real = Project.meta

    def counted(self: Project) -> dict:  # type: ignore[type-arg]
        reads.append(self.root)
        return real(self)

    monkeypatch.setattr(Project, "meta", counted)
    project = open_project(fx.project.root)
    assert access.check_admin_password(project, PASSWORD)
    before = access.admin_fingerprint(project)
    assert not access.check_metrics_token(project, "nope")
    assert not has_metrics_token(project)
    assert len(reads) == 1
    set_admin_password(project, "a fresh and rather long passphrase 42")
    assert access.admin_fingerprint(project) != before
    token = new_metrics_token(project)
    assert access.check_metrics_token(project, token)
