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
  cache sizes) answers 404 unless the server was started with `evaudit serve --metrics`;
  then 401 unless the request carries the project's metrics token (`evaudit admin
  metrics-token DIR`) as a bearer token or as the password of HTTP basic auth, checked
  through a throttle of its own per client address. The admin password is never
  accepted there, and nothing sent there counts against admin sign-in.

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


def metrics_enabled() -> bool:
    """`evaudit serve --metrics` passes `--metrics` after `--`."""
    return "--metrics" in sys.argv[1:]


def basic_password(scope: Scope) -> str | None:
    """The password of an `Authorization: Basic` header (any user name), the token of a
    `Bearer` one, else None."""
    for name, value in scope.get("headers") or ():
        if name.lower() != b"authorization":
            continue
        if value[:7].lower() == b"bearer ":
            return value[7:].strip().decode("latin-1")
        if value[:6].lower() == b"basic ":
            try:
                decoded = base64.b64decode(value[6:].strip(), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError):
                return None
            return decoded.partition(":")[2]
    return None


def metrics_allowed(scope: Scope) -> tuple[bool, str]:
    """Check the metrics token of a request (its own throttle, per client address)."""
    from audit_app.access import metrics_sign_in
    from campaign.project import open_project

    token = basic_password(scope)
    if token is None:
        return False, (
            "metrics need the metrics token (`evaudit admin metrics-token DIR`) as a bearer "
            "token or the password of HTTP basic auth"
        )
    client = scope.get("client")
    result = metrics_sign_in(open_project(project_root()), token, client[0] if client else None)
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
            if not metrics_enabled():
                await _refuse(send, "metrics are off (start the server with --metrics)", 404)
                return
            ok, why = await run_in_threadpool(metrics_allowed, scope)
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


async def _refuse(send: Any, why: str, status: int = 401) -> None:
    title = "Not Found" if status == 404 else "Unauthorized"
    body = f"{status} {title}: {why}\n".encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        *FRAME_HEADERS,
    ]
    if status == 401:
        headers.append((b"www-authenticate", b'Basic realm="evaudit metrics", charset="UTF-8"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


app = st.App(str(Path(__file__).with_name("streamlit_app.py")), middleware=[Middleware(HttpGuard)])
