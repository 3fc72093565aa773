"""`lore serve --mcp`: the MCP server over streamable HTTP at `/mcp`, behind OAuth 2.1.

The MCP SDK builds the pieces (its session manager, the authorization endpoints and metadata,
the bearer-token check that answers 401 with `WWW-Authenticate: Bearer resource_metadata=...`);
this module hands it Lore's provider (`oauth.provider`), adds the consent page, and puts its
routes on the web UI's own app, so the guard (Host, Origin) stands in front of all of it and
one port serves the UI and the connector.

Which project: a remote client's paths mean nothing on this machine, so a remote session serves
one project, fixed when the server starts (`--project`, else the current folder when it is a
registered project). Without one, the rules tools answer that no project is served, and the
books and history tools work as usual. All remote connections share that one session.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI
from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.routes import cors_middleware
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import ProtectedResourceMetadata
from starlette.routing import Route

from lore.core.errors import InvalidInput, NotFound
from lore.mcp.server import build_server
from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.models import Project
from lore.web.guard import LOCAL_NAMES, session_cookie
from lore.web.oauth.consent import Consent
from lore.web.oauth.provider import CONSENT_PATH, SCOPE, Lifetimes, LoreOAuth

MCP_PATH = "/mcp"
ROOT_METADATA = "/.well-known/oauth-protected-resource"
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
    provider = LoreOAuth(base, remote.resource, lifetimes=remote.lifetimes, now=remote.now)
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
    server = build_server(session=RemoteSession(remote.project), auth=auth, auth_server_provider=provider)
    sdk = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=_security(remote, port)
    )
    for route in sdk.routes:  # each path answered by the SDK's app, with its auth middleware
        if isinstance(route, Route):  # all of them are: /mcp, the metadata, the OAuth endpoints
            app.router.routes.append(Route(route.path, endpoint=sdk))
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
