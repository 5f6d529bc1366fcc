"""People and access: the annotator registry (`annotators.json`) and the admin password.

Tokens are random (`secrets.token_urlsafe(24)`), shown once, and stored only as
SHA-256 (a 192-bit random token needs no salt or stretching). The admin password
is stored salted and stretched in `project.json` (see `campaign.project`).
Registry updates hold an exclusive lock so two concurrent `annotator add` calls
cannot lose each other's entry.

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

import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from campaign import journal_pg
from campaign.project import (
    Project,
    now_iso,
    open_private,
    verify_secret,
    write_json_atomic,
)
from vocabulary.errors import InputError
from vocabulary.jsonread import json_loads, json_problem

ROLES = ("annotator", "adjudicator")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Annotator:
    name: str
    role: str
    packets: tuple[str, ...]
    revoked: bool
    created: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role,
            "packets": list(self.packets),
            "revoked": self.revoked,
            "created": self.created,
        }


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def login_url(token: str, host: str = "127.0.0.1", port: int = 8501) -> str:
    return f"http://{host}:{port}/?{urlencode({'token': token})}"


def read_registry(project: Project, stale_ok: bool = False) -> dict[str, dict[str, Any]]:
    """name -> entry; from PostgreSQL when the project keeps its journals there, so a
    revocation on one server is refused by every other at the next check (`stale_ok`:
    see `journal_pg.read_registry`)."""
    cfg = journal_pg.config_for(project.root)
    if cfg is not None:
        return journal_pg.read_registry(cfg, stale_ok)
    path = project.annotators_path
    if not path.is_file():
        return {}
    try:
        obj = json_loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"corrupt annotator registry ({json_problem(exc)})",
            file=path,
            line=exc.lineno,
        ) from exc
    people = obj.get("annotators") if isinstance(obj, dict) else None
    if not isinstance(people, dict):
        raise InputError("annotator registry has no 'annotators' object", file=path)
    return people


@contextmanager
def _locked_registry(project: Project) -> Iterator[dict[str, dict[str, Any]]]:
    """Read-modify-write the registry under an exclusive lock; written atomically on exit
    (in PostgreSQL: one transaction under a per-campaign advisory lock)."""
    cfg = journal_pg.config_for(project.root)
    if cfg is not None:
        with journal_pg.registry_transaction(cfg) as people:
            yield people
        return
    fd = open_private(project.root / ".annotators.lock", os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        people = read_registry(project)
        yield people
        write_json_atomic(project.annotators_path, {"annotators": people})
    finally:
        os.close(fd)  # closing releases the lock


def _entry(name: str, raw: dict[str, Any]) -> Annotator:
    return Annotator(
        name=name,
        role=str(raw.get("role", "annotator")),
        packets=tuple(raw.get("packets") or ()),
        revoked=bool(raw.get("revoked", False)),
        created=str(raw.get("created", "")),
    )


def add_annotator(
    project: Project, name: str, packets: list[str], role: str = "annotator"
) -> tuple[Annotator, str]:
    """Register a person for packets; returns the entry and the token (shown only now)."""
    if not _NAME.match(name):
        raise InputError(
            f"invalid annotator name {name!r}",
            hint="use letters, digits, '.', '_' or '-' (at most 64 characters)",
        )
    if role not in ROLES:
        raise InputError(f"invalid role {role!r}", hint="use annotator or adjudicator")
    if not packets:
        raise InputError("no packet given", hint="pass --packet NAME (repeatable)")
    for packet in packets:
        if not project.packet_path(packet).is_file():
            raise InputError(
                f"no packet named {packet!r}",
                file=project.packet_path(packet),
                hint="build it with `evaudit packet build` or check the name",
            )
    token = secrets.token_urlsafe(24)
    with _locked_registry(project) as people:
        if name in people:
            raise InputError(
                f"annotator {name!r} already exists",
                file=project.annotators_path,
                hint="choose another name (revoked names stay reserved so journals stay unique)",
            )
        people[name] = {
            "role": role,
            "packets": list(dict.fromkeys(packets)),
            "token_sha256": token_sha256(token),
            "revoked": False,
            "created": now_iso(),
        }
        entry = _entry(name, people[name])
    return entry, token


def list_annotators(project: Project) -> list[Annotator]:
    return [_entry(name, raw) for name, raw in sorted(read_registry(project).items())]


def revoke_annotator(project: Project, name: str) -> Annotator:
    with _locked_registry(project) as people:
        if name not in people:
            raise InputError(
                f"no annotator named {name!r}",
                file=project.annotators_path,
                hint="see `evaudit annotator list DIR`",
            )
        people[name]["revoked"] = True
        entry = _entry(name, people[name])
    return entry


def authenticate(project: Project, token: str | None) -> Annotator | None:
    """The active annotator holding this token, or None (unknown, empty or revoked)."""
    if not token:
        return None
    digest = token_sha256(token)
    found = None
    # While the database is down an open page keeps its sign-in; its saves fail anyway.
    for name, raw in read_registry(project, stale_ok=True).items():
        # Compare every entry in constant time so timing says nothing about which matched.
        if hmac.compare_digest(str(raw.get("token_sha256", "")), digest):
            found = _entry(name, raw)
    if found is None or found.revoked:
        return None
    return found


def check_admin_password(project: Project, password: str | None) -> bool:
    if not password:
        return False
    stored = project.meta().get("admin_password")
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
    stored = project.meta().get("admin_password")
    if not isinstance(stored, dict):
        return ""
    return hashlib.sha256(json.dumps(stored, sort_keys=True).encode()).hexdigest()


def check_metrics_token(project: Project, token: str | None) -> bool:
    """Whether `token` is the project's metrics credential (`evaudit admin metrics-token`)."""
    stored = project.meta().get("metrics_token")
    if not token or not isinstance(stored, dict):
        return False
    return hmac.compare_digest(str(stored.get("sha256", "")), token_sha256(token))


def has_metrics_token(project: Project) -> bool:
    return isinstance(project.meta().get("metrics_token"), dict)


def metrics_sign_in(project: Project, token: str | None, client: object = None) -> SignIn:
    """Check a metrics request's credential through the metrics throttle (never the admin's)."""
    return client_throttles(project, "metrics").attempt(
        client_key(client), lambda: check_metrics_token(project, token)
    )
