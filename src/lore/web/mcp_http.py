"""`lore serve --mcp`: the MCP server over streamable HTTP at `/mcp`, behind OAuth 2.1.

The MCP SDK builds the pieces (its session manager, the authorization endpoints and metadata,
the bearer-token check that answers 401 with `WWW-Authenticate: Bearer resource_metadata=...`);
this module hands it Lore's provider (`oauth.provider`), adds the consent page, and puts its
routes on the web UI's own app, so the guard (Host, Origin) stands in front of all of it and
one port serves the UI and the connector.

Which project: a remote client's paths mean nothing on this machine, so a remote session serves
one project, fixed when the server starts (`--project`, else the current folder when it is a
registered project). Without one, the rules tools answer that no project is served, and the
books and history tools work as usual.

One agent session per remote session: the SDK's session manager runs one server for all
connections, so what each was sent ("once per session") is kept in `RemoteSessions`. A client
speaking a protocol with sessions (up to 2025-11-25: `initialize`, then `mcp-session-id`) gets one
per MCP session, keyed by the id the manager routed the call by. The 2026-07-28 protocol has no
sessions (every request stands alone), so there the unit is the OAuth client that sent it: one
per connector added. A state is dropped when its client ends the session (DELETE), after the
manager's idle time, or, past `MAX_SESSIONS`, least recently used first.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi import FastAPI
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.routes import build_metadata, cors_middleware
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import Context
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import ProtectedResourceMetadata
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lore.core.errors import InvalidInput, NotFound
from lore.mcp.server import build_server
from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.models import Project
from lore.web.guard import LOCAL_NAMES, session_cookie
from lore.web.oauth.consent import Consent
from lore.web.oauth.provider import CONSENT_PATH, SCOPE, Lifetimes, LoreOAuth, same_resource
from lore.web.oauth.registration import RegistrationLimits

MCP_PATH = "/mcp"
IDLE_SECONDS = 30 * 60  # an MCP session without a request for this long ends (SDK and Lore alike)
MAX_SESSIONS = 1000  # open at once; the SDK answers 503 to one more
ROOT_METADATA = "/.well-known/oauth-protected-resource"
SERVER_METADATA = "/.well-known/oauth-authorization-server"
NO_PROJECT = (
    "no project is served over this connection: the rules tools need "
    "`lore serve --mcp --project PATH` (books and history tools work without it)"
)


@dataclass(frozen=True)
class Remote:
    """How the connector is served: the base URL clients reach (the OAuth issuer; `/mcp` under
    it is the resource), the project remote sessions serve, and token lifetimes and clock."""

    base_url: str
    project: Project | None = None
    lifetimes: Lifetimes = field(default_factory=Lifetimes)
    now: Callable[[], float] = time.time
    registrations: RegistrationLimits = field(default_factory=RegistrationLimits)

    @property
    def resource(self) -> str:
        return self.base_url.rstrip("/") + MCP_PATH


def served_project(path: Path | None) -> Project | None:
    """`--project PATH` (it must be registered), else the current folder's project, else None."""
    if path is not None:
        return service.find_project(str(path.expanduser().resolve()))
    try:
        return service.find_project(None, Path.cwd())
    except NotFound:
        return None


class RemoteSession(AgentSession):
    """An agent session that answers for one project only, whatever paths a client sends."""

    def __init__(self, project: Project | None):
        super().__init__(project.path if project else Path.cwd(), client="remote")
        self.project = project

    def resolve(self, *args: Any, **kwargs: Any) -> Any:
        if self.project is None:
            raise InvalidInput(NO_PROJECT)
        return super().resolve(*args, **kwargs)

    def _project_at(self, root: Path) -> tuple[Project, bool]:
        if self.project is None:
            raise InvalidInput(NO_PROJECT)
        if root.resolve() != self.project.path.resolve():
            raise InvalidInput(f"this connection serves project `{self.project.name}` only")
        return self.project, False


class RemoteSessions:
    """The agent session of each remote session (an MCP session, else an OAuth client), made
    on its first tool call.

    Bounded: an entry idle for `idle` seconds is dropped (the SDK ends that MCP session too),
    and past `most` entries the least recently used goes. Tools of sync functions run in
    worker threads, so the table is locked.
    """

    def __init__(
        self,
        project: Project | None,
        *,
        idle: float = IDLE_SECONDS,
        most: int = MAX_SESSIONS,
        now: Callable[[], float] = time.monotonic,
    ):
        self.project, self.idle, self.most, self.now = project, idle, most, now
        self._live: OrderedDict[str, tuple[RemoteSession, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, ctx: Context | None) -> AgentSession:
        token = get_access_token()  # set by the SDK's bearer check for this request
        if token is None:
            return self.session_for(None)
        headers = ctx.headers if ctx is not None else None
        session_id = headers.get(MCP_SESSION_ID_HEADER) if headers else None
        # under the client's own id: a session id sent by another client reaches nothing of this one
        return self.session_for(f"{token.client_id}/{session_id or ''}")

    def session_for(self, key: str | None) -> RemoteSession:
        """`key`'s session, made if new; a call outside any MCP session gets one of its own."""
        if key is None:
            return RemoteSession(self.project)
        now = self.now()
        with self._lock:
            while self._live:  # oldest first: stop at the first one still in use
                oldest, (_, used) = next(iter(self._live.items()))
                if now - used < self.idle:
                    break
                del self._live[oldest]
            found = self._live.pop(key, None)
            session = found[0] if found else RemoteSession(self.project)
            self._live[key] = (session, now)
            while len(self._live) > self.most:
                self._live.popitem(last=False)
        return session

    def end(self, key: str) -> None:
        """Forget what this session was sent."""
        with self._lock:
            self._live.pop(key, None)

    def end_mcp_session(self, session_id: str) -> None:
        """A client ended its MCP session (the SDK checked it was that session's own client)."""
        with self._lock:
            for key in [k for k in self._live if k.endswith("/" + session_id)]:
                del self._live[key]

    def __len__(self) -> int:
        return len(self._live)


class _Ending:
    """`/mcp` as the SDK answers it, plus: a DELETE the SDK accepted (the session's own client
    ending it) drops that session's state at once. A class, not a function: Starlette treats a
    function endpoint as a request handler, an object as an ASGI app."""

    def __init__(self, app: ASGIApp, sessions: RemoteSessions):
        self.app, self.sessions = app, sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = Headers(scope=scope).get(MCP_SESSION_ID_HEADER) if scope.get("method") == "DELETE" else None
        if key is None:
            await self.app(scope, receive, send)
            return
        status: list[int] = []

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        await self.app(scope, receive, watch)
        if status and status[0] < 400:
            self.sessions.end_mcp_session(key)


async def _body(receive: Receive) -> bytes:
    """A request's whole body (the SDK caps the size of what it then reads again)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    """A `receive` that hands the SDK the body already read, once."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _oauth_error(
    status: int, error: str, description: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"error": error, "error_description": description},
        status_code=status,
        headers={"cache-control": "no-store", **(headers or {})},
    )


class _RegistrationGate:
    """`/register` as the SDK answers it, behind the provider's limits: a registration over the
    rate or the cap is answered 429 with `Retry-After`, and never reaches the store."""

    def __init__(self, app: ASGIApp, provider: LoreOAuth):
        self.app, self.provider = app, provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") == "POST":
            refusal = await self.provider.registration_refusal()
            if refusal is not None:
                reply = _oauth_error(
                    429,
                    "temporarily_unavailable",
                    refusal.message,
                    {"retry-after": str(max(1, math.ceil(refusal.retry_after)))},
                )
                await reply(scope, receive, send)
                return
        await self.app(scope, receive, send)


class _TokenTarget:
    """`/token` as the SDK answers it, except that a `resource` naming another server is refused
    with `invalid_target` (RFC 8707 section 2): this server issues tokens for its own `/mcp`
    only, and must not hand out one a client asked to use elsewhere."""

    def __init__(self, app: ASGIApp, resource: str):
        self.app, self.resource = app, resource

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = await _body(receive)
        form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
        foreign = [r for r in form.get("resource", []) if not same_resource(r, self.resource)]
        if foreign:
            reply = _oauth_error(
                400,
                "invalid_target",
                f"this server issues tokens only for {self.resource}, not {foreign[0][:200]}",
            )
            await reply(scope, receive, send)
            return
        await self.app(scope, _replay(body), send)


def _server_metadata(auth: AuthSettings) -> Route:
    """`/.well-known/oauth-authorization-server` as the SDK builds it, plus `none` among the token
    endpoint's auth methods: a public client (PKCE, no secret) is accepted, so it is said."""
    assert auth.client_registration_options is not None and auth.revocation_options is not None
    metadata = build_metadata(
        auth.issuer_url, None, auth.client_registration_options, auth.revocation_options
    )
    methods = list(metadata.token_endpoint_auth_methods_supported or [])
    metadata.token_endpoint_auth_methods_supported = [*methods, "none"]
    handler = cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"])
    return Route(SERVER_METADATA, handler, methods=["GET", "OPTIONS"])


def _security(remote: Remote, port: int | None) -> TransportSecuritySettings:
    """The SDK's own Host/Origin check on `/mcp`, with the same names the guard accepts."""
    parts = urlsplit(remote.base_url)
    hosts = [f"{name}:{port if port else '*'}" for name in LOCAL_NAMES] + [parts.netloc.lower()]
    origins = [f"{scheme}://{h}" for scheme in ("http", "https") for h in hosts]
    return TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins)


def _root_metadata(remote: Remote, auth: AuthSettings) -> Route:
    """`/.well-known/oauth-protected-resource` too, describing `/mcp`: the SDK serves only the
    path-suffixed form (RFC 9728), and some clients look at the root first."""
    metadata = ProtectedResourceMetadata(
        resource=remote.resource,  # type: ignore[arg-type]
        authorization_servers=[auth.issuer_url],
        scopes_supported=auth.required_scopes,
    )
    handler = ProtectedResourceMetadataHandler(metadata).handle
    return Route(ROOT_METADATA, cors_middleware(handler, ["GET", "OPTIONS"]), methods=["GET", "OPTIONS"])


def attach(app: FastAPI, token: str, port: int | None, remote: Remote) -> LoreOAuth:
    """Add `/mcp`, the OAuth endpoints and the consent page to `app`; returns the provider."""
    base = remote.base_url.rstrip("/")
    provider = LoreOAuth(
        base, remote.resource, lifetimes=remote.lifetimes, now=remote.now, registrations=remote.registrations
    )
    auth = AuthSettings(
        issuer_url=base,  # type: ignore[arg-type]  # pydantic parses the string
        resource_server_url=remote.resource,  # type: ignore[arg-type]
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
        ),
        revocation_options=RevocationOptions(enabled=True),
        required_scopes=[SCOPE],
        validate_token_resource=True,
    )
    sessions = RemoteSessions(remote.project, now=remote.now)
    home = remote.project.path if remote.project else None
    server = build_server(home, sessions=sessions, auth=auth, auth_server_provider=provider)
    sdk = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=_security(remote, port),
        session_idle_timeout=IDLE_SECONDS,
        max_sessions=MAX_SESSIONS,
    )
    wrapped: dict[str, ASGIApp] = {
        MCP_PATH: _Ending(sdk, sessions),
        "/register": _RegistrationGate(sdk, provider),
        "/token": _TokenTarget(sdk, remote.resource),
    }
    for route in sdk.routes:  # each path answered by the SDK's app, with its auth middleware
        if isinstance(route, Route) and route.path != SERVER_METADATA:  # all are Routes
            app.router.routes.append(Route(route.path, endpoint=wrapped.get(route.path, sdk)))
    app.router.routes.append(_server_metadata(auth))
    app.router.routes.append(_root_metadata(remote, auth))
    consent = Consent(provider, token, session_cookie(port))
    app.router.routes.append(Route(CONSENT_PATH, consent.page, methods=["GET"]))
    app.router.routes.append(Route(CONSENT_PATH, consent.answer, methods=["POST"]))

    previous = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(owner: Any) -> AsyncIterator[Any]:
        async with previous(owner) as state, server.session_manager.run():
            yield state

    app.router.lifespan_context = lifespan
    return provider
