"""The authorization server behind the remote MCP connector, as the MCP SDK's provider.

The SDK's handlers speak the protocol (metadata, registration, `/authorize`, `/token` with the
PKCE check, `/revoke`); this class decides. It differs from a hosted authorization server in
one way that matters: no token is issued until the person who ran `lore serve` approves the
client on the consent page (`consent.py`), so `authorize` only parks the request and sends the
browser there. Codes and tokens are random, stored as their sha256, expire, work for this
server's `/mcp` only (the resource indicator), and a refresh token is swapped for a new one on
every use; presenting a used refresh token again ends the whole grant (it was copied).
Registration, which needs no credentials, is rate-limited and capped (`registration.py`).
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from lore.core.store.oauth_store import OAuthStore, TokenRow
from lore.web.oauth.registration import Refusal, RegistrationLimits, RegistrationRate

SCOPE = "lore"
CONSENT_PATH = "/oauth/consent"
MAX_PENDING = 64  # consent pages answerable at once; the oldest is dropped first
T = TypeVar("T")
SdkToken = TypeVar("SdkToken", AccessToken, RefreshToken)


@dataclass(frozen=True)
class Lifetimes:
    """Seconds each credential lives: a leaked access token is useful for an hour at most."""

    access: int = 3600
    refresh: int = 30 * 86400
    code: int = 600
    consent: int = 600  # how long an approval page stays answerable


@dataclass(frozen=True)
class Pending:
    """An authorization request waiting for the local user's answer."""

    client: OAuthClientInformationFull
    params: AuthorizationParams
    expires_at: float

    @property
    def client_name(self) -> str:
        return self.client.client_name or "an unnamed client"


def digest(secret: str) -> str:
    """What the store keeps of a code or token."""
    return hashlib.sha256(secret.encode()).hexdigest()


def same_resource(given: str, ours: str) -> bool:
    """RFC 8707 resource indicators compared as URLs: case of scheme and host and a trailing
    slash aside, the one this server serves."""
    a, b = urlsplit(given.strip()), urlsplit(ours)
    return (a.scheme.lower(), a.netloc.lower(), a.path.rstrip("/"), a.query) == (
        b.scheme.lower(),
        b.netloc.lower(),
        b.path.rstrip("/"),
        b.query,
    )


def _sdk_token(kind: type[SdkToken], token: str, row: TokenRow) -> SdkToken:
    """The SDK's view of a stored token (an access or a refresh one): the same fields, one row."""
    return kind(
        token=token,
        client_id=row.client_id,
        scopes=row.scopes.split(),
        expires_at=int(row.expires_at),
        resource=row.resource,
    )


def _redirect_ok(uri: str) -> bool:
    """OAuth 2.1 redirect URIs: https, http only to this machine, or an app's own scheme."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if scheme in ("javascript", "data", "file", "vbscript", "blob", "about"):
        return False
    if scheme == "http":
        return (parts.hostname or "") in ("127.0.0.1", "localhost", "::1")
    return bool(scheme) and not parts.fragment


class LoreOAuth:
    """`OAuthAuthorizationServerProvider` for one `lore serve --mcp` run.

    `issuer` is the server's public base URL; `resource` its `/mcp` URL. `now` is the clock
    every expiry is measured on (tests move it instead of waiting)."""

    def __init__(
        self,
        issuer: str,
        resource: str,
        store: OAuthStore | None = None,
        lifetimes: Lifetimes | None = None,
        now: Callable[[], float] = time.time,
        registrations: RegistrationLimits | None = None,
    ):
        self.issuer = issuer.rstrip("/")
        self.resource = resource
        self.store = store or OAuthStore()
        self.lifetimes = lifetimes or Lifetimes()
        self.now = now
        self.registrations = registrations or RegistrationLimits()
        self._rate = RegistrationRate(self.registrations.per_minute)
        self._pending: dict[str, Pending] = {}
        self._touched: dict[str, float] = {}

    @staticmethod
    async def _run(fn: Callable[..., T], *args: Any) -> T:
        """Writes off the event loop: a book import may hold the write lock for a while. Reads
        stay on it (in WAL mode a reader never waits for a writer), which keeps the bearer check
        on every request a single indexed lookup."""
        return await anyio.to_thread.run_sync(lambda: fn(*args))

    # -- clients -------------------------------------------------------------------------------
    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        row = self.store.client(client_id)
        if row is None:
            return None
        if not row.granted and row.created_at <= self.now() - self.registrations.unfinished_ttl:
            return None  # never approved in time: as good as gone (the next registration prunes it)
        return OAuthClientInformationFull.model_validate_json(row.info)

    async def registration_refusal(self) -> Refusal | None:
        """Why one more registration is refused now (too many a minute, or too many clients that
        never completed a grant), or None: then it counts against the rate."""
        now = self.now()
        refused = self._rate.refusal(now)
        if refused is not None:
            return refused
        limits = self.registrations
        await self._run(self.store.drop_unfinished_clients, now - limits.unfinished_ttl)
        count, oldest = self.store.unfinished_clients()
        if count >= limits.most_unfinished:
            wait = max(1, math.ceil((oldest or now) + limits.unfinished_ttl - now))
            return Refusal(
                f"this server already holds {count} registered clients that never completed a grant"
                f" (at most {limits.most_unfinished}); the oldest expires in {wait} s",
                wait,
            )
        return None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        for uri in client_info.redirect_uris or []:
            if not _redirect_ok(str(uri)):
                raise RegistrationError(
                    "invalid_redirect_uri",
                    "redirect URIs must be https, http to 127.0.0.1/localhost, or an app's own scheme",
                )
        name = (client_info.client_name or "").strip()[:200] or "unnamed client"
        await self._run(
            self.store.add_client, client_info.client_id, name, client_info.model_dump_json(), self.now()
        )

    # -- the local user's consent --------------------------------------------------------------
    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if params.resource is not None and not same_resource(params.resource, self.resource):
            raise AuthorizeError("invalid_target", f"this server issues tokens only for {self.resource}")
        now = self.now()
        live = [(k, p) for k, p in self._pending.items() if p.expires_at > now]
        self._pending = dict(live[-(MAX_PENDING - 1) :])  # a flood of requests cannot grow it
        request_id = secrets.token_urlsafe(24)
        self._pending[request_id] = Pending(client, params, now + self.lifetimes.consent)
        return f"{self.issuer}{CONSENT_PATH}?request={request_id}"

    def pending(self, request_id: str) -> Pending | None:
        found = self._pending.get(request_id)
        return found if found is not None and found.expires_at > self.now() else None

    async def approve(self, request_id: str) -> str | None:
        """The local user said yes: a one-time code for the client's redirect URI (or None when
        the request is unknown or too old)."""
        found = self.pending(request_id)
        if found is None:
            return None
        del self._pending[request_id]
        params = found.params
        code = secrets.token_urlsafe(32)
        request = {
            "scopes": params.scopes or (found.client.scope or SCOPE).split(),
            "code_challenge": params.code_challenge,
            "redirect_uri": str(params.redirect_uri),
            "explicit": params.redirect_uri_provided_explicitly,
            "resource": params.resource or self.resource,
        }
        expires = self.now() + self.lifetimes.code
        await self._run(
            self.store.add_code, digest(code), found.client.client_id, json.dumps(request), expires
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    def deny(self, request_id: str) -> str | None:
        """The local user said no: the client hears `access_denied`, and no code exists."""
        found = self._pending.pop(request_id, None)
        if found is None:
            return None
        return construct_redirect_uri(
            str(found.params.redirect_uri),
            error="access_denied",
            error_description="the user of this Lore server declined",
            state=found.params.state,
        )

    # -- codes ---------------------------------------------------------------------------------
    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        row = self.store.code(digest(authorization_code))
        if row is None or row.client_id != client.client_id:
            return None
        if row.used_at is not None:  # a code presented twice: what it bought is revoked (RFC 6749 4.1.2)
            if row.grant_id:
                await self._run(self.store.revoke, [row.grant_id], self.now())
            return None
        request = json.loads(row.request)
        return AuthorizationCode(
            code=authorization_code,
            scopes=request["scopes"],
            expires_at=row.expires_at if row.expires_at > self.now() else 0.0,
            client_id=row.client_id,
            code_challenge=request["code_challenge"],
            redirect_uri=request["redirect_uri"],
            redirect_uri_provided_explicitly=request["explicit"],
            resource=request["resource"],
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        now = self.now()
        grant_id = secrets.token_hex(6)
        if not await self._run(self.store.use_code, digest(authorization_code.code), grant_id, now):
            raise TokenError("invalid_grant", "authorization code already used")
        scopes = " ".join(authorization_code.scopes)
        resource = authorization_code.resource or self.resource
        await self._run(self.store.add_grant, grant_id, client.client_id, scopes, resource, now)
        await self._run(self.store.prune, now - 86400)  # a day's grace, then expired rows go
        return await self._issue(grant_id, scopes, None)

    async def _issue(self, grant_id: str, scopes: str, replacing: str | None) -> OAuthToken:
        """A new access and refresh token for a grant; `replacing` (a refresh token's hash) is
        swapped out in the same transaction, or nothing is issued."""
        now = self.now()
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        rows = [
            (digest(access), "access", now + self.lifetimes.access),
            (digest(refresh), "refresh", now + self.lifetimes.refresh),
        ]
        if replacing is None:
            await self._run(self.store.add_tokens, grant_id, rows, now)
        elif not await self._run(self.store.rotate, replacing, grant_id, rows, now):
            raise TokenError("invalid_grant", "refresh token already used")
        return OAuthToken(
            access_token=access, expires_in=self.lifetimes.access, refresh_token=refresh, scope=scopes
        )

    # -- tokens --------------------------------------------------------------------------------
    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        row = self.store.token(digest(refresh_token))
        if row is None or row.kind != "refresh" or row.client_id != client.client_id or row.revoked_at:
            return None
        if row.used_at is not None:  # a rotated token came back: someone kept a copy
            await self._run(self.store.revoke, [row.grant_id], self.now())
            return None
        if row.expires_at <= self.now():
            return None
        return _sdk_token(RefreshToken, refresh_token, row)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        row = self.store.token(digest(refresh_token.token))
        if row is None:
            raise TokenError("invalid_grant", "refresh token does not exist")
        return await self._issue(row.grant_id, row.scopes, digest(refresh_token.token))

    async def load_access_token(self, token: str) -> AccessToken | None:
        row = self.store.token(digest(token))
        now = self.now()
        if row is None or row.kind != "access" or row.revoked_at or row.expires_at <= now:
            return None
        if not same_resource(row.resource, self.resource):  # issued for another server (RFC 8707)
            return None
        if now - self._touched.get(row.grant_id, 0.0) > 60:  # "last used" to the minute
            self._touched[row.grant_id] = now
            await self._run(self.store.touch_grant, row.grant_id, now)
        return _sdk_token(AccessToken, token, row)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        row = self.store.token(digest(token.token))
        if row is not None:
            await self._run(self.store.revoke, [row.grant_id], self.now())

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: Any
    ) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "this server issues tokens only after the user's consent")
