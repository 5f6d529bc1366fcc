"""ASGI entry of `evaudit serve`: Streamlit's own server with evaudit's HTTP guard in front.

`streamlit run audit_app/server.py -- --project DIR` finds the `st.App` below (Streamlit
1.67 discovers a module-level `app`) and serves `streamlit_app.py` through uvicorn, with
`HttpGuard` as the outermost middleware of every HTTP request:

* every response carries `X-Frame-Options: SAMEORIGIN` and
  `Content-Security-Policy: frame-ancestors 'self'`, so no other site can frame the app
  (click-jacking an annotator into answering), plus `X-Content-Type-Options: nosniff`
  and `Referrer-Policy: no-referrer` (login URLs carry the token: a link followed from
  the app must not send it to another site);
* `/_stcore/metrics` (Streamlit's unauthenticated Prometheus endpoint: session counts,
  cache sizes) answers 401 unless the request carries HTTP basic auth whose password is
  the admin password, checked through the same per-server throttle as the sign-in form.

Streamlit has no config option for either (docs/deploy.md).
"""

from __future__ import annotations

import base64
import binascii
import os
import posixpath
import sys
from pathlib import Path
from typing import Any

import streamlit as st
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware

FRAME_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"content-security-policy", b"frame-ancestors 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
METRICS = "/_stcore/metrics"

Scope = dict[str, Any]


def project_root() -> Path:
    """The served project: `--project DIR` after `--` (as the page script reads it)."""
    argv = sys.argv[1:]
    if "--project" in argv[:-1]:
        return Path(argv[argv.index("--project") + 1]).resolve()
    return Path(os.environ.get("EVAUDIT_PROJECT", ".")).resolve()


def is_metrics(path: str) -> bool:
    """Whether a request path reaches the metrics route (any base path, `//`, trailing `/`)."""
    normal = posixpath.normpath("/" + path.lstrip("/"))
    return normal == METRICS or normal.endswith(METRICS)


def basic_password(scope: Scope) -> str | None:
    """The password of an `Authorization: Basic` header (any user name), else None."""
    for name, value in scope.get("headers") or ():
        if name.lower() == b"authorization" and value[:6].lower() == b"basic ":
            try:
                decoded = base64.b64decode(value[6:].strip(), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError):
                return None
            return decoded.partition(":")[2]
    return None


def admin_allowed(scope: Scope) -> tuple[bool, str]:
    """Check the admin password of a metrics request (throttled; blocking, PBKDF2)."""
    from audit_app.access import admin_sign_in
    from campaign.project import open_project

    password = basic_password(scope)
    if password is None:
        return False, "metrics are for the admin: HTTP basic auth with the admin password"
    result = admin_sign_in(open_project(project_root()), password)
    return result.ok, result.message


class HttpGuard:
    """Pure ASGI middleware (so it wraps streaming and WebSocket traffic untouched)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if is_metrics(str(scope.get("path", ""))):
            ok, why = await run_in_threadpool(admin_allowed, scope)
            if not ok:
                await _refuse(send, why)
                return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [h for h in FRAME_HEADERS if h[0] not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refuse(send: Any, why: str) -> None:
    body = f"401 Unauthorized: {why}\n".encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Basic realm="evaudit admin", charset="UTF-8"'),
                *FRAME_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


app = st.App(str(Path(__file__).with_name("streamlit_app.py")), middleware=[Middleware(HttpGuard)])
