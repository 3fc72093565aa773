"""The door of the local web UI: who may talk to the server at all.

A server on 127.0.0.1 is still reachable from every web page the user opens, so each request
must prove it comes from our own page: the Host must be our address (a rebound DNS name is
refused), a browser's Origin must be our own, and every API call carries the per-run token.
"""

from __future__ import annotations

import logging
import secrets

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_HEADER = "x-lore-token"
LOCAL_NAMES = ("127.0.0.1", "localhost")

# The page loads only its own script and style, talks only to its own server, and cannot be framed.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def allowed_hosts(port: int | None) -> set[str] | None:
    """`127.0.0.1:PORT` and `localhost:PORT`; None (port unknown) accepts any port of those names."""
    return None if port is None else {f"{name}:{port}" for name in LOCAL_NAMES}


def _host_ok(host: str, hosts: set[str] | None) -> bool:
    host = host.strip().lower()
    if hosts is not None:
        return host in hosts
    name, _, port = host.rpartition(":") if ":" in host else (host, "", "")
    return name in LOCAL_NAMES and (port == "" or port.isdigit())


class Guard:
    """ASGI middleware: Host check (400), Origin check (403), token on `/api/` (401), headers."""

    def __init__(self, app: ASGIApp, token: str, port: int | None = None):
        self.app = app
        self.token = token
        self.hosts = allowed_hosts(port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # the UI uses no websockets
            await send({"type": "websocket.close", "code": 1008})
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        refusal = self._refusal(host, headers, scope["path"])
        if refusal is not None:
            status, message = refusal
            await self._with_headers(JSONResponse({"error": message}, status_code=status))(
                scope, receive, send
            )
            return
        await self._answering_failures(self._with_headers(self.app), scope, receive, send)

    @staticmethod
    async def _answering_failures(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        """A bug below still answers JSON with the security headers.

        Starlette's own error page sits outside every middleware, so without this an unexpected
        exception would reach the browser as a bare 500 with none of the headers above. The
        traceback goes to the server's log, never into the reply.
        """
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await app(scope, receive, tracking)
        except Exception:
            logging.getLogger("lore.web").exception("unexpected error answering %s", scope.get("path"))
            if started:
                return  # the reply is already on its way; nothing more can be said
            reply = JSONResponse({"error": "internal error; see the server's log"}, status_code=500)
            await Guard._with_headers(reply)(scope, receive, send)

    def _refusal(self, host: str, headers: Headers, path: str) -> tuple[int, str] | None:
        if not _host_ok(host, self.hosts):
            return 400, "this server answers only to 127.0.0.1 and localhost"
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in {
            f"http://{host.lower()}",
            *(f"http://{h}" for h in self.hosts or ()),
        }:
            return 403, "requests from other sites are refused"
        if path.startswith("/api/"):
            given = headers.get(TOKEN_HEADER, "")
            if not secrets.compare_digest(given.encode(), self.token.encode()):
                return 401, "missing or wrong token; open the URL that `lore serve` printed"
        return None

    @staticmethod
    def _with_headers(app: ASGIApp) -> ASGIApp:
        async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
            async def send_with_headers(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
                await send(message)

            await app(scope, receive, send_with_headers)

        return wrapped
