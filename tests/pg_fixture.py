"""A real PostgreSQL server for tests, from Debian's binaries (`initdb`, `pg_ctl`).

Started once per test session in a temporary data directory, as an unprivileged user
(PostgreSQL refuses to run as root, and CI runs as root: there the server runs as the
`postgres` system user Debian's package creates, or `evaudit-pg`, made with `useradd`),
listening on a free port of 127.0.0.1 with trust authentication and
`synchronous_commit = on` (a commit returns only once its WAL is flushed). Tests get a
fresh database each (`pg_url`); `PgServer.stop()`/`start()` let a test take the server
away mid-save. Skipped, with the reason, only when the binaries are not installed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_user() -> str | None:
    """The user to run the server as when we are root (None: run as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "evaudit-pg"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "evaudit-pg"],
        check=True,
    )
    return "evaudit-pg"


@dataclass
class PgServer:
    bin_dir: Path
    data_dir: Path
    port: int
    user: str | None

    def _run(self, *args: str) -> None:
        cmd = [str(self.bin_dir / args[0]), *args[1:]]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data_dir), "-U", "evaudit", "-A", "trust", "-E", "UTF8")
        conf = self.data_dir / "postgresql.conf"
        with conf.open("a") as fh:
            fh.write(
                f"\nport = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.data_dir}'\n"
                "synchronous_commit = on\nfsync = on\nmax_connections = 200\n"
            )

    def start(self) -> None:
        log = self.data_dir / "server.log"
        self._run("pg_ctl", "-D", str(self.data_dir), "-l", str(log), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data_dir), "-m", mode, "-w", "stop")

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://evaudit@127.0.0.1:{self.port}/{dbname}"

    def new_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


NOT_INSTALLED = (
    "PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb missing): "
    "`bash scripts/dev.sh setup` installs Debian's postgresql"
)


@contextlib.contextmanager
def temporary_server() -> Iterator[PgServer]:
    """A running server in a fresh data directory, stopped and deleted on exit (also
    used by the benchmarks)."""
    bin_dir = _bin_dir()
    if bin_dir is None:
        raise RuntimeError(NOT_INSTALLED)
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="evaudit-pg-"))
    data = root / "data"
    data.mkdir()
    if user:
        info = pwd.getpwnam(user)
        for p in (root, data):
            os.chown(p, info.pw_uid, info.pw_gid)
    os.chmod(data, 0o700)
    server = PgServer(bin_dir, data, _free_port(), user)
    server.init()
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # a test left it stopped
            server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    if _bin_dir() is None:
        pytest.skip(NOT_INSTALLED)
    with temporary_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """A fresh, empty database on the session's server."""
    return pg_server.new_database()
