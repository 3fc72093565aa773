"""The connector's authorization server, request by request, against a real server on 127.0.0.1:
what it refuses (a wrong PKCE verifier, an unregistered redirect URI, a used or expired code,
another resource, a denied consent) and what the consent page shows."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest

from lore.web.guard import session_value
from lore.web.oauth.consent import csrf_token
from lore.web.oauth.grants import list_grants
from support.clock import FakeClock
from support.connector import (
    REDIRECT,
    Browser,
    Connector,
    MemoryStorage,
    authorize_url,
    code_from,
    exchange,
    oauth_client,
    pkce,
    read_form,
    register,
    running,
    with_session,
)


@pytest.fixture
def lore(shop) -> Iterator[Connector]:
    with running(shop) as running_lore:
        yield running_lore


def test_a_wrong_pkce_verifier_is_refused_and_the_right_one_works_once(lore: Connector) -> None:
    with lore.http() as http:
        client = register(http)
        verifier, challenge = pkce()
        code = code_from(Browser(lore).press(authorize_url(lore, client, challenge)))
        wrong = exchange(http, client, code, secrets.token_urlsafe(48))
        assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
        right = exchange(http, client, code, verifier)
        assert right.status_code == 200, right.text
        assert right.json()["token_type"] == "Bearer" and right.json()["expires_in"] == 3600
        bearer = {"Authorization": f"Bearer {right.json()['access_token']}"}
        assert http.post("/mcp", headers=bearer, json={}).status_code != 401
        again = exchange(http, client, code, verifier)  # a code works once...
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
        # ...and presenting it twice means it leaked: the tokens it bought stop working
        assert http.post("/mcp", headers=bearer, json={}).status_code == 401
    assert [g.state for g in list_grants()] == ["revoked"]


def _redirected_error(answer) -> str:
    """The `error` an authorization refusal sends back to the client's redirect URI."""
    assert answer.status_code == 302
    (error,) = parse_qs(urlsplit(answer.headers["location"]).query)["error"]
    return error


def test_only_s256_is_accepted(lore: Connector) -> None:
    with lore.http() as http:
        client = register(http)
        verifier, _ = pkce()
        answer = http.get(authorize_url(lore, client, verifier, code_challenge_method="plain"))
        assert _redirected_error(answer) == "invalid_request"


def test_an_unregistered_redirect_uri_is_refused_without_redirecting(lore: Connector) -> None:
    with lore.http() as http:
        client = register(http)
        _, challenge = pkce()
        url = authorize_url(lore, client, challenge, redirect_uri="https://evil.example/steal")
        answer = http.get(url)
        assert answer.status_code == 400 and "location" not in answer.headers
        assert "not registered" in answer.json()["error_description"]


def test_a_token_for_another_resource_is_not_issued(lore: Connector) -> None:
    with lore.http() as http:
        client = register(http)
        _, challenge = pkce()
        answer = http.get(authorize_url(lore, client, challenge, resource="https://other.example/mcp"))
        assert _redirected_error(answer) == "invalid_target"


@pytest.mark.parametrize("redirect", ["javascript:alert(1)", "http://evil.example/cb"])
def test_registration_refuses_unsafe_redirect_uris(lore: Connector, redirect: str) -> None:
    with lore.http() as http:
        answer = http.post(
            "/register",
            json={"client_name": "x", "redirect_uris": [redirect], "grant_types": ["authorization_code"]},
        )
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_redirect_uri"


def test_deny_sends_access_denied_to_the_client_and_issues_nothing(lore: Connector) -> None:
    with lore.http() as http:
        client = register(http)
        _, challenge = pkce()
        location = Browser(lore, decision="deny").press(authorize_url(lore, client, challenge))
        assert location.startswith(REDIRECT)
        query = parse_qs(urlsplit(location).query)
        assert query["error"] == ["access_denied"] and query["state"] == ["s-1"] and "code" not in query
    assert list_grants() == []


def test_deny_through_the_sdk_client_ends_its_flow_without_a_token(lore: Connector) -> None:
    storage = MemoryStorage()

    async def ping(client) -> bool:
        return bool((await client.list_tools()).tools)

    with pytest.raises(ExceptionGroup) as caught:  # the callback hands the client the error
        anyio.run(with_session, lore, oauth_client(lore, Browser(lore, decision="deny"), storage), ping)
    assert caught.group_contains(PermissionError, match="access_denied")
    assert storage.tokens is None and list_grants() == []


def test_an_expired_code_is_refused() -> None:
    clock = FakeClock()
    with running(now=clock.now) as lore, lore.http() as http:
        client = register(http)
        verifier, challenge = pkce()
        code = code_from(Browser(lore).press(authorize_url(lore, client, challenge)))
        clock.sleep(601)
        answer = exchange(http, client, code, verifier)
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
        assert "expired" in answer.json()["error_description"]


def test_the_consent_page_escapes_the_client_and_only_lets_its_form_reach_the_client(lore: Connector) -> None:
    with lore.http() as http:
        client = register(http, name='<script>alert("x")</script>')
        _, challenge = pkce()
        hop = http.get(authorize_url(lore, client, challenge))
        page = http.get(hop.headers["location"])
        assert page.status_code == 200
        assert "<script>" not in page.text and "&lt;script&gt;" in page.text
        policy = page.headers["content-security-policy"]
        assert "script-src" not in policy and "default-src 'none'" in policy
        assert "form-action 'self' http://127.0.0.1:9;" in policy and "frame-ancestors 'none'" in policy
        assert page.headers["x-frame-options"] == "DENY"
        form = read_form(page.text)
        assert set(form.buttons) == {"approve", "deny"}


def test_the_consent_answer_from_another_site_is_refused(lore: Connector) -> None:
    with lore.http() as http:
        http.get(f"/?token={lore.token}")  # even with the local user's session
        client = register(http)
        _, challenge = pkce()
        hop = http.get(authorize_url(lore, client, challenge))
        form = read_form(http.get(hop.headers["location"]).text)
        data = {**form.hidden, "decision": "approve"}
        answer = http.post(form.action, data=data, headers={"Origin": "https://evil.example"})
        assert answer.status_code == 403
        # and the request is still there for the real user
        ok = http.post(form.action, data=data, headers={"Origin": lore.base})
        assert ok.status_code == 303 and "code=" in ok.headers["location"]


def test_an_unknown_consent_request_is_refused(lore: Connector) -> None:
    with lore.http() as http:
        http.get(f"/?token={lore.token}")
        assert http.get("/oauth/consent?request=nope").status_code == 400
        csrf = csrf_token(session_value(lore.token), "nope")  # as if a page had shown it
        answer = http.post("/oauth/consent", data={"request": "nope", "csrf": csrf, "decision": "approve"})
        assert answer.status_code == 400 and "unknown or too old" in answer.text


def test_the_consent_answer_needs_the_local_session(lore: Connector) -> None:
    """The client that asked (it knows the consent request) cannot approve it itself."""
    with lore.http() as http:
        client = register(http)
        _, challenge = pkce()
        reply = Browser(lore, signed_in=False).answer(authorize_url(lore, client, challenge))
        assert reply.status_code == 403 and "Open the address" in reply.text
        hop = http.get(authorize_url(lore, client, challenge))
        form = read_form(http.get(hop.headers["location"]).text)
        http.cookies.set(f"lore_ui_{lore.base.rsplit(':', 1)[1]}", "guessed")
        wrong = http.post(
            form.action, data={**form.hidden, "decision": "approve"}, headers={"Origin": lore.base}
        )
        assert wrong.status_code == 403
    assert list_grants() == []


def test_revoke_endpoint_ends_the_grant(lore: Connector) -> None:
    with lore.http() as http:
        client = register(http)
        verifier, challenge = pkce()
        code = code_from(Browser(lore).press(authorize_url(lore, client, challenge)))
        tokens = exchange(http, client, code, verifier).json()
        bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
        assert http.post("/mcp", headers=bearer, json={}).status_code != 401
        done = http.post("/revoke", data={"token": tokens["refresh_token"], **client.auth()})
        assert done.status_code == 200
        assert http.post("/mcp", headers=bearer, json={}).status_code == 401
    assert [g.state for g in list_grants()] == ["revoked"]
