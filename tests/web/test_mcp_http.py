"""`lore serve --mcp` with the official SDK client over streamable HTTP, against a real uvicorn
on 127.0.0.1: the whole OAuth flow a custom connector goes through, then tool calls."""

from __future__ import annotations

import anyio
import pytest

from lore.core.store.oauth_store import OAuthStore
from lore.web.oauth.grants import list_grants
from lore.web.oauth.provider import digest
from support.clock import FakeClock
from support.connector import (
    WWW_AUTH,
    Bearer,
    Browser,
    MemoryStorage,
    oauth_client,
    running,
    text_of,
    with_session,
)


async def _ping(client) -> bool:
    return bool((await client.list_tools()).tools)


def _signed_in(lore, **client: str) -> str:
    """The SDK client through the whole OAuth flow (register, consent, token) and one tool
    listing; the access token it was given."""
    storage = MemoryStorage()
    assert anyio.run(with_session, lore, oauth_client(lore, Browser(lore), storage, **client), _ping)
    assert storage.tokens is not None
    return storage.tokens.access_token


def test_full_flow_registration_consent_token_tool_refresh(shop) -> None:
    with running(shop) as lore:
        browser = Browser(lore)
        storage = MemoryStorage()

        async def work(client) -> tuple[str, str]:
            books = await client.call_tool("books_list", {})
            rules = await client.call_tool(
                "get_rules", {"paths": ["src/api/orders.py"], "task": "add pagination"}
            )
            return text_of(books), text_of(rules)

        books, rules = anyio.run(with_session, lore, oauth_client(lore, browser, storage), work)
        assert "Paginate list endpoints with limit and cursor." in rules and "project `shop`" in rules
        assert books  # an empty library still answers in words
        # the consent page showed the client's own name, escaped, and where it sends the user
        page = browser.pages[0]
        assert "Test &lt;b&gt;client&lt;/b&gt;" in page and "<b>client</b>" not in page
        assert "http://127.0.0.1:9/callback" in page
        first = storage.tokens
        assert first is not None and first.refresh_token and first.expires_in == 3600
        # only hashes are stored
        db = OAuthStore()
        assert db.token(digest(first.access_token)) is not None
        assert db.token(first.access_token) is None
        (grant,) = list_grants()
        assert grant.client == "Test <b>client</b>" and grant.state == "active" and grant.last_used

        # refresh: a new pair; the old access token stops at once
        with lore.http() as http:
            info = storage.client_info
            assert info is not None
            form = {
                "grant_type": "refresh_token",
                "refresh_token": first.refresh_token,
                "client_id": info.client_id,
            }
            if info.client_secret:
                form["client_secret"] = info.client_secret
            fresh = http.post("/token", data=form)
            assert fresh.status_code == 200, fresh.text
            second = fresh.json()
            assert second["refresh_token"] != first.refresh_token
            assert second["access_token"] != first.access_token

            async def listing(client) -> list[str]:
                return [t.name for t in (await client.list_tools()).tools]

            assert "books_list" in anyio.run(with_session, lore, Bearer(second["access_token"]), listing)
            old = http.post("/mcp", headers={"Authorization": f"Bearer {first.access_token}"}, json={})
            assert old.status_code == 401

            # the rotated refresh token comes back: refused, and the grant it belonged to ends
            again = http.post("/token", data=form)
            assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
            after = http.post("/mcp", headers={"Authorization": f"Bearer {second['access_token']}"}, json={})
            assert after.status_code == 401
        assert list_grants()[0].state == "revoked"


def test_a_request_without_a_token_is_told_where_the_metadata_is() -> None:
    with running() as lore, lore.http() as http:
        answer = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert answer.status_code == 401
        challenge = answer.headers["www-authenticate"]
        assert challenge.startswith("Bearer ")
        found = WWW_AUTH.search(challenge)
        assert found and found[1] == f"{lore.base}/.well-known/oauth-protected-resource/mcp"
        resource = http.get(found[1]).json()
        assert resource["resource"] == lore.mcp and resource["authorization_servers"] == [lore.base]
        assert http.get("/.well-known/oauth-protected-resource").json() == resource  # the root form too
        server = http.get("/.well-known/oauth-authorization-server").json()
        assert server["issuer"] == lore.base
        assert server["code_challenge_methods_supported"] == ["S256"]
        assert server["registration_endpoint"] == f"{lore.base}/register"
        # the UI's own token opens the UI's API, not /mcp
        ui = http.post(
            "/mcp", headers={"X-Lore-Token": lore.token, "Authorization": f"Bearer {lore.token}"}, json={}
        )
        assert ui.status_code == 401


def test_rules_tools_say_no_project_is_served_without_one(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # not a project
    with running() as lore:

        async def work(client) -> tuple[str, bool, str]:
            rules = await client.call_tool("get_rules", {"paths": ["src/a.py"]})
            books = await client.call_tool("books_list", {})
            return text_of(rules), bool(rules.is_error), text_of(books)

        text, is_error, books = anyio.run(
            with_session, lore, oauth_client(lore, Browser(lore), MemoryStorage()), work
        )
        assert is_error and "lore serve --mcp --project PATH" in text
        assert books


def test_a_session_serves_its_project_only(shop, tmp_path) -> None:
    from conftest import make_repo

    other = make_repo(tmp_path / "other", {"x.py": "x = 1\n"})
    with running(shop) as lore:

        async def work(client):
            return await client.call_tool("get_rules", {"paths": [str(other / "x.py")]})

        result = anyio.run(with_session, lore, oauth_client(lore, Browser(lore), MemoryStorage()), work)
        assert result.is_error and "serves project `shop` only" in text_of(result)


def test_a_revoked_token_is_refused(shop) -> None:
    from lore.web.oauth.grants import revoke

    with running(shop) as lore:
        access = _signed_in(lore)
        (grant,) = list_grants()
        assert revoke(grant.id) == 1
        with lore.http() as http:
            answer = http.post("/mcp", headers={"Authorization": f"Bearer {access}"}, json={})
            assert answer.status_code == 401 and "resource_metadata=" in answer.headers["www-authenticate"]
        assert list_grants()[0].state == "revoked"


def test_an_expired_token_is_refused(shop) -> None:
    clock = FakeClock()
    with running(shop, now=clock.now) as lore:
        access = _signed_in(lore)
        clock.sleep(3599)  # a second before the hour is up: still good
        assert anyio.run(with_session, lore, Bearer(access), _ping)
        clock.sleep(2)
        with lore.http() as http:
            answer = http.post("/mcp", headers={"Authorization": f"Bearer {access}"}, json={})
            assert answer.status_code == 401 and "invalid_token" in answer.headers["www-authenticate"]


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        ("evil.example:{port}", None, 400),  # a DNS name rebound to 127.0.0.1
        ("127.0.0.1:{port}", "http://evil.example", 403),  # another site's page
    ],
)
def test_rebound_host_and_foreign_origin_are_refused_on_mcp(
    shop, host: str, origin: str | None, status: int
) -> None:
    with running(shop) as lore:
        access = _signed_in(lore)
        port = lore.base.rsplit(":", 1)[1]
        headers = {"Authorization": f"Bearer {access}", "Host": host.format(port=port)}
        if origin:
            headers["Origin"] = origin
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        with lore.http() as http:
            for path in ("/mcp", "/token", "/register", "/.well-known/oauth-authorization-server"):
                answer = http.post(path, headers=headers, json=body)
                assert answer.status_code == status, (path, answer.text)


def test_the_browser_gets_its_session_only_from_the_printed_address() -> None:
    with running() as lore, lore.http() as http:
        assert "set-cookie" not in http.get("/?token=wrong-token-wrong-token").headers
        cookie = http.get(f"/?token={lore.token}").headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and lore.token not in cookie


def test_tokens_cli_lists_and_revokes(shop) -> None:
    import json

    from typer.testing import CliRunner

    from lore.cli.app import app

    with running(shop) as lore:
        _signed_in(lore, name="Claude")
    runner = CliRunner()
    listed = runner.invoke(app, ["serve", "tokens", "--json"])
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.output)
    assert row["client"] == "Claude" and row["state"] == "active" and row["expires"] and row["created"]
    plain = runner.invoke(app, ["serve", "tokens"])
    assert row["id"] in plain.output and "Claude" in plain.output
    missing = runner.invoke(app, ["serve", "tokens", "revoke", "nope"])
    assert missing.exit_code == 3 and "no grant 'nope'" in missing.output
    neither = runner.invoke(app, ["serve", "tokens", "revoke"])
    assert neither.exit_code == 2
    done = runner.invoke(app, ["serve", "tokens", "revoke", row["id"]])
    assert done.exit_code == 0 and "Revoked 1 grant." in done.output
    assert json.loads(runner.invoke(app, ["serve", "tokens", "--json"]).output)[0]["state"] == "revoked"
    assert runner.invoke(app, ["serve", "tokens", "revoke", "--all"]).output.strip() == "Revoked 0 grants."


def test_non_loopback_host_without_tls_is_refused_in_one_line() -> None:
    from typer.testing import CliRunner

    from lore.cli.app import app

    result = CliRunner().invoke(app, ["serve", "--mcp", "--no-open", "--host", "192.0.2.10"])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "--host 192.0.2.10 is reachable from other machines" in result.output
    assert "--tls-cert" in result.output and "--insecure-remote" in result.output


def test_public_url_and_tls_settings_are_checked_in_one_line(tmp_path) -> None:
    from typer.testing import CliRunner

    from lore.cli.app import app

    runner = CliRunner()
    every = runner.invoke(app, ["serve", "--mcp", "--no-open", "--host", "0.0.0.0", "--insecure-remote"])
    assert every.exit_code == 2 and "give --public-url" in every.output
    missing = runner.invoke(
        app,
        ["serve", "--no-open", "--tls-cert", str(tmp_path / "c.pem"), "--tls-key", str(tmp_path / "k.pem")],
    )
    assert missing.exit_code == 2 and "is not a file" in missing.output
    half = runner.invoke(app, ["serve", "--no-open", "--tls-cert", str(tmp_path / "c.pem")])
    assert half.exit_code == 2 and "go together" in half.output
    for result in (every, missing, half):
        assert len(result.output.strip().splitlines()) == 1


def test_a_public_url_is_the_issuer_and_its_host_is_accepted() -> None:
    import threading

    import httpx

    from lore.web.mcp_http import Remote
    from lore.web.server import bind, build_server, new_token

    sock = bind(0)
    public = "https://lore.example.com"
    token = new_token()
    server = build_server(sock, token, Remote(public), public=public)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    assert server.ready.wait(timeout=30) and server.started
    try:
        port = sock.getsockname()[1]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False, timeout=30) as http:
            meta = http.get("/.well-known/oauth-authorization-server", headers={"Host": "lore.example.com"})
            assert meta.status_code == 200 and meta.json()["issuer"] == public
            assert meta.json()["token_endpoint"] == f"{public}/token"
            other = http.get("/.well-known/oauth-authorization-server", headers={"Host": "lore.example.org"})
            assert other.status_code == 400
            # the UI as the proxy serves it: its https origin is our own, the local http one too
            for host, origin in (
                ("lore.example.com", public),
                (f"127.0.0.1:{port}", f"http://127.0.0.1:{port}"),
            ):
                ui = http.get(
                    "/api/projects", headers={"Host": host, "Origin": origin, "X-Lore-Token": token}
                )
                assert ui.status_code == 200, (host, origin)
            foreign = http.get(
                "/api/projects",
                headers={"Host": "lore.example.com", "Origin": "https://evil.example", "X-Lore-Token": token},
            )
            assert foreign.status_code == 403
            challenge = http.post("/mcp", headers={"Host": "lore.example.com"}, json={})
            assert (
                f'resource_metadata="{public}/.well-known/oauth-protected-resource/mcp"'
                in challenge.headers["www-authenticate"]
            )
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def test_project_choice_is_checked_in_one_line(tmp_path) -> None:
    from typer.testing import CliRunner

    from lore.cli.app import app

    runner = CliRunner()
    alone = runner.invoke(app, ["serve", "--no-open", "--project", str(tmp_path)])
    assert alone.exit_code == 2 and "it needs --mcp" in alone.output
    unknown = runner.invoke(app, ["serve", "--mcp", "--no-open", "--project", str(tmp_path)])
    assert unknown.exit_code == 3 and "see `lore projects`" in unknown.output
    assert len(unknown.output.strip().splitlines()) == 1


@pytest.mark.e2e
def test_serve_mcp_as_a_user_starts_it(shop) -> None:
    import os
    import re
    import signal
    import subprocess
    import sys

    import httpx

    proc = subprocess.Popen(
        [sys.executable, "-m", "lore.cli.entry", "serve", "--mcp", "--no-open", "--project", str(shop.path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert proc.stdout is not None
        ui, connector = proc.stdout.readline(), proc.stdout.readline()
        assert re.search(r"http://127\.0\.0\.1:\d+/\?token=", ui), ui
        found = re.search(r"MCP connector: (http://127\.0\.0\.1:\d+/mcp)", connector)
        assert found, connector
        with httpx.Client(trust_env=False, timeout=30) as http:
            answer = http.post(found[1], json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert answer.status_code == 401 and "resource_metadata=" in answer.headers["www-authenticate"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_each_remote_session_gets_the_rules_once(shop, mode: str) -> None:
    """Two connectors open at once: each is sent the rules for the same file; a second call from
    one of them gets them as already sent (seed: once per session). "legacy" has MCP sessions
    (`mcp-session-id`); "auto" speaks 2026-07-28, which has none: there a session is a client."""
    rule = "Paginate list endpoints with limit and cursor."
    ask = {"paths": ["src/api/orders.py"], "task": "add pagination"}
    with running(shop) as lore:
        first = oauth_client(lore, Browser(lore), MemoryStorage(), "first")
        second = oauth_client(lore, Browser(lore), MemoryStorage(), "second")

        async def both(a) -> list[str]:
            replies = [text_of(await a.call_tool("get_rules", ask))]

            async def other(b) -> None:
                replies.append(text_of(await b.call_tool("get_rules", ask)))
                replies.append(text_of(await a.call_tool("get_rules", ask)))  # A, while B is open
                replies.append(text_of(await b.call_tool("get_rules", ask)))

            await with_session(lore, second, other, mode)
            return replies

        a1, b1, a2, b2 = anyio.run(with_session, lore, first, both, mode)
        assert rule in a1 and "already sent" not in a1
        assert rule in b1 and "already sent" not in b1  # not "already sent" to another client
        for again in (a2, b2):
            assert rule not in again and "already sent in this session" in again
        assert sorted(g.client for g in list_grants()) == ["first", "second"]


def test_one_client_two_mcp_sessions_are_two_sessions(shop) -> None:
    """The same client (same token) in a second MCP session after the first ended is sent the
    rules again: with sessions, the MCP session is the unit, not the client."""
    ask = {"paths": ["src/api/orders.py"], "task": "add pagination"}
    with running(shop) as lore:
        storage = MemoryStorage()
        client = oauth_client(lore, Browser(lore), storage)

        async def twice(c) -> list[str]:
            return [text_of(await c.call_tool("get_rules", ask)) for _ in range(2)]

        first = anyio.run(with_session, lore, client, twice, "legacy")
        assert storage.tokens is not None
        again = anyio.run(with_session, lore, Bearer(storage.tokens.access_token), twice, "legacy")
        rule = "Paginate list endpoints with limit and cursor."
        assert rule in first[0] and rule not in first[1]
        assert rule in again[0] and rule not in again[1]


def test_remote_sessions_are_bounded_and_dropped(shop) -> None:
    """The per-session table: the same id is the same session, an ended or idle one is made
    afresh, and past the bound the least recently used goes."""
    from lore.web.mcp_http import RemoteSessions

    clock = FakeClock()
    sessions = RemoteSessions(shop, idle=60, most=2, now=clock.now)
    a = sessions.session_for("a")
    assert sessions.session_for("a") is a and sessions.session_for("b") is not a
    sessions.end("a")
    assert len(sessions) == 1 and sessions.session_for("a") is not a
    b = sessions.session_for("b")
    sessions.session_for("c")  # three: "a" was used least recently, so it goes
    assert len(sessions) == 2 and sessions.session_for("b") is b
    clock.sleep(61)
    assert sessions.session_for("b") is not b and len(sessions) == 1  # idle: "b" and "c" went
    assert sessions.session_for(None) is not sessions.session_for(None)  # outside a session
    c = sessions.session_for("client/1f2e")
    sessions.end_mcp_session("1f2e")  # the DELETE of that MCP session
    assert sessions.session_for("client/1f2e") is not c
