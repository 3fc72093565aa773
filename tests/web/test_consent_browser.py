"""The consent page in real headless Chromium, as the local user meets it: open the printed
address, follow the client's `/authorize` link, read who asks, press Approve; the browser itself
then carries the code to the client (so the page's CSP must let its form go there)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from support.connector import REDIRECT, authorize_url, exchange, pkce, register, running

pytestmark = pytest.mark.e2e
expect = pytest.importorskip("playwright.sync_api").expect
SHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "connector-consent.png"


def test_approve_in_the_browser_sends_the_code_to_the_client(page, shop) -> None:
    with running(shop) as lore, lore.http() as http:
        client = register(http, name="Claude <img src=x>")
        verifier, challenge = pkce()
        landed: list[str] = []
        page.route(
            f"{REDIRECT}**", lambda route: (landed.append(route.request.url), route.fulfill(body="ok"))
        )
        page.goto(f"{lore.base}/?token={lore.token}")  # the printed address: the session cookie
        page.goto(authorize_url(lore, client, challenge))
        expect(page.locator("h1")).to_have_text("Allow Claude <img src=x> to use Lore?")
        expect(page.locator("img")).to_have_count(0)  # the name is text, not markup
        expect(page.locator(".redirect")).to_have_text(REDIRECT)
        page.screenshot(path=str(SHOT))
        page.get_by_role("button", name="Approve").click()
        page.wait_for_url(f"{REDIRECT}**")
        query = parse_qs(urlsplit(landed[0]).query)
        assert query["state"] == ["s-1"]
        token = exchange(http, client, query["code"][0], verifier)
        assert token.status_code == 200 and token.json()["refresh_token"]


def test_deny_in_the_browser_sends_access_denied(page, shop) -> None:
    with running(shop) as lore, lore.http() as http:
        client = register(http)
        _, challenge = pkce()
        page.route(f"{REDIRECT}**", lambda route: route.fulfill(body="ok"))
        page.goto(f"{lore.base}/?token={lore.token}")
        page.goto(authorize_url(lore, client, challenge))
        page.get_by_role("button", name="Deny").click()
        page.wait_for_url(f"{REDIRECT}**")
        assert parse_qs(urlsplit(page.url).query)["error"] == ["access_denied"]


def test_without_the_printed_address_approve_explains_what_to_do(page, shop) -> None:
    with running(shop) as lore, lore.http() as http:
        client = register(http)
        _, challenge = pkce()
        page.goto(authorize_url(lore, client, challenge))
        page.get_by_role("button", name="Approve").click()
        expect(page.locator("h1")).to_have_text("Not signed in")


def test_approve_works_when_the_client_site_sends_the_browser_here(page, shop) -> None:
    """As with a real connector: the user arrives from the client's own site (a cross-site
    navigation), and the session cookie must still count when the user presses Approve."""
    with running(shop) as lore, lore.http() as http:
        client = register(http)
        verifier, challenge = pkce()
        start = authorize_url(lore, client, challenge)
        page.route(
            "http://client.example/**",
            lambda route: route.fulfill(
                content_type="text/html", body=f'<a id="go" href="{start}">Connect Lore</a>'
            ),
        )
        page.route(f"{REDIRECT}**", lambda route: route.fulfill(body="ok"))
        page.goto(f"{lore.base}/?token={lore.token}")
        page.goto("http://client.example/settings")
        page.click("#go")
        page.get_by_role("button", name="Approve").click()
        page.wait_for_url(f"{REDIRECT}**")
        code = parse_qs(urlsplit(page.url).query)["code"][0]
        assert exchange(http, client, code, verifier).status_code == 200
