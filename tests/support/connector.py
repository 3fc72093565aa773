"""The remote MCP connector as a client meets it: `lore serve --mcp` on 127.0.0.1 in a thread, and
the official SDK client (OAuth provider over streamable HTTP) driven by a "browser" that does
what the local user does on the consent page: open the printed address, read the page, press a
button.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from lore.rules.models import Project
from lore.web.mcp_http import Remote
from lore.web.oauth.provider import Lifetimes
from lore.web.oauth.registration import RegistrationLimits
from lore.web.server import bind, build_server, new_token

MODE = "auto"  # what a client does by default: discover the protocol, fall back to initialize
REDIRECT = "http://127.0.0.1:9/callback"  # never opened: the test reads the code off the redirect


@dataclass
class Connector:
    """A running `lore serve --mcp`: its base URL and this run's UI token."""

    base: str
    token: str

    @property
    def mcp(self) -> str:
        return f"{self.base}/mcp"

    def http(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.base, trust_env=False, timeout=30, **kwargs)


@contextmanager
def running(
    project: Project | None = None,
    now: Callable[[], float] | None = None,
    lifetimes: Lifetimes | None = None,
    registrations: RegistrationLimits | None = None,
) -> Iterator[Connector]:
    """The server as `lore serve --mcp` builds it, on a free port of 127.0.0.1."""
    sock = bind(0)
    port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    token = new_token()
    extra: dict[str, Any] = {
        "lifetimes": lifetimes or Lifetimes(),
        "registrations": registrations or RegistrationLimits(),
    }
    if now is not None:
        extra["now"] = now
    server = build_server(sock, token, Remote(base, project, **extra), public=base)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    if not server.ready.wait(timeout=30) or not server.started:
        raise RuntimeError("the connector did not start")
    try:
        yield Connector(base, token)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


class _Form(HTMLParser):
    """The consent page's form: its hidden fields and its buttons, as a browser would read them."""

    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.hidden: dict[str, str] = {}
        self.buttons: dict[str, str] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.action = a.get("action", "")
        elif tag == "input" and a.get("type") == "hidden":
            self.hidden[a["name"]] = a.get("value", "")
        elif tag == "button":
            self.buttons[a.get("value", "")] = a.get("name", "")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def read_form(page: str) -> _Form:
    form = _Form()
    form.feed(page)
    return form


@dataclass
class Browser:
    """The local user's browser: it opened the printed address (so it has the session cookie),
    follows `/authorize` to the consent page and presses `decision`."""

    connector: Connector
    decision: str = "approve"
    signed_in: bool = True
    pages: list[str] = field(default_factory=list)

    def answer(self, authorize_url: str) -> httpx.Response:
        """The reply to pressing the button: a redirect to the client, or a refusal page."""
        with self.connector.http() as web:
            if self.signed_in:
                web.get(f"/?token={self.connector.token}").raise_for_status()
            hop = web.get(authorize_url)
            assert hop.status_code == 302, hop.text
            consent = web.get(hop.headers["location"])
            assert consent.status_code == 200, consent.text
            self.pages.append(consent.text)
            form = read_form(consent.text)
            data = {**form.hidden, form.buttons[self.decision]: self.decision}
            return web.post(form.action, data=data, headers={"Origin": self.connector.base})

    def press(self, authorize_url: str) -> str:
        """The Location the browser is sent to after the button."""
        reply = self.answer(authorize_url)
        assert reply.status_code == 303, reply.text
        return reply.headers["location"]


class MemoryStorage:
    """The SDK's TokenStorage, in memory: what a client keeps between calls."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def oauth_client(
    connector: Connector, browser: Browser, storage: MemoryStorage, name: str = "Test <b>client</b>"
) -> OAuthClientProvider:
    """The SDK's OAuth client: registers, sends the user to consent, exchanges the code."""
    landed: list[str] = []

    async def redirect(url: str) -> None:
        landed.append(browser.press(url))

    async def callback() -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(landed[-1]).query)
        if "error" in query:
            raise PermissionError(query["error"][0])
        return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0])

    metadata = OAuthClientMetadata(
        client_name=name,
        redirect_uris=[REDIRECT],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope="lore",
    )
    return OAuthClientProvider(connector.mcp, metadata, storage, redirect, callback)


async def with_session(
    connector: Connector,
    auth: httpx2.Auth | None,
    work: Callable[[Client], Awaitable[Any]],
    mode: Any = MODE,
) -> Any:
    """Open an MCP session over streamable HTTP with `auth` and run `work` in it (`mode`:
    "legacy" for the initialize handshake and an `mcp-session-id`)."""
    async with (
        httpx2.AsyncClient(auth=auth, trust_env=False, timeout=30) as http,
        Client(streamable_http_client(connector.mcp, http_client=http), mode=mode) as client,
    ):
        return await work(client)


class Bearer(httpx2.Auth):
    """A fixed bearer token, as a client that kept one would send it."""

    def __init__(self, token: str):
        self.token = token

    def auth_flow(self, request: httpx2.Request) -> Iterator[httpx2.Request]:
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


def text_of(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


WWW_AUTH = re.compile(r'resource_metadata="([^"]+)"')


# -- the protocol by hand, for the refusals --------------------------------------------------


@dataclass
class Registered:
    client_id: str
    client_secret: str | None

    def auth(self) -> dict[str, str]:
        return {
            "client_id": self.client_id,
            **({"client_secret": self.client_secret} if self.client_secret else {}),
        }


def register(http: httpx.Client, name: str = "Probe", redirect: str = REDIRECT) -> Registered:
    answer = http.post(
        "/register",
        json={
            "client_name": name,
            "redirect_uris": [redirect],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
    )
    assert answer.status_code == 201, answer.text
    body = answer.json()
    return Registered(body["client_id"], body.get("client_secret"))


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def authorize_url(lore: Connector, client: Registered, challenge: str, **extra: str) -> str:
    query = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "s-1",
        "resource": lore.mcp,
        **extra,
    }
    return f"{lore.base}/authorize?{urlencode(query)}"


def code_from(location: str) -> str:
    query = parse_qs(urlsplit(location).query)
    assert query["state"] == ["s-1"]
    return query["code"][0]


def exchange(http: httpx.Client, client: Registered, code: str, verifier: str) -> httpx.Response:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "code_verifier": verifier,
        **client.auth(),
    }
    return http.post("/token", data=data)
