"""The door of the local web UI: who may talk to the server at all.

A server on 127.0.0.1 is still reachable from every web page the user opens, so each request
must prove it comes from our own page: the Host must be our address (a rebound DNS name is
refused), a browser's Origin must be our own, and every API call carries the per-run token.

Opening the printed address (`/?token=...`) also gives the browser an HttpOnly, SameSite=Strict
session cookie: the remote MCP connector's consent page accepts an answer only with it. `/mcp`
itself takes neither: it wants an OAuth bearer token (checked by the MCP SDK's middleware).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from urllib.parse import parse_qs, urlsplit

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


def allowed_hosts(port: int | None, public: str | None = None) -> set[str] | None:
    """`127.0.0.1:PORT` and `localhost:PORT`, and the host of `public` (the address remote
    clients use, when there is one); None (port unknown) accepts any port of the local names."""
    if port is None:
        return None
    hosts = {f"{name}:{port}" for name in LOCAL_NAMES}
    if public:
        parts = urlsplit(public)
        default = {"https": 443, "http": 80}.get(parts.scheme, 0)
        hosts.add((parts.hostname or "").lower() + f":{parts.port or default}")
        if parts.port in (None, default):
            hosts.add((parts.hostname or "").lower())  # a Host without the default port
    return hosts


def session_cookie(port: int | None) -> str:
    """The session cookie's name: one per port, as cookies do not tell ports apart."""
    return "lore_ui" if port is None else f"lore_ui_{port}"


def session_value(token: str) -> str:
    """The cookie's value: derived from the run's token (it dies with the run) but not the token."""
    return hashlib.sha256(b"lore-ui-session\0" + token.encode()).hexdigest()


def _host_ok(host: str, hosts: set[str] | None) -> bool:
    host = host.strip().lower()
    if hosts is not None:
        return host in hosts
    name, _, port = host.rpartition(":") if ":" in host else (host, "", "")
    return name in LOCAL_NAMES and (port == "" or port.isdigit())


class Guard:
    """ASGI middleware: Host check (400), Origin check (403), token on `/api/` (401), headers."""

    def __init__(self, app: ASGIApp, token: str, port: int | None = None, public: str | None = None):
        self.app = app
        self.token = token
        self.hosts = allowed_hosts(port, public)
        parts = urlsplit(public or "")
        self.public_origin = f"{parts.scheme}://{parts.netloc}".lower() if public else None
        secure = "; Secure" if parts.scheme == "https" else ""
        cookie = f"{session_cookie(port)}={session_value(token)}; Path=/; HttpOnly; SameSite=Strict{secure}"
        self.cookie = [(b"set-cookie", cookie.encode())]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # the UI uses no websockets
            await send({"type": "websocket.close", "code": 1008})
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        refusal = self._refusal(host, headers, scope["path"], scope.get("scheme", "http"))
        if refusal is not None:
            status, message = refusal
            await self._with_headers(JSONResponse({"error": message}, status_code=status))(
                scope, receive, send
            )
            return
        extra = self.cookie if self._opens_the_ui(scope) else []
        await self._answering_failures(self._with_headers(self.app, extra), scope, receive, send)

    def _opens_the_ui(self, scope: Scope) -> bool:
        """The printed address itself: `/` with this run's token in the query."""
        if scope["path"] != "/" or scope.get("method") != "GET":
            return False
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        return secrets.compare_digest(given.encode(), self.token.encode())

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

    def _refusal(self, host: str, headers: Headers, path: str, scheme: str) -> tuple[int, str] | None:
        if not _host_ok(host, self.hosts):
            return 400, "this server answers only to 127.0.0.1 and localhost"
        origin = headers.get("origin")
        ours = {f"{scheme}://{h}" for h in (host.lower(), *(self.hosts or ()))}
        if self.public_origin:  # the page as served through a TLS proxy in front
            ours.add(self.public_origin)
        if origin is not None and origin.lower() not in ours:
            return 403, "requests from other sites are refused"
        if path.startswith("/api/"):
            given = headers.get(TOKEN_HEADER, "")
            if not secrets.compare_digest(given.encode(), self.token.encode()):
                return 401, "missing or wrong token; open the URL that `lore serve` printed"
        return None

    @staticmethod
    def _with_headers(app: ASGIApp, extra: list[tuple[bytes, bytes]] | None = None) -> ASGIApp:
        """Add the security headers a reply does not set itself (the consent page sets its own
        CSP, as its form must be able to send the browser back to the client)."""

        async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
            async def send_with_headers(message: Message) -> None:
                if message["type"] == "http.response.start":
                    headers = list(message.get("headers", []))
                    present = {name.lower() for name, _ in headers}
                    headers += [(n, v) for n, v in SECURITY_HEADERS if n not in present]
                    message["headers"] = headers + (extra or [])
                await send(message)

            await app(scope, receive, send_with_headers)

        return wrapped
