"""An admin nobody can lock out, against the real `evaudit serve --metrics` and Chromium:
wrong metrics credentials never refuse the admin, one client's wrong passwords never
refuse another's right one, weak passwords are refused, `evaudit admin password` signs
open admin sessions out.

Client addresses: the server listens on 127.0.0.1, which uvicorn trusts as a proxy, so a
request's `X-Forwarded-For` names its client, as nginx's would (docs/deploy.md).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit_app import access
from campaign.init import password_problem
from services.simulate import simulate
from tests.app_fixture import PASSWORD, Fixture, build  # browser: tests/browser_fixture.py
from tests.test_app_served import free_port, get

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
EVAUDIT = str(ROOT / ".venv" / "bin" / "evaudit")
T = 60_000  # ms: the machine is shared; nothing asserts on time
NEW_PASSWORD = "violet-harbour-quilt-47"


def cli(*args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([EVAUDIT, *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == expect, proc.stderr
    return proc


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Fixture, str, str]]:
    fx = build(tmp_path_factory.mktemp("admin") / "proj", items=2, conditions=1, pages=2)
    simulate(fx.project, "initial", ("alice", "bob"))  # raters to pick on the admin page
    root = str(fx.project.root)
    refused = cli("serve", root, "--metrics", expect=2)
    assert "--metrics needs a metrics token" in refused.stderr
    assert f"evaudit admin metrics-token {root}" in refused.stderr
    token = json.loads(cli("admin", "metrics-token", root, "--json").stdout)["metrics_token"]
    port = free_port()
    log = (fx.project.root.parent / "serve.log").open("ab")
    proc = subprocess.Popen(
        [EVAUDIT, "serve", root, "--port", str(port), "--metrics"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if get(base + "/_stcore/health")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        raise RuntimeError("server did not start")
    yield fx, base, token
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


def metrics(base: str, *, auth: str | None = None, bearer: str | None = None, client: str = ""):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(base + "/_stcore/metrics")
    if auth is not None:
        import base64

        request.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    if bearer is not None:
        request.add_header("Authorization", f"Bearer {bearer}")
    if client:
        request.add_header("X-Forwarded-For", client)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def admin_form(browser, base: str, password: str, client: str = ""):
    """A fresh browser (its own session) with the admin password typed, not yet sent."""
    headers = {"X-Forwarded-For": client} if client else {}
    context = browser.new_context(
        viewport={"width": 1400, "height": 900}, extra_http_headers=headers
    )
    page = context.new_page()
    page.goto(base + "/")
    page.get_by_label("Admin password").fill(password)
    return page


def sign_in(browser, base: str, password: str, client: str = ""):
    page = admin_form(browser, base, password, client)
    page.get_by_role("button", name="Sign in").click()
    return page


def spaced_guesses(guess, rounds: int) -> str:
    """`rounds` wrong tries, each after the wait the last one announced (as an attacker
    would space them to make each count); returns the last answer."""
    answer = guess()
    for _ in range(rounds - 1):
        wait = re.search(r"Wait (\d+) s before the next try", answer)
        assert wait is not None, answer
        time.sleep(int(wait.group(1)) + 0.3)
        answer = guess()
    return answer


def test_metrics_need_their_own_token_and_never_lock_out_the_admin(served, browser) -> None:
    _fx, base, token = served
    status, body = metrics(base)
    assert status == 401 and "session_events" not in body and "metrics token" in body
    assert metrics(base, bearer=token)[0] == 200
    status, body = metrics(base, auth=f"prometheus:{token}")
    assert status == 200 and "session_events" in body
    # The admin password is not the metrics credential.
    assert metrics(base, auth=f"admin:{PASSWORD}", client="198.51.100.9")[0] == 401
    # An annotator guesses there, spacing the guesses by the announced waits ...
    admin = admin_form(browser, base, PASSWORD, client="198.51.100.7")
    last = spaced_guesses(lambda: metrics(base, auth="x:guess", client="198.51.100.7")[1], 4)
    assert last.endswith("Wrong password. Wait 8 s before the next try.\n")
    assert "Too soon" in metrics(base, auth="x:guess", client="198.51.100.7")[1]
    # ... which neither refuses the right token from another client nor the admin, even
    # from the guesser's own address, within the guesser's 8 s wait.
    assert metrics(base, bearer=token, client="198.51.100.8")[0] == 200
    admin.get_by_role("button", name="Sign in").click()
    admin.get_by_text("Campaign admin").wait_for(timeout=T)
    admin.context.close()


def test_one_clients_wrong_password_never_refuses_anothers_right_one(served, browser) -> None:
    _fx, base, _token = served
    admin = admin_form(browser, base, PASSWORD, client="203.0.113.6")
    guesser = admin_form(browser, base, "not-the-password-1", client="203.0.113.5")

    def guess() -> str:
        guesser.get_by_role("button", name="Sign in").click()
        alert = guesser.get_by_text(re.compile(r"Wrong password\. Wait \d+ s")).last
        alert.wait_for(timeout=T)
        text = alert.inner_text()
        guesser.reload()  # the next try starts from a clean form (same browser session)
        guesser.get_by_label("Admin password").fill("not-the-password-1")
        return text

    assert spaced_guesses(guess, 4).endswith("Wait 8 s before the next try.")
    guesser.get_by_label("Admin password").fill(PASSWORD)
    guesser.get_by_role("button", name="Sign in").click()  # during its own wait
    guesser.get_by_text("Too soon after a wrong password").wait_for(timeout=T)
    admin.get_by_role("button", name="Sign in").click()  # right away, another client
    admin.get_by_text("Campaign admin").wait_for(timeout=T)
    assert "Too soon" not in admin.inner_text("body")
    guesser.context.close()
    admin.context.close()


def test_weak_passwords_are_refused_with_a_clear_message(tmp_path: Path, served) -> None:
    for weak in (" " * 12, "a" * 12, "password1234"):
        proc = cli("init", str(tmp_path / "p"), "--admin-password", weak, expect=2)
        line = proc.stderr.strip()
        assert line.startswith("error: ") and "\n" not in line
        assert "admin password is too easy to guess (zxcvbn strength" in line, line
        assert "(choose a longer --admin-password" in line  # the fix
        assert not (tmp_path / "p").exists()
    assert "Repeats like" in (password_problem("a" * 12) or "")
    assert password_problem(NEW_PASSWORD) is None
    fx, _base, _token = served
    before = fx.project.meta_path.read_bytes()
    proc = cli("admin", "password", str(fx.project.root), "aaaaaaaaaaaa", expect=2)
    assert "too easy to guess" in proc.stderr
    assert fx.project.meta_path.read_bytes() == before  # nothing written


def test_admin_password_signs_out_open_sessions(served, browser) -> None:
    fx, base, _token = served
    page = sign_in(browser, base, PASSWORD, client="192.0.2.10")
    page.get_by_text("Campaign admin").wait_for(timeout=T)
    cli("admin", "password", str(fx.project.root), NEW_PASSWORD)
    assert access.check_admin_password(fx.project, NEW_PASSWORD)
    assert not access.check_admin_password(fx.project, PASSWORD)
    page.get_by_role("button", name="Sign out").wait_for(timeout=T)
    page.get_by_role("tab", name="Agreement").click()
    page.locator("[data-testid=stMultiSelect] input").first.click()  # a rater: next run
    page.get_by_role("option", name="alice").click()
    page.get_by_text("The admin password was changed: sign in with the new one.").wait_for(
        timeout=T
    )
    assert "Campaign admin" not in page.inner_text("body")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("Wrong password. Wait 1 s before the next try.").wait_for(timeout=T)
    page.context.close()
    fresh = sign_in(browser, base, NEW_PASSWORD, client="192.0.2.11")
    fresh.get_by_text("Campaign admin").wait_for(timeout=T)
    fresh.context.close()
