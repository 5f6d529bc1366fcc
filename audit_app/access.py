"""The app's sign-in: an annotator's token, the admin password and the metrics token.

The annotator registry (its file or PostgreSQL table) is `campaign.registry`'s, adding and
revoking people is `services.annotators`'; the admin password is stored salted and
stretched in `project.json` (see `campaign.project`).

Admin sign-in is throttled per server process and per client address (`admin_sign_in`):
after each wrong password from one client the next try from that client waits twice as
long (1, 2, 4 ... s), and after `LOCKOUT_AFTER` wrong passwords in a row that client is
locked out for `LOCKOUT_SECONDS`. Another client's right password is never refused for
it. Over all clients, `GLOBAL_CAP` wrong passwords within `GLOBAL_WINDOW_SECONDS` pause
every check until the window has room again: one client cannot reach that cap (its own
lockout comes first), so it takes a guessing campaign from many addresses.
`/_stcore/metrics` has its own credential (`check_metrics_token`) and its own throttle
of the same kind (`metrics_sign_in`), so nothing sent there touches admin sign-in.
The state lives in this module (one `ClientThrottles` per project folder and purpose),
so it survives Streamlit reruns and is shared by every browser session of the server;
restarting the server clears it.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from campaign.project import Project, check_metrics_token, verify_secret

__all__ = [
    "SignIn",
    "admin_fingerprint",
    "admin_sign_in",
    "check_admin_password",
    "check_metrics_token",
    "client_throttles",
    "login_throttle",
    "metrics_sign_in",
]


def check_admin_password(project: Project, password: str | None) -> bool:
    if not password:
        return False
    stored = project.settings.get("admin_password")
    if not isinstance(stored, dict):
        return False
    return verify_secret(password, stored)


LOCKOUT_AFTER = 10  # wrong passwords in a row
LOCKOUT_SECONDS = 15 * 60
MAX_DELAY_SECONDS = 300


@dataclass(frozen=True)
class SignIn:
    ok: bool
    message: str  # for the person signing in; empty when ok
    checked: bool = True  # False: refused during a wait without looking at the password


@dataclass
class LoginThrottle:
    """Growing delay and lockout of admin sign-in for one server (see the module doc).

    A try made while a delay or the lockout runs is refused without checking the
    password, so waiting cannot be skipped by guessing faster."""

    clock: Callable[[], float] = time.monotonic
    failures: int = 0
    not_before: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_left(self) -> float:
        return max(0.0, self.not_before - self.clock())

    def idle(self) -> bool:
        """Nothing left to hold against the client: its last wait ended a lockout ago."""
        return self.clock() - self.not_before > LOCKOUT_SECONDS

    def attempt(self, check: Callable[[], bool]) -> SignIn:
        with self.lock:  # one check at a time: concurrent guesses cannot share a window
            left = self.wait_left()
            if left > 0:
                return SignIn(False, self._refusal(left), checked=False)
            if check():
                self.failures, self.not_before = 0, 0.0
                return SignIn(True, "")
            self.failures += 1
            if self.failures >= LOCKOUT_AFTER:
                self.not_before = self.clock() + LOCKOUT_SECONDS
                return SignIn(False, self._refusal(LOCKOUT_SECONDS))
            delay = min(2.0 ** (self.failures - 1), MAX_DELAY_SECONDS)
            self.not_before = self.clock() + delay
            return SignIn(False, f"Wrong password. Wait {delay:.0f} s before the next try.")

    def _refusal(self, left: float) -> str:
        seconds = int(left + 0.999)
        if self.failures >= LOCKOUT_AFTER:
            until = (datetime.now().astimezone() + timedelta(seconds=seconds)).strftime("%H:%M %Z")
            return (
                f"Admin sign-in is locked after {self.failures} wrong passwords in a row, "
                f"until {until} ({seconds // 60 + 1} min). Restart the server "
                "(`evaudit serve`) to unlock it now."
            )
        return f"Too soon after a wrong password: wait {seconds} s before the next try."


@dataclass
class ClientThrottles:
    """One `LoginThrottle` per client address plus a cap over all clients (module doc)."""

    clock: Callable[[], float] = time.monotonic
    clients: dict[str, LoginThrottle] = field(default_factory=dict)
    recent_failures: deque[float] = field(default_factory=deque)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def for_client(self, client: str) -> LoginThrottle:
        with self.lock:
            found = self.clients.get(client)
            if found is None:
                found = self.clients[client] = LoginThrottle(clock=self.clock)
            return found

    def attempt(self, client: str, check: Callable[[], bool]) -> SignIn:
        with self.lock:
            now = self.clock()
            while self.recent_failures and self.recent_failures[0] <= now - GLOBAL_WINDOW_SECONDS:
                self.recent_failures.popleft()
            if len(self.recent_failures) >= GLOBAL_CAP:
                left = self.recent_failures[0] + GLOBAL_WINDOW_SECONDS - now
                return SignIn(
                    False,
                    f"Sign-in is paused: {len(self.recent_failures)} wrong passwords from "
                    f"several addresses in {GLOBAL_WINDOW_SECONDS // 60} minutes. Try again in "
                    f"{int(left + 0.999)} s, or restart the server (`evaudit serve`).",
                    checked=False,
                )
            throttle = self.clients.get(client)
            if throttle is None:
                throttle = self.clients[client] = LoginThrottle(clock=self.clock)
        result = throttle.attempt(check)
        with self.lock:
            if result.checked and not result.ok:
                self.recent_failures.append(self.clock())
            if result.ok or len(self.clients) > MAX_TRACKED_CLIENTS:
                self._forget_idle()
        return result

    def _forget_idle(self) -> None:
        """Drop clients with nothing to remember (keeps memory bounded under a flood)."""
        for name in [n for n, t in self.clients.items() if t.failures == 0 or t.idle()]:
            del self.clients[name]


GLOBAL_CAP = 100  # wrong passwords over all clients per window (one client: at most ~11)
GLOBAL_WINDOW_SECONDS = 15 * 60
MAX_TRACKED_CLIENTS = 10_000
LOCAL_CLIENT = "local"  # a connection from this machine (Streamlit reports no address)

_THROTTLES: dict[tuple[str, str], ClientThrottles] = {}
_THROTTLES_LOCK = threading.Lock()


def client_throttles(project: Project, purpose: str = "admin") -> ClientThrottles:
    """This server's throttles for the project and purpose ("admin" or "metrics")."""
    with _THROTTLES_LOCK:
        return _THROTTLES.setdefault((str(project.root), purpose), ClientThrottles())


def client_key(address: object) -> str:
    """The throttle's key for a client address (`LOCAL_CLIENT` when there is none)."""
    return address if isinstance(address, str) and address else LOCAL_CLIENT


def login_throttle(project: Project, client: str | None = None) -> LoginThrottle:
    """This server's admin sign-in throttle for one client (created on first use)."""
    return client_throttles(project).for_client(client_key(client))


def admin_sign_in(project: Project, password: str | None, client: object = None) -> SignIn:
    """Check the admin password through the server's throttle for this client address."""
    return client_throttles(project).attempt(
        client_key(client), lambda: check_admin_password(project, password)
    )


def admin_fingerprint(project: Project) -> str:
    """Names the stored admin password record: a session signed in under another one (the
    password was changed since, `evaudit admin password`) is signed out."""
    stored = project.settings.get("admin_password")
    if not isinstance(stored, dict):
        return ""
    return hashlib.sha256(json.dumps(stored, sort_keys=True).encode()).hexdigest()


def metrics_sign_in(project: Project, token: str | None, client: object = None) -> SignIn:
    """Check a metrics request's credential through the metrics throttle (never the admin's)."""
    return client_throttles(project, "metrics").attempt(
        client_key(client), lambda: check_metrics_token(project, token)
    )
