"""The rules UI in real headless Chromium (Debian's), clicked through like a user would.

Each test runs its own `lore serve` server (a real uvicorn on 127.0.0.1, own `$LORE_HOME`), one
browser serves all tests (see conftest), and every change is checked in the store through the service.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lore.core.errors import NotFound
from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.gate.trust import trust_state
from lore.rules.models import Project

pytestmark = pytest.mark.e2e
expect = pytest.importorskip("playwright.sync_api").expect


def _rule(project: Project, text_start: str):
    return next(r for r in service.list_rules(project) if r.text.startswith(text_start))


def _tab(page, name: str) -> None:
    page.locator(".tabs").get_by_role("link", name=re.compile("^" + name)).click()


def _card(page, rule_id: str):
    return page.locator(f'li.rule[data-id="{rule_id}"]')


def test_review_actions_persist(page, ui, shop) -> None:
    pending = _rule(shop, "Every migration")
    page.goto(ui.url)
    expect(page.locator("#project-name")).to_have_text("shop")
    assert "token" not in page.url  # kept out of the address bar and history

    _tab(page, "Pending")
    card = _card(page, pending.id)
    expect(card.locator(".evidence")).to_contain_text("maintainer")
    link = card.locator(".evidence a")
    expect(link).to_have_attribute("href", "https://github.com/acme/shop/pull/7#discussion_r1")
    card.get_by_role("button", name="Approve", exact=True).click()
    expect(page.locator("#status")).to_contain_text("approved")
    assert service.get_rule(pending.id).status == "active"

    page.reload()  # the change is in the store, and the token survives a reload
    _tab(page, "Active")
    card = _card(page, pending.id)
    expect(card.locator(".badge.active")).to_be_visible()
    card.get_by_role("button", name="Pin", exact=True).click()
    expect(card.get_by_role("button", name="Unpin", exact=True)).to_be_visible()
    expect(card.locator(".badge.always")).to_be_visible()
    assert service.get_rule(pending.id).always is True
    card.get_by_role("button", name="Unpin", exact=True).click()
    expect(card.get_by_role("button", name="Pin", exact=True)).to_be_visible()
    assert service.get_rule(pending.id).always is False

    card.get_by_role("button", name="Edit", exact=True).click()
    form = card.locator("form.edit")
    form.locator('[name="text"]').fill("Every migration must be reversible: write the down step.")
    form.locator('[name="title"]').fill("Reversible migrations")
    form.locator('[name="triggers"]').fill("migration, schema")
    form.locator('[name="scope"]').fill("src/db")
    form.get_by_role("button", name="Save", exact=True).click()
    expect(card.locator(".rule-title")).to_have_text("Reversible migrations")
    stored = service.get_rule(pending.id)
    assert stored.text == "Every migration must be reversible: write the down step."
    assert (stored.title, stored.triggers, stored.scope) == (
        "Reversible migrations",
        ("migration", "schema"),
        ("src/db/",),
    )

    card.get_by_role("button", name="Back to pending", exact=True).click()
    expect(card).to_have_count(0)
    assert service.get_rule(pending.id).status == "pending"
    _tab(page, "Pending")
    _card(page, pending.id).get_by_role("button", name="Reject", exact=True).click()  # the dialog is accepted
    expect(_card(page, pending.id)).to_have_count(0)
    with pytest.raises(NotFound):
        service.get_rule(pending.id)
    page.reload()
    expect(page.locator("#tab-pending .empty")).to_be_visible()


def test_auto_activated_rules_are_marked_and_approval_clears_the_mark(page, ui, shop) -> None:
    auto = _rule(shop, "Use four spaces")
    page.goto(ui.url)
    card = _card(page, auto.id)
    expect(card.locator(".badge.auto")).to_have_text("auto-activated")
    page.locator("#auto-only").check()
    expect(page.locator("#tab-active li.rule")).to_have_count(1)
    card.get_by_role("button", name="Back to pending", exact=True).click()
    _tab(page, "Pending")
    _card(page, auto.id).get_by_role("button", name="Approve", exact=True).click()
    expect(page.locator("#status")).to_contain_text("approved")
    assert service.get_rule(auto.id).auto is False
    _tab(page, "Active")
    expect(page.locator("#tab-active li.rule")).to_have_count(0)  # still filtered to auto: none left


def test_add_rule_is_active_at_once(page, ui, shop) -> None:
    page.goto(ui.url)
    _tab(page, "Add a rule")
    form = page.locator("#add-form")
    form.locator('[name="text"]').fill("Set an explicit timeout on every outbound HTTP call.")
    form.locator('[name="title"]').fill("HTTP timeouts")
    form.locator('[name="triggers"]').fill("http, timeout")
    form.locator('[name="scope"]').fill("src/api")
    form.locator('[name="always"]').check()
    form.get_by_role("button", name="Add rule", exact=True).click()
    expect(page.locator("#tab-active .rule-title", has_text="HTTP timeouts")).to_be_visible()
    added = _rule(shop, "Set an explicit timeout")
    assert (added.status, added.source, added.always) == ("active", "user", True)
    assert added.scope == ("src/api/",) and added.triggers == ("http", "timeout")

    _tab(page, "Add a rule")
    form.locator('[name="text"]').fill("Obey <!-- hidden instructions -->")
    form.get_by_role("button", name="Add rule", exact=True).click()
    expect(page.locator("#status.error")).to_contain_text("comment")
    assert len(service.list_rules(shop)) == 5


def test_trust_override_from_the_project_list(page, ui, shop) -> None:
    page.goto(ui.url)
    item = page.locator('li.project-item[data-project="shop"]')
    expect(item.locator(".trust")).to_have_text("yours")
    item.get_by_role("button", name="Untrust", exact=True).click()
    expect(item.locator(".trust")).to_have_text("untrusted (override)")
    expect(page.locator("#project-trust")).to_have_text("untrusted (override)")
    assert trust_state(shop.path).override == "untrust"
    page.reload()
    expect(item.locator(".trust")).to_have_text("untrusted (override)")
    item.get_by_role("button", name="Trust", exact=True).click()
    expect(item.locator(".trust")).to_have_text("trusted (override)")
    assert trust_state(shop.path).override == "trust"
    item.get_by_role("button", name="Reset", exact=True).click()
    expect(item.locator(".trust")).to_have_text("yours")
    assert trust_state(shop.path).override is None


def test_resolve_and_usage_views(page, ui, shop) -> None:
    task = "add pagination to the orders list"
    expected = service.rules_for_change(shop, ["src/api/orders.py"], task=task).render()
    page.goto(ui.url)
    _tab(page, "What an agent gets")
    form = page.locator("#resolve-form")
    form.locator('[name="paths"]').fill("src/api/orders.py")
    form.locator('[name="task"]').fill(task)
    form.get_by_role("button", name=re.compile("Show what")).click()
    expect(page.locator("#resolve-text")).to_have_text(expected)
    assert all(r.served_count == 0 for r in service.list_rules(shop))  # a preview records nothing

    sent = service.rules_for_change(shop, ["src/db/models.py"], task="add a column")
    AgentSession(shop.path, client="test").get_rules(["src/db/models.py"], task="add a column")
    _tab(page, "Usage")
    expect(page.locator("#usage-summary")).to_have_text(
        f"{3 - len(sent.served)} of 3 active rule(s) were never sent to an agent."
    )
    expect(page.locator("#usage-served tbody tr")).to_have_count(len(sent.served))
    expect(page.locator("#usage-never tbody tr")).to_have_count(3 - len(sent.served))


def test_rule_text_is_shown_as_text_never_run(page, ui, shop) -> None:
    sneaky = service.add_rule(
        shop,
        'Prefer <img src=x onerror="window.owned=1"> and <b>bold</b> markup.',
        title="<script>window.owned=2</script>",
    )
    page.goto(ui.url)
    card = _card(page, sneaky.id)
    expect(card.locator(".rule-text")).to_have_text(
        'Prefer <img src=x onerror="window.owned=1"> and <b>bold</b> markup.'
    )
    expect(card.locator(".rule-title")).to_have_text("<script>window.owned=2</script>")
    assert card.locator("img, b, script").count() == 0
    assert page.evaluate("window.owned") is None


class _OtherSite(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>another site</title><p>another site</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def other_site() -> Iterator[str]:
    """Another origin on this machine, standing in for any web page the user has open."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OtherSite)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_requests_without_token_or_from_another_site_are_refused(page, browser, ui, shop, other_site) -> None:
    pending = _rule(shop, "Every migration")
    approve = f"{ui.base}/api/projects/shop/rules/{pending.id}/approve"

    bare = browser.new_page()  # a new tab that never saw the token
    bare.goto(ui.base + "/")
    expect(bare.locator("#no-token")).to_be_visible()
    status = bare.evaluate("url => fetch(url, {method: 'POST'}).then(r => r.status)", approve)
    assert status == 401
    bare.close()

    page.goto(other_site)
    with page.expect_response(lambda r: r.url == approve) as answer:
        page.evaluate("url => fetch(url, {method: 'POST', mode: 'no-cors'}).then(() => 'sent')", approve)
    assert answer.value.status == 403
    # even a page that somehow had the token is stopped: the header needs a preflight we refuse
    outcome = page.evaluate(
        "([url, token]) => fetch(url, {method: 'POST', headers: {'X-Lore-Token': token}})"
        ".then(r => 'answered ' + r.status, () => 'blocked')",
        [approve, ui.token],
    )
    assert outcome == "blocked"
    assert service.get_rule(pending.id).status == "pending"
