"""The connector's refusals over real HTTP on 127.0.0.1: registration rate and cap (with a clock
the test moves, never a sleep), clients that never completed a grant expiring, a consent answer
without the page's own token, a token asked for another resource, and the metadata saying that
public clients are accepted."""

from __future__ import annotations

import secrets

import pytest

from lore.core.store.oauth_store import OAuthStore
from lore.web.oauth.grants import list_grants
from lore.web.oauth.provider import digest
from lore.web.oauth.registration import RegistrationLimits
from support.clock import FakeClock
from support.connector import (
    REDIRECT,
    Browser,
    Connector,
    Registered,
    authorize_url,
    code_from,
    exchange,
    pkce,
    read_form,
    register,
    running,
)

OTHER = "https://other.example/mcp"


def _try_register(lore: Connector, name: str = "Probe"):
    with lore.http() as http:
        return http.post(
            "/register",
            json={"client_name": name, "redirect_uris": [REDIRECT], "grant_types": ["authorization_code"]},
        )


def _granted(lore: Connector, client: Registered) -> dict:
    """Approve `client` in the browser and exchange its code: the grant completed."""
    verifier, challenge = pkce()
    code = code_from(Browser(lore).press(authorize_url(lore, client, challenge)))
    with lore.http() as http:
        answer = exchange(http, client, code, verifier)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_registrations_over_the_rate_get_429_with_retry_after_and_no_row() -> None:
    clock = FakeClock()
    limits = RegistrationLimits(per_minute=3)
    with running(now=clock.now, registrations=limits) as lore:
        for n in range(limits.per_minute):
            assert _try_register(lore, f"c{n}").status_code == 201
            clock.sleep(10)  # spread over the minute: the window slides from the first one
        refused = _try_register(lore)
        assert refused.status_code == 429
        assert refused.json()["error"] == "temporarily_unavailable"
        assert "at most 3 a minute" in refused.json()["error_description"]
        wait = int(refused.headers["retry-after"])
        assert wait == 60 - 10 * limits.per_minute  # until the first registration leaves the window
        assert OAuthStore().unfinished_clients()[0] == limits.per_minute  # the refused one left no row
        clock.sleep(wait - 1)
        assert _try_register(lore).status_code == 429  # a second early is still too early
        clock.sleep(1)
        assert _try_register(lore).status_code == 201


def test_clients_that_never_completed_a_grant_are_capped_and_expire() -> None:
    clock = FakeClock()
    limits = RegistrationLimits(per_minute=100, most_unfinished=3, unfinished_ttl=3600)
    with running(now=clock.now, registrations=limits) as lore, lore.http() as http:
        first, second, _ = (register(http, f"c{n}") for n in range(3))
        full = _try_register(lore)
        assert full.status_code == 429 and "never completed a grant" in full.json()["error_description"]
        assert int(full.headers["retry-after"]) == limits.unfinished_ttl
        tokens = _granted(lore, first)  # an approved client leaves the unfinished ones
        fourth = register(http, "c3")
        assert _try_register(lore).status_code == 429
        clock.sleep(limits.unfinished_ttl)  # the unapproved ones are now too old
        _, challenge = pkce()
        stale = http.get(authorize_url(lore, second, challenge))
        assert stale.status_code == 400  # an expired client is unknown at once
        assert _try_register(lore, "after").status_code == 201  # and the next registration prunes them
        store = OAuthStore()
        assert store.unfinished_clients()[0] == 1
        assert store.client(second.client_id) is None and store.client(fourth.client_id) is None
        kept = store.client(first.client_id)
        assert kept is not None and kept.granted  # the approved client stays
        refreshed = http.post(
            "/token",
            data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], **first.auth()},
        )
        assert refreshed.status_code == 200, refreshed.text


def test_a_consent_answer_without_the_pages_token_is_refused() -> None:
    with running() as lore, lore.http() as http:
        http.get(f"/?token={lore.token}")  # the local user's session cookie
        client = register(http)
        _, challenge = pkce()
        hop = http.get(authorize_url(lore, client, challenge))
        form = read_form(http.get(hop.headers["location"]).text)
        assert set(form.hidden) == {"request", "csrf"}
        approve = {"request": form.hidden["request"], "decision": "approve"}
        # the cookie, no Origin header and no token: what a forged cross-site POST looks like
        forged = http.post(form.action, data=approve)
        assert forged.status_code == 403 and "did not come from the consent page" in forged.text
        other = read_form(http.get(http.get(authorize_url(lore, client, challenge)).headers["location"]).text)
        borrowed = http.post(form.action, data={**approve, "csrf": other.hidden["csrf"]})
        assert borrowed.status_code == 403  # a token is good for its own request only
        elsewhere = http.post(
            form.action,
            data={**form.hidden, "decision": "approve"},
            headers={"Referer": "https://evil.example/page"},
        )
        assert elsewhere.status_code == 403
        assert list_grants() == [] and OAuthStore().unfinished_clients()[0] == 1
        # the page's own form, even from a browser that sends no Origin, is answered
        real = http.post(form.action, data={**form.hidden, "decision": "approve"})
        assert real.status_code == 303 and "code=" in real.headers["location"]


def test_a_token_for_another_resource_is_refused_invalid_target() -> None:
    with running() as lore, lore.http() as http:
        client = register(http)
        verifier, challenge = pkce()
        code = code_from(Browser(lore).press(authorize_url(lore, client, challenge)))
        data = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "code_verifier": verifier,
            **client.auth(),
        }
        refused = http.post("/token", data={**data, "resource": OTHER})
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_target"
        assert "access_token" not in refused.json() and list_grants() == []
        # the code was not spent by the refusal; asked for this server, it buys a working token
        ours = http.post("/token", data={**data, "resource": lore.mcp.upper().replace("/MCP", "/mcp/")})
        assert ours.status_code == 200, ours.text
        tokens = ours.json()
        bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
        assert http.post("/mcp", headers=bearer, json={}).status_code != 401
        refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], **client.auth()}
        elsewhere = http.post("/token", data={**refresh, "resource": OTHER})
        assert elsewhere.status_code == 400 and elsewhere.json()["error"] == "invalid_target"


@pytest.mark.parametrize(("resource", "accepted"), [(None, True), (OTHER, False)])
def test_mcp_accepts_only_tokens_issued_for_itself(resource: str | None, accepted: bool) -> None:
    """A token row whose grant names another resource (as a store shared with another server
    would hold) opens nothing here; the same row for this server's /mcp does."""
    with running() as lore, lore.http() as http:
        client = register(http)
        store = OAuthStore()
        grant = secrets.token_hex(6)
        store.add_grant(grant, client.client_id, "lore", resource or lore.mcp, 0.0)
        access = secrets.token_urlsafe(32)
        store.add_tokens(grant, [(digest(access), "access", 4_000_000_000.0)], 0.0)
        answer = http.post("/mcp", headers={"Authorization": f"Bearer {access}"}, json={})
        assert (answer.status_code != 401) is accepted, answer.text


def test_metadata_lists_none_and_a_public_client_completes_a_grant() -> None:
    with running() as lore, lore.http() as http:
        metadata = http.get("/.well-known/oauth-authorization-server").json()
        methods = metadata["token_endpoint_auth_methods_supported"]
        assert "none" in methods and "client_secret_post" in methods
        assert metadata["registration_endpoint"] == f"{lore.base}/register"
        answer = http.post(
            "/register",
            json={
                "client_name": "Public",
                "redirect_uris": [REDIRECT],
                "grant_types": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_method": "none",
            },
        )
        assert answer.status_code == 201 and "client_secret" not in {
            k for k, v in answer.json().items() if v is not None
        }
        public = Registered(answer.json()["client_id"], None)
        tokens = _granted(lore, public)  # exchanged with its client_id alone
        assert tokens["token_type"] == "Bearer"
